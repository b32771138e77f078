package property

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// Property statuses. A property is sold (listed, quoted, booked) only when
// active; drafts and inactive properties are seen by their owner only.
const (
	PropertyDraft    = "draft"
	PropertyActive   = "active"
	PropertyInactive = "inactive"
)

// PropertyStatuses lists the property statuses.
var PropertyStatuses = []string{PropertyDraft, PropertyActive, PropertyInactive}

// BedTypes are the kinds of bed a room type lists.
var BedTypes = []string{"single", "double", "queen", "king", "bunk", "futon", "sofa_bed"}

// Bounds of the supply API.
const (
	// MaxCalendarUpdates bounds the updates of one calendar request.
	MaxCalendarUpdates = 500
	// MaxCalendarAhead is how many days ahead of today (in the property's
	// time zone) the calendar can be set.
	MaxCalendarAhead = 730
	// MaxRoomTypes bounds the room types of a property.
	MaxRoomTypes = 50
	// MaxUnits bounds the units of a room type.
	MaxUnits = 10_000
	// MaxImages bounds the images of a property.
	MaxImages = 20
)

// PropertyContent is what a host says about a property: every field of
// its detail except the id, the ratings and the room types.
type PropertyContent struct {
	Name               string
	Type               string
	Description        string
	Address            string
	City               string
	CountryCode        string
	Latitude           float64
	Longitude          float64
	Timezone           string
	Currency           string
	CheckInTime        string
	CheckOutTime       string
	Amenities          []string
	Images             []string // "/media/…" paths on the API
	LicenseNumber      *string
	CancellationPolicy string // a policy code
	Status             string
}

// Content returns the content of p.
func (p *Property) Content() PropertyContent {
	return PropertyContent{Name: p.Name, Type: p.Type, Description: p.Description, Address: p.Address, City: p.City,
		CountryCode: p.CountryCode, Latitude: p.Latitude, Longitude: p.Longitude, Timezone: p.Timezone, Currency: p.Currency,
		CheckInTime: p.CheckInTime, CheckOutTime: p.CheckOutTime, Amenities: append([]string{}, p.Amenities...),
		Images: append([]string{}, p.Images...), LicenseNumber: p.LicenseNumber, CancellationPolicy: p.CancellationPolicy.Code, Status: p.Status}
}

// CheckChange tells whether p may take the content c, given the room
// types it has: it becomes active only with one, and keeps its currency
// once it has one. Errors: apperr.Validation.
func (p *Property) CheckChange(c PropertyContent) error {
	if c.Status == PropertyActive && len(p.RoomTypes) == 0 {
		return apperr.Field("status", "a property becomes active only with at least one room type: add one first")
	}
	if c.Currency != p.Currency && len(p.RoomTypes) > 0 {
		return apperr.Field("currency", "cannot change once the property has room types: their prices and calendar are in "+p.Currency)
	}
	return nil
}

// CheckNewRoomType tells whether a property with n room types may have
// one more. Errors: apperr.Validation.
func CheckNewRoomType(n int) error {
	if n >= MaxRoomTypes {
		return apperr.Field("body", fmt.Sprintf("a property has at most %d room types", MaxRoomTypes))
	}
	return nil
}

// CheckRoomTypeDeletion tells whether a room type with upcoming confirmed
// bookings (not checked out yet) may be deleted from a property in status
// with others of its room types left: none may be to come, and an active
// property keeps one. Errors: apperr.Conflict (with
// details.upcomingBookings when bookings are to come).
func CheckRoomTypeDeletion(upcoming, others int, status string) error {
	if upcoming > 0 {
		e := apperr.Errorf(apperr.Conflict, "The room type has %d booking(s) still to come; it can be deleted once they are over or cancelled. Close its nights to stop selling it.", upcoming)
		e.Details = map[string]any{"upcomingBookings": upcoming}
		return e
	}
	if others == 0 && status == PropertyActive {
		return apperr.Errorf(apperr.Conflict, "An active property needs a room type: make the property inactive before deleting its last room type.")
	}
	return nil
}

// RoomTypeContent is what a host says about a room type.
type RoomTypeContent struct {
	Name        string
	Description string
	MaxGuests   int
	Beds        []Bed
	TotalUnits  int
	BasePrice   int64 // minor units of the property's currency
}

// Content returns the content of rt.
func (rt *RoomType) Content() RoomTypeContent {
	return RoomTypeContent{Name: rt.Name, Description: rt.Description, MaxGuests: rt.MaxGuests, Beds: append([]Bed{}, rt.Beds...),
		TotalUnits: rt.TotalUnits, BasePrice: rt.BasePrice.Amount}
}

// CalendarUpdate sets fields of the nights of a room type from From up to,
// not including, To, on the weekdays of DaysOfWeek (every day when
// empty). Nil fields are left as they are; a night set for the first time
// takes the room type's total units and base price for those not given.
type CalendarUpdate struct {
	RoomTypeID        string
	From, To          Date
	DaysOfWeek        []time.Weekday
	Units             *int
	Price             *int64 // minor units of the property's currency
	MinStay           *int
	Closed            *bool
	ClosedToArrival   *bool
	ClosedToDeparture *bool
}

