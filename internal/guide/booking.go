package guide

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// Booking statuses.
const (
	StatusPending    = "PENDING"
	StatusConfirmed  = "CONFIRMED"
	StatusInProgress = "IN_PROGRESS"
	StatusCompleted  = "COMPLETED"
	StatusCancelled  = "CANCELLED"
)

// BookingStatuses lists every status.
var BookingStatuses = []string{StatusPending, StatusConfirmed, StatusInProgress, StatusCompleted, StatusCancelled}

// Transition is a move of a booking from some statuses to another.
type Transition struct {
	Name string   // accept, start, complete, cancel
	From []string // statuses it may start from
	To   string
	// Who may make it besides admins (for complete and cancel) or only
	// the expert (accept, start).
	Tourist, Expert, Admin bool
}

// The booking life cycle.
var (
	Accept   = Transition{Name: "accept", From: []string{StatusPending}, To: StatusConfirmed, Expert: true}
	Start    = Transition{Name: "start", From: []string{StatusConfirmed}, To: StatusInProgress, Expert: true}
	Complete = Transition{Name: "complete", From: []string{StatusInProgress}, To: StatusCompleted, Expert: true, Admin: true}
	Cancel   = Transition{Name: "cancel", From: []string{StatusPending, StatusConfirmed, StatusInProgress}, To: StatusCancelled, Tourist: true, Expert: true, Admin: true}
)

// Allowed reports whether a party may make the transition.
func (t Transition) Allowed(p Party) bool {
	return (p.Tourist && t.Tourist) || (p.Expert && t.Expert) || (p.Admin && t.Admin)
}

// Applies reports whether the transition may start from status.
func (t Transition) Applies(status string) bool { return slices.Contains(t.From, status) }

// Check tells whether party p may make t on a booking in status. Errors:
// apperr.Forbidden (no party to the booking, or not one who may make t),
// apperr.InvalidState (t does not start from status).
func (t Transition) Check(p Party, status string) error {
	if err := p.CheckAny(); err != nil {
		return err
	}
	if !t.Allowed(p) {
		return apperr.Errorf(apperr.Forbidden, "Only %s may %s this booking.", t.who(), t.Name)
	}
	if !t.Applies(status) {
		return apperr.Errorf(apperr.InvalidState, "A %s booking cannot be %s; only a %s one can.", status, t.pastTense(), strings.Join(t.From, " or "))
	}
	return nil
}

// who names the parties who may make t, as messages show them.
func (t Transition) who() string {
	var parties []string
	if t.Tourist {
		parties = append(parties, "the traveller")
	}
	if t.Expert {
		parties = append(parties, "the booked expert")
	}
	if t.Admin {
		parties = append(parties, "an admin")
	}
	return strings.Join(parties, ", ")
}

func (t Transition) pastTense() string {
	switch t.Name {
	case "accept":
		return "accepted"
	case "start":
		return "started"
	case "complete":
		return "completed"
	}
	return "cancelled"
}

// Party is how a user stands to a booking.
type Party struct {
	Tourist, Expert, Admin bool
}

// Any reports whether the user may see the booking at all.
func (p Party) Any() bool { return p.Tourist || p.Expert || p.Admin }

// CheckAny tells whether the user may see the booking at all. Errors:
// apperr.Forbidden.
func (p Party) CheckAny() error {
	if !p.Any() {
		return apperr.Errorf(apperr.Forbidden, "This booking is not yours.")
	}
	return nil
}

// CanReview is the rule both BookingDetail.canReview and the review
// endpoint apply: the traveller, on a COMPLETED booking with an expert,
// when no review exists yet.
func CanReview(p Party, status string, hasExpert, hasReview bool) bool {
	return p.Tourist && status == StatusCompleted && hasExpert && !hasReview
}

