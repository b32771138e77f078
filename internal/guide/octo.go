package guide

import (
	"context"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// The marketplace as an OCTO supplier (docs/octo.md): resellers sell
// every active package through the OCTO door with API keys holding
// ScopeOctoSell. A package is a product with one option (OctoOptionID) and
// one unit (OctoUnitID, an adult, up to the package's participants); its
// availability is START_TIME, from the expert's schedule. A reserve holds
// the expert's time until the hold expires; a confirm turns the hold into
// a marketplace booking that the expert accepts (PENDING, then
// CONFIRMED).

// ScopeOctoSell lets an API key sell through the OCTO door.
const ScopeOctoSell = "octo:sell"

// The option and unit of every product.
const (
	OctoOptionID = "DEFAULT"
	OctoUnitID   = "adult"
)

// Bounds of the OCTO door.
const (
	// OctoHoldMinutes is a hold's life when the reserve names none;
	// OctoMaxHoldMinutes bounds expirationMinutes.
	OctoHoldMinutes    = 30
	OctoMaxHoldMinutes = 24 * 60
	// OctoCutoff is how long before its start a time stops being sold:
	// the expert needs the time to accept a booking.
	OctoCutoff = 24 * time.Hour
	// OctoTestRetention is how long the bookings of test keys are kept.
	OctoTestRetention = 24 * time.Hour
	// OctoMaxCalendarDays and OctoMaxCheckDays bound the dates of one
	// calendar and of one availability check.
	OctoMaxCalendarDays = 366
	OctoMaxCheckDays    = 31
	// OctoMaxAvailabilityIDs bounds the availabilityIds of one check.
	OctoMaxAvailabilityIDs = 100
)

// DefaultBookingHours is the time a booking takes when it has neither an
// end nor a package to take a duration from.
const DefaultBookingHours = 1

// BookingEnd is when a booking stops taking its expert's time: its end
// when it has one, else its start plus its package's duration (hours),
// else plus DefaultBookingHours.
func BookingEnd(start time.Time, end *time.Time, durationHours *int) time.Time {
	switch {
	case end != nil:
		return *end
	case durationHours != nil && *durationHours > 0:
		return start.Add(time.Duration(*durationHours) * time.Hour)
	}
	return start.Add(DefaultBookingHours * time.Hour)
}

// OCTO booking statuses.
const (
	OctoOnHold    = "ON_HOLD"
	OctoExpired   = "EXPIRED"
	OctoPending   = "PENDING"
	OctoConfirmed = "CONFIRMED"
	OctoCancelled = "CANCELLED"
	OctoRedeemed  = "REDEEMED"
	OctoRejected  = "REJECTED"
)

// OctoBookedStatus is the OCTO status of a booking a reseller confirmed,
// from its marketplace booking: PENDING until the expert accepts,
// CONFIRMED once accepted (and while it runs), REDEEMED once completed,
// REJECTED when the expert declined it before accepting, CANCELLED
// otherwise.
func OctoBookedStatus(status string, accepted bool, cancelledBy string) string {
	switch status {
	case StatusPending:
		return OctoPending
	case StatusConfirmed, StatusInProgress:
		return OctoConfirmed
	case StatusCompleted:
		return OctoRedeemed
	}
	if cancelledBy == "expert" && !accepted {
		return OctoRejected
	}
	return OctoCancelled
}

// OctoProduct is a package as resellers sell it, with its expert's
// schedule, which its starts come from.
type OctoProduct struct {
	Package  PackageDetail
	ExpertID string
	// ExpertUserID is the expert's account: a reseller cannot sell its
	// own time to itself.
	ExpertUserID string
	Timezone     string
	Schedule     WeeklySchedule
	Blocked      []BlockedDate
}

// Interval is a span of time, Start inclusive, End exclusive.
type Interval struct {
	Start, End time.Time
}

// Overlaps reports whether the two intervals share an instant.
func (i Interval) Overlaps(o Interval) bool { return i.Start.Before(o.End) && o.Start.Before(i.End) }

// OctoStart is one start of a product: its availability.
type OctoStart struct {
	ID        string    // the local start, RFC 3339 with its offset
	Start     time.Time // in the expert's time zone
	End       time.Time
	CutoffAt  time.Time // UTC
	Available bool
	Status    string // AVAILABLE or SOLD_OUT
	Vacancies int
	Capacity  int
}

// OctoDay is one local date of a product's calendar.
type OctoDay struct {
	Date      string // YYYY-MM-DD in the expert's time zone
	Available bool
	Status    string // AVAILABLE, SOLD_OUT or CLOSED
	Vacancies int
	Capacity  int
}

// OctoContact is the contact of a booking or a unit item; every field is
// present, null when unknown.
type OctoContact struct {
	FullName     *string  `json:"fullName"`
	FirstName    *string  `json:"firstName"`
	LastName     *string  `json:"lastName"`
	EmailAddress *string  `json:"emailAddress"`
	PhoneNumber  *string  `json:"phoneNumber"`
	Locales      []string `json:"locales"`
	PostalCode   *string  `json:"postalCode"`
	Country      *string  `json:"country"`
	Notes        *string  `json:"notes"`
}

// OctoUnitItem is one person of a booking.
type OctoUnitItem struct {
	UUID              string      `json:"uuid"`
	UnitID            string      `json:"unitId"`
	ResellerReference *string     `json:"resellerReference"`
	Contact           OctoContact `json:"contact"`
}

// OctoCancellation says how a booking was cancelled.
type OctoCancellation struct {
	Refund      string    `json:"refund"` // FULL: nothing is charged through the marketplace
	Reason      *string   `json:"reason"`
	CancelledAt time.Time `json:"utcCancelledAt"`
}

// OctoBooking is a reseller's booking, its status as OCTO names it.
type OctoBooking struct {
	UUID              string
	TestMode          bool
	ResellerReference *string
	SupplierReference string
	Status            string
	ProductID         string
	AvailabilityID    string
	Start, End        time.Time // UTC
	Timezone          string    // the expert's
	UnitItems         []OctoUnitItem
	Contact           OctoContact
	Notes             *string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	ExpiresAt         *time.Time // while ON_HOLD, and when EXPIRED
	ConfirmedAt       *time.Time
	RedeemedAt        *time.Time
	Cancellation      *OctoCancellation
	// BookingID is the marketplace booking a live confirm made.
	BookingID *string
	// Cancellable: the reseller may still cancel it (ON_HOLD, or PENDING
	// or CONFIRMED before its start).
	Cancellable bool
}

// OctoHold is a hold to place, checked.
type OctoHold struct {
	UUID              string
	UserID            string // the reseller
	TestMode          bool
	ResellerReference *string
	// RequestHash identifies the request: a reserve sent again with the
	// same reference, uuid or Idempotency-Key and the same hash is the
	// same hold.
	RequestHash    string
	Product        *OctoProduct
	AvailabilityID string
	Start, End     time.Time
	UnitItems      []OctoUnitItem
	Contact        OctoContact
	Notes          *string
	ExpiresAt      time.Time
}

// OctoChange is a change of a reseller's booking, checked: nil fields stay
// as they are. Only a hold moves (Hold set: a new product, start and
// units) or has its expiry changed.
type OctoChange struct {
	ResellerReference *string
	Contact           *OctoContact
	Notes             *string
	NotesSet          bool
	UnitItems         []OctoUnitItem // nil: unchanged
	ExpiresAt         *time.Time
	Move              *OctoHold
	// Confirm turns a live hold into a booking (the confirm operation).
	Confirm bool
}

// OctoState is what the rules of a change need of a reseller's booking,
// read under its row lock.
type OctoState struct {
	Status    string     // ON_HOLD, CONFIRMED or CANCELLED as stored
	ExpiresAt *time.Time // a hold's
	Start     time.Time
	// BookingStatus is the status of the marketplace booking a live
	// confirm made; "" when there is none.
	BookingStatus string
}

// CheckOctoChange decides whether ch may change a booking in state st at
// now. A confirm of a booking confirmed already changes nothing and
// answers it as it is (same true). A move, a new expiry and a confirm
// need a live hold. Errors: apperr.InvalidState.
func CheckOctoChange(st OctoState, ch OctoChange, now time.Time) (same bool, err error) {
	if ch.Confirm && st.Status == OctoConfirmed {
		return true, nil
	}
	if ch.Move == nil && ch.ExpiresAt == nil && !ch.Confirm {
		return false, nil
	}
	switch {
	case st.Status == OctoOnHold && st.ExpiresAt != nil && st.ExpiresAt.After(now):
		return false, nil
	case st.Status == OctoOnHold:
		return false, apperr.Errorf(apperr.InvalidState, "The hold expired at %s; reserve again.", st.ExpiresAt.UTC().Format(time.RFC3339))
	case st.Status == OctoCancelled:
		return false, apperr.Errorf(apperr.InvalidState, "The booking was cancelled.")
	}
	return false, apperr.Errorf(apperr.InvalidState, "The booking is confirmed already; only a hold can change this way.")
}

// CheckOctoCancel decides whether a booking in state st may be cancelled
// at now: a hold at any time, a confirmed booking before its start while
// its marketplace booking is PENDING or CONFIRMED. Errors:
// apperr.InvalidState.
func CheckOctoCancel(st OctoState, now time.Time) error {
	switch {
	case st.Status == OctoCancelled:
		return apperr.Errorf(apperr.InvalidState, "The booking is cancelled already.")
	case st.Status == OctoConfirmed && !st.Start.After(now):
		return apperr.Errorf(apperr.InvalidState, "The booking started at %s; it can no longer be cancelled.", st.Start.UTC().Format(time.RFC3339))
	case st.BookingStatus != "" && st.BookingStatus != StatusPending && st.BookingStatus != StatusConfirmed:
		return apperr.Errorf(apperr.InvalidState, "The booking is %s; it can no longer be cancelled.", st.BookingStatus)
	}
	return nil
}

// OctoStore keeps the resellers' bookings. Each method acts for the
// reseller userID in one mode (test keys see only test bookings); another
// reseller's booking does not exist for it (apperr.NotFound).
type OctoStore interface {
	// FindOctoProducts returns the active packages of listed experts with
	// their content in locale; only the package id when id is not "".
	FindOctoProducts(ctx context.Context, locale, id string) ([]OctoProduct, error)
	// FindExpertBusy returns the time the expert is taken in [from, to):
	// its confirmed and started bookings, the pending ones resellers
	// confirmed, and live holds.
	FindExpertBusy(ctx context.Context, expertID string, from, to time.Time) ([]Interval, error)
	// Reserve places the hold, or returns the hold an earlier identical
	// reserve placed (same reference or uuid, same request), and records
	// it as the answer of the Idempotency-Key claim in ctx, if any, in
	// the same transaction. It first takes the expert's row lock and
	// refuses a time the expert is taken at (apperr.Conflict).
	// Errors: apperr.Conflict, apperr.Validation (a uuid used with another
	// request), apperr.IdempotencyInProgress (a retry took the claim over).
	Reserve(ctx context.Context, h OctoHold) (*OctoBooking, error)
	// FindOctoBooking returns a booking. Errors: apperr.NotFound.
	FindOctoBooking(ctx context.Context, userID string, test bool, uuid string) (*OctoBooking, error)
	// FindOctoBookings returns the bookings with the reseller's or our
	// reference, newest first (at most 100).
	FindOctoBookings(ctx context.Context, userID string, test bool, resellerRef, supplierRef string) ([]OctoBooking, error)
	// ChangeOcto applies ch to a booking in one transaction: a confirm
	// makes the marketplace booking (live) and records its event; a move
	// takes the row locks of the experts, in id order, and refuses a taken
	// time. Errors: apperr.NotFound, apperr.InvalidState (not in a state
	// that allows it: an expired hold, a booking for a hold change),
	// apperr.Conflict.
	ChangeOcto(ctx context.Context, userID string, test bool, uuid string, ch OctoChange) (*OctoBooking, error)
	// CancelOcto cancels a hold or a booking the reseller confirmed, with
	// the marketplace booking and its event. Errors: apperr.NotFound,
	// apperr.InvalidState.
	CancelOcto(ctx context.Context, userID string, test bool, uuid string, reason *string) (*OctoBooking, error)
	// PurgeOctoTestBookings deletes the test bookings older than
	// OctoTestRetention and returns how many.
	PurgeOctoTestBookings(ctx context.Context) (int, error)
}
