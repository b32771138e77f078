package property

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/media"
)

// The supply side: hosts manage their properties, room types and
// calendars (with keys holding properties:write and calendar:write, or
// signed in to the portal). A property belongs to the account that
// created it, in the mode of its inventory: another's is NOT_FOUND.

// PropertyFields is the body of a property create or update: every field
// may be absent (left as it is), and on update null clears an optional
// one (licenseNumber) and is refused for the others.
type PropertyFields struct {
	Name               field.Optional[string]   `json:"name"`
	Type               field.Optional[string]   `json:"type"`
	Description        field.Optional[string]   `json:"description"`
	Address            field.Optional[string]   `json:"address"`
	City               field.Optional[string]   `json:"city"`
	CountryCode        field.Optional[string]   `json:"countryCode"`
	Latitude           field.Optional[float64]  `json:"latitude"`
	Longitude          field.Optional[float64]  `json:"longitude"`
	Timezone           field.Optional[string]   `json:"timezone"`
	Currency           field.Optional[string]   `json:"currency"`
	CheckInTime        field.Optional[string]   `json:"checkInTime"`
	CheckOutTime       field.Optional[string]   `json:"checkOutTime"`
	Amenities          field.Optional[[]string] `json:"amenities"`
	Images             field.Optional[[]string] `json:"images"`
	LicenseNumber      field.Optional[string]   `json:"licenseNumber"`
	CancellationPolicy field.Optional[string]   `json:"cancellationPolicy"`
	Status             field.Optional[string]   `json:"status"`
}

var validClock = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// apply checks the sent fields and sets them on c. On create every
// required field must be sent.
func (s *Service) applyPropertyFields(in *PropertyFields, c *PropertyContent, create bool, errs apperr.FieldErrors) {
	text := func(name string, o field.Optional[string], dst *string, min, max int) {
		if o.Required(errs, name, create) {
			*dst = field.CheckString(errs, name, o.Value, true, min, max)
		}
	}
	enum := func(name string, o field.Optional[string], dst *string, allowed []string) {
		if o.Required(errs, name, create) {
			if !slices.Contains(allowed, *o.Value) {
				errs.Add(name, "must be one of "+strings.Join(allowed, ", "))
				return
			}
			*dst = *o.Value
		}
	}
	text("name", in.Name, &c.Name, 1, 200)
	enum("type", in.Type, &c.Type, Types)
	if in.Description.Set || create {
		if in.Description.Value == nil {
			c.Description = ""
		} else {
			c.Description = field.CheckString(errs, "description", in.Description.Value, false, 0, 5000)
		}
	}
	text("address", in.Address, &c.Address, 1, 300)
	text("city", in.City, &c.City, 1, 100)
	enum("countryCode", in.CountryCode, &c.CountryCode, CountryCodes)
	if in.Latitude.Required(errs, "latitude", create) {
		if v := *in.Latitude.Value; v < -90 || v > 90 {
			errs.Add("latitude", "must be from -90 to 90")
		} else {
			c.Latitude = v
		}
	}
	if in.Longitude.Required(errs, "longitude", create) {
		if v := *in.Longitude.Value; v < -180 || v > 180 {
			errs.Add("longitude", "must be from -180 to 180")
		} else {
			c.Longitude = v
		}
	}
	if in.Timezone.Required(errs, "timezone", create) {
		tz := *in.Timezone.Value
		if _, err := clock.LoadLocation(tz); err != nil || len(tz) > 64 || !strings.Contains(tz, "/") {
			errs.Add("timezone", "must be an IANA time zone such as Asia/Tokyo")
		} else {
			c.Timezone = tz
		}
	}
	enum("currency", in.Currency, &c.Currency, currencies)
	for _, f := range []struct {
		name string
		o    field.Optional[string]
		dst  *string
	}{{"checkInTime", in.CheckInTime, &c.CheckInTime}, {"checkOutTime", in.CheckOutTime, &c.CheckOutTime}} {
		if f.o.Required(errs, f.name, create) {
			if !validClock.MatchString(*f.o.Value) {
				errs.Add(f.name, "must be a local time HH:MM such as 15:00")
			} else {
				*f.dst = *f.o.Value
			}
		}
	}
	if in.Amenities.Set || create {
		c.Amenities = []string{}
		if in.Amenities.Value != nil {
			for _, a := range *in.Amenities.Value {
				switch {
				case !slices.Contains(Amenities, a):
					errs.Add("amenities", "unknown amenity "+strconv.Quote(a)+"; known: "+strings.Join(Amenities, ", "))
				case !slices.Contains(c.Amenities, a):
					c.Amenities = append(c.Amenities, a)
				}
			}
		}
	}
	if in.Images.Set || create {
		c.Images = media.CheckRefs(errs, "images", s.PublicURL, in.Images.Value, MaxImages)
	}
	if in.LicenseNumber.Set {
		if in.LicenseNumber.Value == nil {
			c.LicenseNumber = nil
		} else {
			v := field.CheckString(errs, "licenseNumber", in.LicenseNumber.Value, true, 1, 100)
			c.LicenseNumber = &v
		}
	}
	enum("cancellationPolicy", in.CancellationPolicy, &c.CancellationPolicy, PolicyCodes)
	if in.Status.Set {
		allowed := PropertyStatuses
		if create {
			allowed = []string{PropertyDraft} // active needs a room type first
		}
		enum("status", in.Status, &c.Status, allowed)
	}
}