// CheckReview is CanReview with the reason of a refusal. Errors:
// apperr.Forbidden (not the traveller), apperr.Conflict (not COMPLETED,
// no expert, or reviewed already: ErrBookingReviewed).
func CheckReview(p Party, status string, hasExpert, hasReview bool) error {
	switch {
	case !p.Tourist:
		return apperr.Errorf(apperr.Forbidden, "Only the traveller who made the booking can review it.")
	case status != StatusCompleted || !hasExpert:
		return apperr.Errorf(apperr.Conflict, "Only a COMPLETED booking can be reviewed; this one is %s.", status)
	case hasReview:
		return ErrBookingReviewed
	}
	return nil
}

// ErrBookingReviewed refuses a second review of a booking (apperr.Conflict).
var ErrBookingReviewed = apperr.Errorf(apperr.Conflict, "This booking already has a review.")

// BookingSummary is a booking as listed.
type BookingSummary struct {
	ID               string     `json:"id"`
	Status           string     `json:"status"`
	ScheduledDate    time.Time  `json:"scheduledDate"`
	ScheduledEndDate *time.Time `json:"scheduledEndDate"`
	Participants     int        `json:"participants"`
	TouristName      *string    `json:"touristName"`
	ExpertHandle     *string    `json:"expertHandle"`
	ExpertName       *string    `json:"expertName"`
	PackageID        *string    `json:"packageId"`
	PackageTitle     *string    `json:"packageTitle"`
	CreatedAt        time.Time  `json:"createdAt"`
}

// BookingDetail is one booking as its parties see it.
type BookingDetail struct {
	ID               string          `json:"id"`
	Status           string          `json:"status"`
	ScheduledDate    time.Time       `json:"scheduledDate"`
	ScheduledEndDate *time.Time      `json:"scheduledEndDate"`
	Participants     int             `json:"participants"`
	CustomRequest    *string         `json:"customRequest"`
	MeetingLocation  *string         `json:"meetingLocation"`
	Tourist          BookingTourist  `json:"tourist"`
	Expert           *BookingExpert  `json:"expert"`
	Package          *BookingPackage `json:"package"`
	ConfirmedAt      *time.Time      `json:"confirmedAt"`
	CompletedAt      *time.Time      `json:"completedAt"`
	CancelledAt      *time.Time      `json:"cancelledAt"`
	CreatedAt        time.Time       `json:"createdAt"`
	Review           *BookingReview  `json:"review"`
	CanReview        bool            `json:"canReview"`
	// Reseller is the reseller that sold the booking through the OCTO
	// door; nil for the others.
	Reseller *BookingReseller `json:"reseller"`
}

// BookingReseller is who sold a booking through the OCTO door, with its
// references: the expert reads them, the reseller finds its booking by
// them in the change events.
type BookingReseller struct {
	Name              *string `json:"name"`
	Reference         *string `json:"reference"`
	SupplierReference string  `json:"supplierReference"`
	OctoUUID          string  `json:"octoUuid"`
}

// BookingTourist is the traveller of a booking.
type BookingTourist struct {
	Name  *string `json:"name"`
	Email *string `json:"email"`
	Image *string `json:"image"`
}

// BookingExpert is the expert of a booking.
type BookingExpert struct {
	Handle string  `json:"handle"`
	Name   *string `json:"name"`
	Image  *string `json:"image"`
}

// BookingPackage is the package of a booking with the price agreed when it
// was booked.
type BookingPackage struct {
	ID       string  `json:"id"`
	Title    string  `json:"title"`
	Price    float64 `json:"price"`
	Currency string  `json:"currency"`
	Duration int     `json:"duration"`
}

// BookingReview is the review written for a booking.
type BookingReview struct {
	ID        string    `json:"id"`
	Rating    int       `json:"rating"`
	Comment   *string   `json:"comment"`
	CreatedAt time.Time `json:"createdAt"`
}

// BookingFilter selects the caller's bookings.
type BookingFilter struct {
	paging.Page
	Sort   string // createdAt, scheduledDate
	Status string
}

// NewBooking is a booking request; ExpertID or PackageID (or both) is set.
type NewBooking struct {
	ExpertID         *string
	PackageID        *string
	ScheduledDate    time.Time
	ScheduledEndDate *time.Time
	Participants     int
	CustomRequest    *string
	MeetingLocation  *string
}