// Applies reports whether the update covers night d.
func (u *CalendarUpdate) Applies(d Date) bool {
	if d.Before(u.From) || !d.Before(u.To) {
		return false
	}
	if len(u.DaysOfWeek) == 0 {
		return true
	}
	for _, w := range u.DaysOfWeek {
		if d.Weekday() == w {
			return true
		}
	}
	return false
}

// CheckCalendarDates tells whether the updates name room types of the
// property (rts) and nights from today, in the property's time zone, up to
// MaxCalendarAhead days ahead. Errors: apperr.Validation, per update.
func CheckCalendarDates(updates []CalendarUpdate, rts []RoomType, today Date) error {
	last := today.AddDays(MaxCalendarAhead)
	errs := apperr.FieldErrors{}
	for i, u := range updates {
		at := fmt.Sprintf("updates[%d].", i)
		if !slices.ContainsFunc(rts, func(rt RoomType) bool { return rt.ID == u.RoomTypeID }) {
			errs.Add(at+"roomTypeId", "the property has no room type with this id")
		}
		if u.From.Before(today) {
			errs.Add(at+"from", "is in the past in the property's time zone, where today is "+today.String())
		}
		if u.To.AddDays(-1).After(last) {
			errs.Add(at+"to", fmt.Sprintf("nights can be set up to %d days ahead: the last is %s, so to is at most %s",
				MaxCalendarAhead, last, last.AddDays(1)))
		}
	}
	return errs.Err()
}

// MaxConflictDetails bounds the nights an INVENTORY_CONFLICT lists.
const MaxConflictDetails = 100

// CheckUnits tells whether nights may offer the units a calendar update
// gives them: never fewer than are booked and held. Each of nights is a
// night the update gives units, with its counters, as an InventoryConflict
// would name it. Errors: apperr.InventoryConflict, listing the nights
// that would (the first MaxConflictDetails) in details.conflicts.
func CheckUnits(nights []InventoryConflict) error {
	var conflicts []InventoryConflict
	for _, n := range nights {
		if n.Units < n.Booked+n.Held {
			conflicts = append(conflicts, n)
		}
	}
	if len(conflicts) == 0 {
		return nil
	}
	e := apperr.Errorf(apperr.InventoryConflict,
		"%d night(s) would offer fewer units than are booked and held; nothing was changed.", len(conflicts))
	e.Details = map[string]any{"conflicts": conflicts[:min(len(conflicts), MaxConflictDetails)]}
	return e
}

// InventoryConflict is a night whose units a calendar update would put
// below what is booked and held.
type InventoryConflict struct {
	RoomTypeID string `json:"roomTypeId"`
	Date       Date   `json:"date"`
	Units      int    `json:"units"`
	Booked     int    `json:"booked"`
	Held       int    `json:"held"`
}

// CalendarResult is the answer of a calendar update.
type CalendarResult struct {
	UpdatedNights int `json:"updatedNights"`
}

// SupplyStore lets hosts manage their properties, room types and
// calendars. A property belongs to the account that created it and to the
// inventory of the key's mode: another account, or a key of the other
// mode, gets apperr.NotFound.
type SupplyStore interface {
	// FindOwnedProperty returns a property of the account in its mode,
	// whatever its status. Errors: apperr.NotFound.
	FindOwnedProperty(ctx context.Context, acct Account, id string) (*Property, error)
	// CreateProperty creates a draft property of the account.
	CreateProperty(ctx context.Context, acct Account, c PropertyContent) (*Property, error)
	// UpdateProperty changes a property of the account: apply receives its
	// current content and changes it (returning apperr.Validation when the
	// result is not acceptable). Errors: apperr.NotFound, apperr.Validation
	// (status active without a room type).
	UpdateProperty(ctx context.Context, acct Account, id string, apply func(*PropertyContent) error) (*Property, error)
	// CreateRoomType adds a room type to a property of the account.
	// Errors: apperr.NotFound, apperr.Validation (too many room types).
	CreateRoomType(ctx context.Context, acct Account, propertyID string, c RoomTypeContent) (*RoomType, error)
	// UpdateRoomType changes a room type as apply says. Errors:
	// apperr.NotFound, apperr.Validation.
	UpdateRoomType(ctx context.Context, acct Account, propertyID, id string, apply func(*RoomTypeContent) error) (*RoomType, error)
	// DeleteRoomType removes a room type and its calendar. Errors:
	// apperr.NotFound, apperr.Conflict (it has bookings still to come, or
	// it is the last room type of an active property).
	DeleteRoomType(ctx context.Context, acct Account, propertyID, id string) error
	// UpdateCalendar applies the updates in order (a later one wins on the
	// same night and field), all in one transaction or none. Errors:
	// apperr.NotFound (property), apperr.Validation (a room type not of
	// the property, dates past or too far ahead), apperr.InventoryConflict with
	// details.conflicts ([]InventoryConflict) when units would fall below
	// what is booked and held.
	UpdateCalendar(ctx context.Context, acct Account, propertyID string, updates []CalendarUpdate) (*CalendarResult, error)
}