// CreateProperty creates a draft property of the caller's account.
// Errors: apperr.Unauthorized, apperr.Validation.
func (s *Service) CreateProperty(ctx context.Context, c *Caller, in PropertyFields) (*Property, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	var content PropertyContent
	s.applyPropertyFields(&in, &content, true, errs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Supply.CreateProperty(ctx, c.Account(), content)
}

// UpdateProperty changes the fields sent of a property of the caller's
// account. Errors: apperr.Unauthorized, apperr.NotFound,
// apperr.Validation, and the store's refusals (such as activating a
// property without a room type).
func (s *Service) UpdateProperty(ctx context.Context, c *Caller, id string, in PropertyFields) (*Property, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "property")
	if err != nil {
		return nil, err
	}
	// Fields are checked before the store is asked, and set on the
	// current content in its transaction.
	errs := apperr.FieldErrors{}
	s.applyPropertyFields(&in, &PropertyContent{}, false, errs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Supply.UpdateProperty(ctx, c.Account(), id, func(content *PropertyContent) error {
		errs := apperr.FieldErrors{}
		s.applyPropertyFields(&in, content, false, errs)
		return errs.Err()
	})
}

// RoomTypeFields is the body of a room type create or update.
type RoomTypeFields struct {
	Name        field.Optional[string] `json:"name"`
	Description field.Optional[string] `json:"description"`
	MaxGuests   field.Optional[int]    `json:"maxGuests"`
	Beds        field.Optional[[]struct {
		Type  *string `json:"type"`
		Count *int    `json:"count"`
	}] `json:"beds"`
	TotalUnits field.Optional[int] `json:"totalUnits"`
	// BasePrice is a Money in the property's currency; the currency may be
	// left out.
	BasePrice field.Optional[MoneyFields] `json:"basePrice"`
}

func applyRoomTypeFields(in *RoomTypeFields, c *RoomTypeContent, currency string, create bool, errs apperr.FieldErrors) {
	if in.Name.Required(errs, "name", create) {
		c.Name = field.CheckString(errs, "name", in.Name.Value, true, 1, 200)
	}
	if in.Description.Set || create {
		c.Description = ""
		if in.Description.Value != nil {
			c.Description = field.CheckString(errs, "description", in.Description.Value, false, 0, 5000)
		}
	}
	if in.MaxGuests.Required(errs, "maxGuests", create) {
		if v := *in.MaxGuests.Value; v < 1 || v > MaxGuests {
			errs.Add("maxGuests", fmt.Sprintf("must be from 1 to %d", MaxGuests))
		} else {
			c.MaxGuests = v
		}
	}
	if in.Beds.Set || create {
		c.Beds = []Bed{}
		if in.Beds.Value != nil {
			if len(*in.Beds.Value) > 10 {
				errs.Add("beds", "at most 10 kinds of bed")
			}
			for i, b := range *in.Beds.Value {
				at := fmt.Sprintf("beds[%d].", i)
				switch {
				case b.Type == nil || !slices.Contains(BedTypes, *b.Type):
					errs.Add(at+"type", "must be one of "+strings.Join(BedTypes, ", "))
				case b.Count == nil || *b.Count < 1 || *b.Count > 20:
					errs.Add(at+"count", "must be from 1 to 20")
				default:
					c.Beds = append(c.Beds, Bed{Type: *b.Type, Count: *b.Count})
				}
			}
		}
	}
	if in.TotalUnits.Required(errs, "totalUnits", create) {
		if v := *in.TotalUnits.Value; v < 0 || v > MaxUnits {
			errs.Add("totalUnits", fmt.Sprintf("must be from 0 to %d", MaxUnits))
		} else {
			c.TotalUnits = v
		}
	}
	if in.BasePrice.Required(errs, "basePrice", create) {
		if p, ok := checkMoney(errs, "basePrice", in.BasePrice.Value.Amount, in.BasePrice.Value.Currency, currency); ok {
			c.BasePrice = p
		}
	}
}

// maxPrice bounds a nightly price in minor units.
const maxPrice = 1_000_000_000_000

// checkMoney validates a Money in the property's currency.
func checkMoney(errs apperr.FieldErrors, field string, amount *int64, cur *string, currency string) (int64, bool) {
	if cur != nil && *cur != currency {
		errs.Add(field+".currency", "must be the property's currency, "+currency)
		return 0, false
	}
	if amount == nil || *amount < 0 || *amount > maxPrice {
		errs.Add(field+".amount", "must be a whole amount in the currency's minor units, at least 0")
		return 0, false
	}
	return *amount, true
}

// ownedProperty returns the caller's own property (another account's is
// NOT_FOUND), for its currency. Errors: apperr.Unauthorized,
// apperr.NotFound.
func (s *Service) ownedProperty(ctx context.Context, c *Caller, id string) (string, *Property, error) {
	if err := checkCaller(c); err != nil {
		return "", nil, err
	}
	id, err := checkID(id, "property")
	if err != nil {
		return "", nil, err
	}
	p, err := s.Supply.FindOwnedProperty(ctx, c.Account(), id)
	return id, p, err
}

// RoomTypeID returns the canonical id of room type rt of property id,
// which must be a UUID: anything else names none. Errors: apperr.NotFound.
func RoomTypeID(id, rt string) (string, error) {
	u, err := uuid.Parse(rt)
	if err != nil || len(rt) != 36 {
		return "", apperr.Errorf(apperr.NotFound, "Property %s has no room type with id %q.", id, rt)
	}
	return u.String(), nil
}

// CreateRoomType adds a room type to a property of the caller's account,
// priced in the property's currency. Errors: apperr.Unauthorized,
// apperr.NotFound, apperr.Validation.
func (s *Service) CreateRoomType(ctx context.Context, c *Caller, propertyID string, in RoomTypeFields) (*RoomType, error) {
	id, p, err := s.ownedProperty(ctx, c, propertyID)
	if err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	var content RoomTypeContent
	applyRoomTypeFields(&in, &content, p.Currency, true, errs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Supply.CreateRoomType(ctx, c.Account(), id, content)
}

// UpdateRoomType changes the fields sent of a room type of a property of
// the caller's account. Errors: apperr.Unauthorized, apperr.NotFound,
// apperr.Validation, and the store's refusals (such as fewer units than
// are sold).
func (s *Service) UpdateRoomType(ctx context.Context, c *Caller, propertyID, roomType string, in RoomTypeFields) (*RoomType, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(propertyID, "property")
	if err != nil {
		return nil, err
	}
	rtID, err := RoomTypeID(id, roomType)
	if err != nil {
		return nil, err
	}
	_, p, err := s.ownedProperty(ctx, c, id)
	if err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	applyRoomTypeFields(&in, &RoomTypeContent{}, p.Currency, false, errs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Supply.UpdateRoomType(ctx, c.Account(), id, rtID, func(content *RoomTypeContent) error {
		errs := apperr.FieldErrors{}
		applyRoomTypeFields(&in, content, p.Currency, false, errs)
		return errs.Err()
	})
}

// DeleteRoomType removes a room type of a property of the caller's
// account. Errors: apperr.Unauthorized, apperr.NotFound, and the store's
// refusals (such as a room type with bookings).
func (s *Service) DeleteRoomType(ctx context.Context, c *Caller, propertyID, roomType string) error {
	if err := checkCaller(c); err != nil {
		return err
	}
	id, err := checkID(propertyID, "property")
	if err != nil {
		return err
	}
	rtID, err := RoomTypeID(id, roomType)
	if err != nil {
		return err
	}
	if _, _, err := s.ownedProperty(ctx, c, id); err != nil {
		return err
	}
	return s.Supply.DeleteRoomType(ctx, c.Account(), id, rtID)
}

var weekdays = map[string]time.Weekday{"mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday, "thu": time.Thursday,
	"fri": time.Friday, "sat": time.Saturday, "sun": time.Sunday}

// CalendarFields is the body of a calendar update.
type CalendarFields struct {
	Updates *[]CalendarUpdateFields `json:"updates"`
}

// CalendarUpdateFields are one calendar update as sent.
type CalendarUpdateFields struct {
	RoomTypeID        *string      `json:"roomTypeId"`
	From              *string      `json:"from"`
	To                *string      `json:"to"`
	DaysOfWeek        *[]string    `json:"daysOfWeek"`
	Units             *int         `json:"units"`
	Price             *MoneyFields `json:"price"`
	MinStay           *int         `json:"minStay"`
	Closed            *bool        `json:"closed"`
	ClosedToArrival   *bool        `json:"closedToArrival"`
	ClosedToDeparture *bool        `json:"closedToDeparture"`
}

// MoneyFields are an amount as sent, in minor units of the property's
// currency; the currency may be left out.
type MoneyFields struct {
	Amount   *int64  `json:"amount"`
	Currency *string `json:"currency"`
}

// UpdateCalendar applies calendar updates, in order, to room types of a
// property of the caller's account. Errors: apperr.Unauthorized,
// apperr.NotFound, apperr.Validation, and the store's refusal of units
// below those sold or held.
func (s *Service) UpdateCalendar(ctx context.Context, c *Caller, propertyID string, in CalendarFields) (*CalendarResult, error) {
	id, p, err := s.ownedProperty(ctx, c, propertyID)
	if err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	switch {
	case in.Updates == nil:
		errs.Add("updates", "is required")
	case len(*in.Updates) == 0:
		errs.Add("updates", "must hold at least one update")
	case len(*in.Updates) > MaxCalendarUpdates:
		errs.Add("updates", fmt.Sprintf("at most %d updates per request", MaxCalendarUpdates))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	updates := make([]CalendarUpdate, len(*in.Updates))
	for i, u := range *in.Updates {
		at := fmt.Sprintf("updates[%d].", i)
		cu := &updates[i]
		cu.RoomTypeID = checkUUID(errs, at+"roomTypeId", u.RoomTypeID)
		cu.From = checkDate(errs, at+"from", u.From)
		cu.To = checkDate(errs, at+"to", u.To)
		if !cu.From.IsZero() && !cu.To.IsZero() && !cu.From.Before(cu.To) {
			errs.Add(at+"to", "must be after from: the range is the nights from from up to, not including, to")
		}
		if u.DaysOfWeek != nil {
			for _, d := range *u.DaysOfWeek {
				wd, ok := weekdays[d]
				if !ok {
					errs.Add(at+"daysOfWeek", "items must be mon, tue, wed, thu, fri, sat or sun")
					break
				}
				if !slices.Contains(cu.DaysOfWeek, wd) {
					cu.DaysOfWeek = append(cu.DaysOfWeek, wd)
				}
			}
			if len(*u.DaysOfWeek) == 0 {
				errs.Add(at+"daysOfWeek", "must name at least one day, or be left out for every day")
			}
		}
		if u.Units != nil {
			if *u.Units < 0 || *u.Units > MaxUnits {
				errs.Add(at+"units", fmt.Sprintf("must be from 0 to %d", MaxUnits))
			}
			cu.Units = u.Units
		}
		if u.Price != nil {
			if v, ok := checkMoney(errs, at+"price", u.Price.Amount, u.Price.Currency, p.Currency); ok {
				cu.Price = &v
			}
		}
		if u.MinStay != nil {
			if *u.MinStay < 1 || *u.MinStay > MaxStayNights {
				errs.Add(at+"minStay", fmt.Sprintf("must be from 1 to %d", MaxStayNights))
			}
			cu.MinStay = u.MinStay
		}
		cu.Closed, cu.ClosedToArrival, cu.ClosedToDeparture = u.Closed, u.ClosedToArrival, u.ClosedToDeparture
		if u.Units == nil && u.Price == nil && u.MinStay == nil && u.Closed == nil && u.ClosedToArrival == nil && u.ClosedToDeparture == nil {
			errs.Add(at[:len(at)-1], "sets nothing: give units, price, minStay, closed, closedToArrival or closedToDeparture")
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Supply.UpdateCalendar(ctx, c.Account(), id, updates)
}
