package property

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// defaultCalendarNights is the range of an availability request that
// names no end.
const defaultCalendarNights = 30

// GuestRange is the guests a stay search admits.
var GuestRange = field.Range[int]{Min: 1, Max: MaxGuests}

// AmountRange is the amounts, in a currency's minor units, a price
// filter admits.
var AmountRange = field.Range[int64]{Min: 0, Max: 1e15, Message: "must be a whole amount in the currency's minor units, at least 0"}

// checkUUIDArg returns the canonical form of an optional id argument,
// which must be a UUID; "" when absent.
func checkUUIDArg(errs apperr.FieldErrors, name, v string) string {
	v = field.Text(errs, name, v, 36)
	if v == "" {
		return ""
	}
	u, err := uuid.Parse(v)
	if err != nil || len(v) != 36 {
		errs.Add(name, "must be a UUID")
		return ""
	}
	return u.String()
}

// checkAmountArg returns v when in AmountRange, nil when absent or not.
func checkAmountArg(errs apperr.FieldErrors, name string, v *int64) *int64 {
	if v == nil || AmountRange.Check(errs, name, v, -1) < 0 {
		return nil
	}
	return v
}

// currencies are those the properties may price in.
var currencies = func() []string {
	var out []string
	for _, c := range CountryCodes {
		out = append(out, Currencies[c])
	}
	return out
}()

// PropertyQuery is a property search. Text is taken as sent, "" when
// absent; numbers and dates are typed, nil when absent (a door parses
// its wire format into them). Amenities is a comma-separated list; Mine
// keeps the caller's own properties only.
type PropertyQuery struct {
	CheckIn, CheckOut             *Date
	Guests                        *int
	City, Country, Type, Currency string
	MinPrice, MaxPrice            *int64
	Amenities                     string
	Mine                          bool
	Sort, Order                   string
	Page, PageSize                *int
}

// FindProperties searches the active properties of the caller's inventory
// (and its own, whatever their status, with Mine); with a stay (checkIn,
// checkOut and guests together) only those that can host it, priced.
// Errors: apperr.Unauthorized, apperr.Validation.
func (s *Service) FindProperties(ctx context.Context, c *Caller, in PropertyQuery) (*List[PropertySummary], error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	sort := field.Enum(errs, "sort", in.Sort, "rating", []string{"price", "rating", "name"})
	order := "asc"
	if sort == "rating" {
		order = "desc"
	}
	f := PropertyFilter{
		Page:     paging.Select(errs, in.Page, in.PageSize, in.Order, order),
		Sort:     sort,
		City:     field.Text(errs, "city", in.City, 100),
		Country:  field.Enum(errs, "country", in.Country, "", CountryCodes),
		Type:     field.Enum(errs, "type", in.Type, "", Types),
		Currency: field.Enum(errs, "currency", in.Currency, "", currencies),
		MinPrice: checkAmountArg(errs, "minPrice", in.MinPrice),
		MaxPrice: checkAmountArg(errs, "maxPrice", in.MaxPrice),
		Test:     c.Mode == ModeTest,
		Viewer:   c.Account(),
		Mine:     in.Mine,
	}
	if a := field.Text(errs, "amenities", in.Amenities, 500); a != "" {
		for _, v := range strings.Split(a, ",") {
			v = strings.ToLower(strings.TrimSpace(v))
			switch {
			case v == "":
			case !slices.Contains(Amenities, v):
				errs.Add("amenities", "unknown amenity "+strconv.Quote(v)+"; known: "+strings.Join(Amenities, ", "))
			case !slices.Contains(f.Amenities, v):
				f.Amenities = append(f.Amenities, v)
			}
		}
	}
	if f.MinPrice != nil && f.MaxPrice != nil && *f.MinPrice > *f.MaxPrice {
		errs.Add("maxPrice", "must not be less than minPrice")
	}
	// A stay: checkIn, checkOut and guests together.
	if in.CheckIn != nil || in.CheckOut != nil || in.Guests != nil {
		stay := &StaySearch{}
		for name, absent := range map[string]bool{"checkIn": in.CheckIn == nil, "checkOut": in.CheckOut == nil, "guests": in.Guests == nil} {
			if absent {
				errs.Add(name, "is required with checkIn, checkOut and guests: a stay needs all three")
			}
		}
		if in.CheckIn != nil {
			stay.CheckIn = *in.CheckIn
		}
		if in.CheckOut != nil {
			stay.CheckOut = *in.CheckOut
		}
		stay.Guests = GuestRange.Check(errs, "guests", in.Guests, 0)
		if !stay.CheckIn.IsZero() && !stay.CheckOut.IsZero() {
			switch n := stay.CheckIn.DaysUntil(stay.CheckOut); {
			case n < 1:
				errs.Add("checkOut", "must be after checkIn")
			case n > MaxStayNights:
				errs.Add("checkOut", "a stay is at most "+strconv.Itoa(MaxStayNights)+" nights")
			}
			// Asia is ahead of UTC: a day before today in UTC is past in
			// every property's time zone.
			if stay.CheckIn.Before(DateOf(s.Clock.Now().UTC())) {
				errs.Add("checkIn", "is in the past")
			}
		}
		f.Stay = stay
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	props, total, err := s.Catalog.FindProperties(ctx, f)
	if err != nil {
		return nil, err
	}
	return &List[PropertySummary]{props, paging.NewMeta(f.Page, total)}, nil
}

// FindProperty returns a property the caller may see. Errors:
// apperr.Unauthorized, apperr.NotFound.
func (s *Service) FindProperty(ctx context.Context, c *Caller, id string) (*Property, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "property")
	if err != nil {
		return nil, err
	}
	return s.Catalog.FindProperty(ctx, c.Account(), id)
}

// AvailabilityQuery is an availability request: the property, the
// nights from From (default today, UTC) up to To (default
// defaultCalendarNights later), nil when absent, and a room type as sent.
type AvailabilityQuery struct {
	PropertyID string
	From, To   *Date
	RoomTypeID string
	// Owned asks for one of the caller's own properties only, whatever
	// its status (the portal's Properties page).
	Owned bool
}

// FindAvailability returns the calendar of a property the caller may see
// over the nights from From up to, not including, To. Errors:
// apperr.Unauthorized, apperr.NotFound, apperr.Validation.
func (s *Service) FindAvailability(ctx context.Context, c *Caller, in AvailabilityQuery) (*Availability, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(in.PropertyID, "property")
	if err != nil {
		return nil, err
	}
	if in.Owned {
		if _, err := s.Supply.FindOwnedProperty(ctx, c.Account(), id); err != nil {
			return nil, err
		}
	}
	errs := apperr.FieldErrors{}
	from := DateOf(s.Clock.Now().UTC())
	if in.From != nil {
		from = *in.From
	}
	to := from.AddDays(defaultCalendarNights)
	if in.To != nil {
		to = *in.To
	}
	roomTypeID := checkUUIDArg(errs, "roomTypeId", in.RoomTypeID)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	switch n := from.DaysUntil(to); {
	case n < 1:
		return nil, apperr.Field("to", "must be after from: the range is the nights from from up to, not including, to")
	case n > MaxCalendarNights:
		return nil, apperr.Field("to", "the range is at most "+strconv.Itoa(MaxCalendarNights)+" nights")
	}
	return s.Catalog.FindAvailability(ctx, c.Account(), id, roomTypeID, from, to)
}