// CheckFuture tells whether the booking request is for a time after now.
// Errors: apperr.Validation.
func (nb NewBooking) CheckFuture(now time.Time) error {
	if !nb.ScheduledDate.After(now) {
		return apperr.Field("scheduledDate", "must be in the future")
	}
	return nil
}

// BookedExpert is the expert a booking request names, directly or through
// its package, as the store found them.
type BookedExpert struct {
	ExpertID string
	UserID   string // the expert's account
	// MaxParticipants is the package's bound; 0 when the request names no
	// package.
	MaxParticipants int
}

// CheckBookable tells whether user may ask e for the booking nb. Errors:
// apperr.Validation (the package is another expert's, or too small),
// apperr.InvalidState (experts cannot book themselves).
func (nb NewBooking) CheckBookable(user *User, e BookedExpert) error {
	if nb.PackageID != nil {
		if nb.ExpertID != nil && *nb.ExpertID != e.ExpertID {
			return apperr.Field("packageId", "belongs to another expert than expertId")
		}
		if nb.Participants > e.MaxParticipants {
			return apperr.Field("participants", "this package takes at most "+strconv.Itoa(e.MaxParticipants)+" participants")
		}
	}
	if e.UserID == user.ID {
		return apperr.Errorf(apperr.InvalidState, "Experts cannot book themselves.")
	}
	return nil
}

// CreatedBooking is the answer to a booking request.
type CreatedBooking struct {
	ID            string    `json:"id"`
	Status        string    `json:"status"`
	ScheduledDate time.Time `json:"scheduledDate"`
}

// CancelledBooking is the answer to a cancellation.
type CancelledBooking struct {
	ID          string    `json:"id"`
	Status      string    `json:"status"`
	CancelledAt time.Time `json:"cancelledAt"`
}

// CreatedReview is the answer to a review, with the expert's new figures.
type CreatedReview struct {
	ID        string    `json:"id"`
	Rating    int       `json:"rating"`
	Comment   *string   `json:"comment"`
	CreatedAt time.Time `json:"createdAt"`
	Expert    struct {
		Rating      float64 `json:"rating"`
		ReviewCount int     `json:"reviewCount"`
	} `json:"expert"`
}

// BookingStore keeps bookings and reviews. Every method acts for the
// user; a user who is no party to a booking gets apperr.Forbidden.
type BookingStore interface {
	// CreateBooking asks a verified expert, or the expert of an active
	// package, for a booking; the request takes none of the expert's time
	// until it is accepted. Errors: apperr.NotFound, apperr.Validation,
	// apperr.InvalidState.
	CreateBooking(ctx context.Context, user *User, nb NewBooking) (*CreatedBooking, error)
	// FindBookings lists the bookings the user made, and those made with
	// the user as expert.
	FindBookings(ctx context.Context, user *User, f BookingFilter) ([]BookingSummary, int, error)
	// FindBookingByID returns a booking. Errors: apperr.NotFound, apperr.Forbidden.
	FindBookingByID(ctx context.Context, user *User, id string) (*BookingDetail, error)
	// CheckTransition tells whether the user may make t on the booking now.
	// Errors: apperr.NotFound, apperr.Forbidden, apperr.InvalidState.
	CheckTransition(ctx context.Context, user *User, id string, t Transition) error
	// TransitionBooking moves the booking by t in one conditional update,
	// so that of two racing transitions exactly one wins. Accepting a
	// booking whose time the expert is taken at is refused.
	// Errors: apperr.NotFound, apperr.Forbidden, apperr.InvalidState,
	// apperr.Conflict.
	TransitionBooking(ctx context.Context, user *User, id string, t Transition) (*BookingDetail, error)
	// CreateReview reviews a completed booking and recomputes the expert's
	// rating in the same transaction. Errors: apperr.NotFound,
	// apperr.Forbidden, apperr.Conflict, apperr.Validation.
	CreateReview(ctx context.Context, user *User, bookingID string, rating int, comment *string) (*CreatedReview, error)
}

