package property

import (
	"context"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// Booking statuses.
const (
	StatusConfirmed = "CONFIRMED"
	StatusCancelled = "CANCELLED"
)

// BookingStatuses lists the booking statuses.
var BookingStatuses = []string{StatusConfirmed, StatusCancelled}

// DefaultQuoteTTL is how long a quote holds its units unless configured.
const DefaultQuoteTTL = 15 * time.Minute

// Account is whose inventory and bookings a request acts on: a developer
// account, in the mode of the key used. Test keys work on the test
// inventory, a copy of each night's calendar with its own counters, so that
// test quotes and bookings never take a unit from the live inventory; a
// key sees only the bookings of its own mode.
type Account struct {
	DeveloperID string
	Test        bool
}

// NightlyPrice is the price of one night of a stay.
type NightlyPrice struct {
	Date  Date  `json:"date"`
	Price Money `json:"price"`
}

// StayRequest is a stay of a room type for a number of guests.
type StayRequest struct {
	PropertyID string
	RoomTypeID string
	CheckIn    Date
	CheckOut   Date
	Guests     int
}

// Quote is a priced stay that holds one unit of the room type for every
// night until ExpiresAt.
type Quote struct {
	ID                    string             `json:"id"`
	PropertyID            string             `json:"propertyId"`
	RoomTypeID            string             `json:"roomTypeId"`
	CheckIn               Date               `json:"checkIn"`
	CheckOut              Date               `json:"checkOut"`
	Nights                int                `json:"nights"`
	Guests                int                `json:"guests"`
	Nightly               []NightlyPrice     `json:"nightly"`
	Total                 Money              `json:"total"`
	CancellationPolicy    CancellationPolicy `json:"cancellationPolicy"`
	FreeCancellationUntil *time.Time         `json:"freeCancellationUntil"`
	ExpiresAt             time.Time          `json:"expiresAt"`
	Test                  bool               `json:"test"`
	CreatedAt             time.Time          `json:"createdAt"`
}

// Guest is the person a booking is for.
type Guest struct {
	FirstName string  `json:"firstName"`
	LastName  string  `json:"lastName"`
	Email     string  `json:"email"`
	Phone     *string `json:"phone"`
	Country   *string `json:"country"`
}

// NewBooking is a booking to make, from a quote (QuoteID) or directly for
// a stay (Stay).
type NewBooking struct {
	QuoteID           string
	Stay              *StayRequest
	Guest             Guest
	SpecialRequests   *string
	ExternalReference *string
}

// Booking is a booked stay.
type Booking struct {
	ID                    string             `json:"id"`
	Status                string             `json:"status"`
	PropertyID            string             `json:"propertyId"`
	RoomTypeID            string             `json:"roomTypeId"`
	CheckIn               Date               `json:"checkIn"`
	CheckOut              Date               `json:"checkOut"`
	Nights                int                `json:"nights"`
	Guests                int                `json:"guests"`
	Guest                 Guest              `json:"guest"`
	Nightly               []NightlyPrice     `json:"nightly"`
	Total                 Money              `json:"total"`
	CancellationPolicy    CancellationPolicy `json:"cancellationPolicy"`
	FreeCancellationUntil *time.Time         `json:"freeCancellationUntil"`
	CancellationFee       *Money             `json:"cancellationFee"`
	SpecialRequests       *string            `json:"specialRequests"`
	ExternalReference     *string            `json:"externalReference"`
	QuoteID               *string            `json:"quoteId"`
	Test                  bool               `json:"test"`
	CreatedAt             time.Time          `json:"createdAt"`
	UpdatedAt             time.Time          `json:"updatedAt"`
	CancelledAt           *time.Time         `json:"cancelledAt"`
}

// CheckCancel tells whether the booking may be cancelled at now, its stay
// starting at checkIn: a CONFIRMED booking whose stay is not over. Errors:
// apperr.InvalidState.
func (b *Booking) CheckCancel(now, checkIn time.Time) error {
	if b.Status != StatusConfirmed {
		return apperr.Errorf(apperr.InvalidState, "The booking is already %s.", b.Status)
	}
	if !now.Before(checkIn.Add(time.Duration(b.Nights) * 24 * time.Hour)) {
		return apperr.Errorf(apperr.InvalidState, "The stay is over; it can no longer be cancelled.")
	}
	return nil
}

// Quote statuses a booking looks at: a quote holds its units until
// booked, or until it expires.
const (
	QuoteHeld   = "held"
	QuoteBooked = "booked"
)

// CheckQuoteBooking tells whether a quote in status, holding its units
// until expiresAt, may be booked at now; bookingID is the booking it
// became once booked. Errors: apperr.InvalidState (booked already, with
// details.bookingId), apperr.Gone (expired, with details.expiresAt).
func CheckQuoteBooking(status, bookingID string, expiresAt, now time.Time) error {
	switch {
	case status == QuoteBooked:
		e := apperr.Errorf(apperr.InvalidState, "This quote was already booked as booking %s.", bookingID)
		e.Details = map[string]any{"bookingId": bookingID}
		return e
	case status != QuoteHeld || !now.Before(expiresAt):
		at := expiresAt.UTC().Format(time.RFC3339)
		e := apperr.Errorf(apperr.Gone, "The quote expired at %s and its hold was released; ask for a new quote.", at)
		e.Details = map[string]any{"expiresAt": at}
		return e
	}
	return nil
}

// BookingFilter selects an account's bookings.
type BookingFilter struct {
	paging.Page
	Sort              string // createdAt, checkIn, updatedAt
	Status            string
	PropertyID        string
	CheckInFrom       Date // inclusive
	CheckInTo         Date // inclusive
	UpdatedSince      *time.Time
	ExternalReference string
}

// BookingStore quotes, books and cancels stays without ever selling a
// unit twice: each night's units are claimed by one conditional update of
// that night's counters, so the last unit goes to exactly one request
// however many race for it.
type BookingStore interface {
	// CreateQuote prices a stay and holds one unit of the room type for
	// every night until now + ttl. Errors: apperr.NotFound (property or
	// room type), apperr.Validation (dates: checkIn in the past in the
	// property's time zone, stay too long), apperr.StayUnavailable with
	// details.reason (max_guests, closed, closed_to_arrival,
	// closed_to_departure, min_stay, sold_out).
	CreateQuote(ctx context.Context, acct Account, s StayRequest, ttl time.Duration) (*Quote, error)
	// CreateBooking books a quote of the account and mode, turning its hold
	// into a sale, or a stay directly. Errors: apperr.NotFound (quote,
	// property or room type), apperr.Gone (the quote has expired),
	// apperr.InvalidState (the quote was already booked),
	// apperr.Validation, apperr.StayUnavailable as for CreateQuote.
	CreateBooking(ctx context.Context, acct Account, nb NewBooking) (*Booking, error)
	// FindBookings returns a page of the account's bookings of its mode,
	// and the total.
	FindBookings(ctx context.Context, acct Account, f BookingFilter) ([]Booking, int, error)
	// FindBooking returns a booking of the account and mode.
	// Errors: apperr.NotFound (also for another account's booking).
	FindBooking(ctx context.Context, acct Account, id string) (*Booking, error)
	// CancelBooking cancels a confirmed booking, charging the fee of its
	// policy, and returns its nights to the inventory. Errors:
	// apperr.NotFound, apperr.InvalidState (already cancelled, or the stay
	// is over).
	CancelBooking(ctx context.Context, acct Account, id string) (*Booking, error)
	// ReleaseExpiredHolds returns the units held by expired quotes to the
	// inventory and tells how many quotes it released. Availability never
	// counts an expired hold even before it is released.
	ReleaseExpiredHolds(ctx context.Context) (int, error)
}
