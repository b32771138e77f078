package property

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// maxPage bounds the page number of a list.
const maxPage = 1_000_000

// defaultCalendarNights is the range of an availability request that
// names no end.
const defaultCalendarNights = 30

func pageParams(q *httpx.Query, defaultOrder string) paging.Page {
	return paging.Page{
		Page:     q.Int("page", 1, 1, maxPage),
		PageSize: q.Int("pageSize", 20, 1, 100),
		Order:    q.Enum("order", defaultOrder, []string{"asc", "desc"}),
	}
}

// uuidParam reads an id query parameter, which must be a UUID.
func uuidParam(q *httpx.Query, name string) string {
	v := q.String(name, 36)
	if v == "" {
		return ""
	}
	u, err := uuid.Parse(v)
	if err != nil || len(v) != 36 {
		q.Errs.Add(name, "must be a UUID")
		return ""
	}
	return u.String()
}

// moneyParam reads a non-negative amount in minor units.
func moneyParam(q *httpx.Query, name string) *int64 {
	v := q.String(name, 20)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > 1e15 {
		q.Errs.Add(name, "must be a whole amount in the currency's minor units, at least 0")
		return nil
	}
	return &n
}

// dateParam reads a YYYY-MM-DD query parameter, def when absent.
func dateParam(q *httpx.Query, name string, def Date) Date {
	v := q.String(name, 10)
	if v == "" {
		return def
	}
	d, err := ParseDate(v)
	if err != nil {
		q.Errs.Add(name, err.Error())
		return def
	}
	return d
}

// currencies are those the properties may price in.
var currencies = func() []string {
	var out []string
	for _, c := range CountryCodes {
		out = append(out, Currencies[c])
	}
	return out
}()

// PropertyQuery is a property search: its parameters as sent, "" when
// absent. Amenities is a comma-separated list; Mine "true" keeps the
// caller's own properties only.
type PropertyQuery struct {
	CheckIn, CheckOut, Guests           string
	City, Country, Type, Currency       string
	MinPrice, MaxPrice, Amenities, Mine string
	Sort, Order, Page, PageSize         string
}

// FindProperties searches the active properties of the caller's inventory
// (and its own, whatever their status, with Mine); with a stay (checkIn,
// checkOut and guests together) only those that can host it, priced.
// Errors: apperr.Unauthorized, apperr.Validation.
func (s *Service) FindProperties(ctx context.Context, c *Caller, in PropertyQuery) (*List[PropertySummary], error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	q := params("checkIn", in.CheckIn, "checkOut", in.CheckOut, "guests", in.Guests, "city", in.City, "country", in.Country,
		"type", in.Type, "currency", in.Currency, "minPrice", in.MinPrice, "maxPrice", in.MaxPrice, "amenities", in.Amenities,
		"mine", in.Mine, "sort", in.Sort, "order", in.Order, "page", in.Page, "pageSize", in.PageSize)
	sort := q.Enum("sort", "rating", []string{"price", "rating", "name"})
	order := "asc"
	if sort == "rating" {
		order = "desc"
	}
	f := PropertyFilter{
		Page:     pageParams(q, order),
		Sort:     sort,
		City:     q.String("city", 100),
		Country:  q.Enum("country", "", CountryCodes),
		Type:     q.Enum("type", "", Types),
		Currency: q.Enum("currency", "", currencies),
		MinPrice: moneyParam(q, "minPrice"),
		MaxPrice: moneyParam(q, "maxPrice"),
		Test:     c.Mode == ModeTest,
		Viewer:   c.Account(),
		Mine:     q.Enum("mine", "false", []string{"true", "false"}) == "true",
	}
	if a := q.String("amenities", 500); a != "" {
		for _, v := range strings.Split(a, ",") {
			v = strings.ToLower(strings.TrimSpace(v))
			switch {
			case v == "":
			case !slices.Contains(Amenities, v):
				q.Errs.Add("amenities", "unknown amenity "+strconv.Quote(v)+"; known: "+strings.Join(Amenities, ", "))
			case !slices.Contains(f.Amenities, v):
				f.Amenities = append(f.Amenities, v)
			}
		}
	}
	if f.MinPrice != nil && f.MaxPrice != nil && *f.MinPrice > *f.MaxPrice {
		q.Errs.Add("maxPrice", "must not be less than minPrice")
	}
	// A stay: checkIn, checkOut and guests together.
	ci, co, guests := q.String("checkIn", 10), q.String("checkOut", 10), q.String("guests", 3)
	if ci != "" || co != "" || guests != "" {
		stay := &StaySearch{}
		for name, v := range map[string]string{"checkIn": ci, "checkOut": co, "guests": guests} {
			if v == "" {
				q.Errs.Add(name, "is required with checkIn, checkOut and guests: a stay needs all three")
			}
		}
		stay.CheckIn = dateParam(q, "checkIn", Date{})
		stay.CheckOut = dateParam(q, "checkOut", Date{})
		stay.Guests = q.Int("guests", 0, 1, MaxGuests)
		if !stay.CheckIn.IsZero() && !stay.CheckOut.IsZero() {
			switch n := stay.CheckIn.DaysUntil(stay.CheckOut); {
			case n < 1:
				q.Errs.Add("checkOut", "must be after checkIn")
			case n > MaxStayNights:
				q.Errs.Add("checkOut", "a stay is at most "+strconv.Itoa(MaxStayNights)+" nights")
			}
			// Asia is ahead of UTC: a day before today in UTC is past in
			// every property's time zone.
			if stay.CheckIn.Before(DateOf(s.Clock.Now().UTC())) {
				q.Errs.Add("checkIn", "is in the past")
			}
		}
		f.Stay = stay
	}
	if err := q.Err(); err != nil {
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

// AvailabilityQuery is an availability request: the property and the
// parameters as sent, "" when absent. From defaults to today (UTC), To to
// defaultCalendarNights later.
type AvailabilityQuery struct {
	PropertyID, From, To, RoomTypeID string
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
	q := params("from", in.From, "to", in.To, "roomTypeId", in.RoomTypeID)
	from := dateParam(q, "from", DateOf(s.Clock.Now().UTC()))
	to := dateParam(q, "to", from.AddDays(defaultCalendarNights))
	roomTypeID := uuidParam(q, "roomTypeId")
	if err := q.Err(); err != nil {
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