// Pending action kinds and statuses.
const (
	ActionBookingCancel = "booking.cancel"
	ActionAccountDelete = "account.delete"

	ActionPending   = "pending"
	ActionConfirmed = "confirmed"
	ActionExpired   = "expired"
)

// PendingAction is a high-risk operation an API key asked for, waiting for
// its owner's confirmation.
type PendingAction struct {
	ID          string     `json:"id"`
	Action      string     `json:"action"`
	Status      string     `json:"status"`
	ExpiresAt   time.Time  `json:"expiresAt"`
	ConfirmedAt *time.Time `json:"confirmedAt"`
	CreatedAt   time.Time  `json:"createdAt"`
	// APIKeyID is the key that asked (nil once the key is deleted);
	// TargetID what the action acts on (the booking, or the account). The
	// confirmation page shows both.
	APIKeyID   *string         `json:"apiKeyId"`
	TargetID   string          `json:"targetId"`
	UserID     string          `json:"-"`
	PersonOnly bool            `json:"-"` // Caller.PersonConfirms when asked: no API key may confirm it
	Payload    json.RawMessage `json:"-"`
	Result     json.RawMessage `json:"-"`
}

// CheckConfirm tells whether the caller may confirm a at now: a pending,
// unexpired action, which no API key confirms when it is PersonOnly.
// Errors: apperr.PersonConfirmation, apperr.InvalidState (expired, or
// confirmed already).
func (a *PendingAction) CheckConfirm(c *Caller, now time.Time) error {
	switch {
	case a.Status == ActionPending && a.PersonOnly && c.APIKey != nil:
		return apperr.Errorf(apperr.PersonConfirmation, "Only the person confirms this action, with their user token (in the app) "+
			"or signed in on the confirmation page: it was asked for through the MCP endpoint or by a key created with "+
			"\"confirmation\": \"person\". No API key can confirm it; it stays pending.")
	case a.Status == ActionExpired || (a.Status == ActionPending && !now.Before(a.ExpiresAt)):
		return apperr.Errorf(apperr.InvalidState, "The action expired at %s; make the request again.", a.ExpiresAt.Format(time.RFC3339))
	case a.Status != ActionPending:
		return apperr.Errorf(apperr.InvalidState, "The action is already confirmed; make a new request to repeat it.")
	}
	return nil
}

// ConfirmedAction is the answer to a confirmation.
type ConfirmedAction struct {
	ActionID string          `json:"actionId"`
	Action   string          `json:"action"`
	Status   string          `json:"status"`
	Payload  json.RawMessage `json:"payload"`
	Result   json.RawMessage `json:"result"`
}

// ActionStore keeps pending actions.
type ActionStore interface {
	// CreateAction stores a pending action of the caller's key, person
	// only when c.PersonConfirms. While an action of the same key,
	// operation, target and kind of confirmation is pending, it returns
	// that one instead, with created false: one open action per ask,
	// however many (even concurrent) asks, and never one of the other kind.
	CreateAction(ctx context.Context, c *Caller, action, targetID string, payload any, ttl time.Duration) (a *PendingAction, created bool, err error)
	// FindActionByID returns an action of the original actor: the key that
	// asked for it, or its owner with a user token. Errors: apperr.NotFound.
	FindActionByID(ctx context.Context, c *Caller, id string) (*PendingAction, error)
	// FindPendingAction returns the open action of the caller's key for
	// action and targetID, of the kind of confirmation the caller asks for
	// (c.PersonConfirms), that is still pending and unexpired.
	// Errors: apperr.NotFound.
	FindPendingAction(ctx context.Context, c *Caller, action, targetID string) (*PendingAction, error)
	// ConfirmAction confirms a pending action and performs it under the
	// rules in force now, in one transaction; the action stays confirmed
	// even when the operation fails, and the result says why. An API key
	// never confirms an action that is PersonOnly.
	// Errors: apperr.NotFound, apperr.InvalidState, apperr.PersonConfirmation.
	ConfirmAction(ctx context.Context, c *Caller, id string) (*ConfirmedAction, error)
}
