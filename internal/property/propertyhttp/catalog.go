package propertyhttp

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/property"
)

// maxPage bounds the page number of a list.
const maxPage = 1_000_000

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

var currencies = func() []string {
	var out []string
	for _, c := range property.CountryCodes {
		out = append(out, property.Currencies[c])
	}
	return out
}()

func (s *Server) handlePropertyList(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	sort := q.Enum("sort", "rating", []string{"price", "rating", "name"})
	order := "asc"
	if sort == "rating" {
		order = "desc"
	}
	f := property.PropertyFilter{
		Page:     pageParams(q, order),
		Sort:     sort,
		City:     q.String("city", 100),
		Country:  q.Enum("country", "", property.CountryCodes),
		Type:     q.Enum("type", "", property.Types),
		Currency: q.Enum("currency", "", currencies),
		MinPrice: moneyParam(q, "minPrice"),
		MaxPrice: moneyParam(q, "maxPrice"),
		Test:     callerKey(r.Context()).Test(),
		Viewer:   account(r.Context()),
		Mine:     q.Enum("mine", "false", []string{"true", "false"}) == "true",
	}
	if a := q.String("amenities", 500); a != "" {
		for _, v := range strings.Split(a, ",") {
			v = strings.ToLower(strings.TrimSpace(v))
			switch {
			case v == "":
			case !slices.Contains(property.Amenities, v):
				q.Errs.Add("amenities", "unknown amenity "+strconv.Quote(v)+"; known: "+strings.Join(property.Amenities, ", "))
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
		stay := &property.StaySearch{}
		for name, v := range map[string]string{"checkIn": ci, "checkOut": co, "guests": guests} {
			if v == "" {
				q.Errs.Add(name, "is required with checkIn, checkOut and guests: a stay needs all three")
			}
		}
		stay.CheckIn = dateParam(q, "checkIn", property.Date{})
		stay.CheckOut = dateParam(q, "checkOut", property.Date{})
		stay.Guests = q.Int("guests", 0, 1, property.MaxGuests)
		if !stay.CheckIn.IsZero() && !stay.CheckOut.IsZero() {
			switch n := stay.CheckIn.DaysUntil(stay.CheckOut); {
			case n < 1:
				q.Errs.Add("checkOut", "must be after checkIn")
			case n > property.MaxStayNights:
				q.Errs.Add("checkOut", "a stay is at most "+strconv.Itoa(property.MaxStayNights)+" nights")
			}
			// Asia is ahead of UTC: a day before today in UTC is past in
			// every property's time zone.
			if stay.CheckIn.Before(property.DateOf(s.cfg.Clock.Now().UTC())) {
				q.Errs.Add("checkIn", "is in the past")
			}
		}
		f.Stay = stay
	}
	if err := q.Err(); err != nil {
		return err
	}
	props, total, err := s.cfg.Catalog.FindProperties(r.Context(), f)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), props...)
	httpx.WriteJSON(w, http.StatusOK, list[property.PropertySummary]{props, paging.NewMeta(f.Page, total)})
	return nil
}

func (s *Server) handlePropertyGet(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return err
	}
	p, err := s.cfg.Catalog.FindProperty(r.Context(), account(r.Context()), id)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, p)
	return nil
}

// defaultCalendarNights is the range of an availability request that
// names no end.
const defaultCalendarNights = 30

func (s *Server) handleAvailability(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return err
	}
	q := httpx.NewQuery(r.URL.Query())
	from := dateParam(q, "from", property.DateOf(s.cfg.Clock.Now().UTC()))
	to := dateParam(q, "to", from.AddDays(defaultCalendarNights))
	roomTypeID := uuidParam(q, "roomTypeId")
	if err := q.Err(); err != nil {
		return err
	}
	switch n := from.DaysUntil(to); {
	case n < 1:
		return apperr.Field("to", "must be after from: the range is the nights from from up to, not including, to")
	case n > property.MaxCalendarNights:
		return apperr.Field("to", "the range is at most "+strconv.Itoa(property.MaxCalendarNights)+" nights")
	}
	a, err := s.cfg.Catalog.FindAvailability(r.Context(), account(r.Context()), id, roomTypeID, from, to)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, a)
	return nil
}
