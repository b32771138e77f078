package propertyhttp

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/property"
)

// The supply side: hosts manage their properties, room types and
// calendars with keys holding properties:write and calendar:write.

// propertyFields is the body of a property create or update: every field
// may be absent (left as it is), and on update null clears an optional
// one (licenseNumber) and is refused for the others.
type propertyFields struct {
	Name               httpx.Optional[string]   `json:"name"`
	Type               httpx.Optional[string]   `json:"type"`
	Description        httpx.Optional[string]   `json:"description"`
	Address            httpx.Optional[string]   `json:"address"`
	City               httpx.Optional[string]   `json:"city"`
	CountryCode        httpx.Optional[string]   `json:"countryCode"`
	Latitude           httpx.Optional[float64]  `json:"latitude"`
	Longitude          httpx.Optional[float64]  `json:"longitude"`
	Timezone           httpx.Optional[string]   `json:"timezone"`
	Currency           httpx.Optional[string]   `json:"currency"`
	CheckInTime        httpx.Optional[string]   `json:"checkInTime"`
	CheckOutTime       httpx.Optional[string]   `json:"checkOutTime"`
	Amenities          httpx.Optional[[]string] `json:"amenities"`
	Images             httpx.Optional[[]string] `json:"images"`
	LicenseNumber      httpx.Optional[string]   `json:"licenseNumber"`
	CancellationPolicy httpx.Optional[string]   `json:"cancellationPolicy"`
	Status             httpx.Optional[string]   `json:"status"`
}

var validClock = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// apply checks the sent fields and sets them on c. On create every
// required field must be sent.
func (s *Server) applyPropertyFields(in *propertyFields, c *property.PropertyContent, create bool, errs apperr.FieldErrors) {
	text := func(field string, o httpx.Optional[string], dst *string, min, max int) {
		if o.Required(errs, field, create) {
			*dst = httpx.CheckString(errs, field, o.Value, true, min, max)
		}
	}
	enum := func(field string, o httpx.Optional[string], dst *string, allowed []string) {
		if o.Required(errs, field, create) {
			if !slices.Contains(allowed, *o.Value) {
				errs.Add(field, "must be one of "+strings.Join(allowed, ", "))
				return
			}
			*dst = *o.Value
		}
	}
	text("name", in.Name, &c.Name, 1, 200)
	enum("type", in.Type, &c.Type, property.Types)
	if in.Description.Set || create {
		if in.Description.Value == nil {
			c.Description = ""
		} else {
			c.Description = httpx.CheckString(errs, "description", in.Description.Value, false, 0, 5000)
		}
	}
	text("address", in.Address, &c.Address, 1, 300)
	text("city", in.City, &c.City, 1, 100)
	enum("countryCode", in.CountryCode, &c.CountryCode, property.CountryCodes)
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
		o    httpx.Optional[string]
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
				case !slices.Contains(property.Amenities, a):
					errs.Add("amenities", "unknown amenity "+strconv.Quote(a)+"; known: "+strings.Join(property.Amenities, ", "))
				case !slices.Contains(c.Amenities, a):
					c.Amenities = append(c.Amenities, a)
				}
			}
		}
	}
	if in.Images.Set || create {
		c.Images = httpx.CheckMediaRefs(errs, "images", s.cfg.PublicURL, in.Images.Value, property.MaxImages)
	}
	if in.LicenseNumber.Set {
		if in.LicenseNumber.Value == nil {
			c.LicenseNumber = nil
		} else {
			v := httpx.CheckString(errs, "licenseNumber", in.LicenseNumber.Value, true, 1, 100)
			c.LicenseNumber = &v
		}
	}
	enum("cancellationPolicy", in.CancellationPolicy, &c.CancellationPolicy, property.PolicyCodes)
	if in.Status.Set {
		allowed := property.PropertyStatuses
		if create {
			allowed = []string{property.PropertyDraft} // active needs a room type first
		}
		enum("status", in.Status, &c.Status, allowed)
	}
}

func (s *Server) handlePropertyCreate(w http.ResponseWriter, r *http.Request) error {
	var in propertyFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	var c property.PropertyContent
	s.applyPropertyFields(&in, &c, true, errs)
	if err := errs.Err(); err != nil {
		return err
	}
	p, err := s.cfg.Supply.CreateProperty(r.Context(), account(r.Context()), c)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), p)
	httpx.WriteJSON(w, http.StatusCreated, p)
	return nil
}

func (s *Server) handlePropertyUpdate(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return err
	}
	var in propertyFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	// Fields are checked before the store is asked, and set on the
	// current content in its transaction.
	errs := apperr.FieldErrors{}
	s.applyPropertyFields(&in, &property.PropertyContent{}, false, errs)
	if err := errs.Err(); err != nil {
		return err
	}
	p, err := s.cfg.Supply.UpdateProperty(r.Context(), account(r.Context()), id, func(c *property.PropertyContent) error {
		errs := apperr.FieldErrors{}
		s.applyPropertyFields(&in, c, false, errs)
		return errs.Err()
	})
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, p)
	return nil
}

// roomTypeFields is the body of a room type create or update.
type roomTypeFields struct {
	Name        httpx.Optional[string] `json:"name"`
	Description httpx.Optional[string] `json:"description"`
	MaxGuests   httpx.Optional[int]    `json:"maxGuests"`
	Beds        httpx.Optional[[]struct {
		Type  *string `json:"type"`
		Count *int    `json:"count"`
	}] `json:"beds"`
	TotalUnits httpx.Optional[int] `json:"totalUnits"`
	// BasePrice is a Money in the property's currency; the currency may be
	// left out.
	BasePrice httpx.Optional[struct {
		Amount   *int64  `json:"amount"`
		Currency *string `json:"currency"`
	}] `json:"basePrice"`
}

func applyRoomTypeFields(in *roomTypeFields, c *property.RoomTypeContent, currency string, create bool, errs apperr.FieldErrors) {
	if in.Name.Required(errs, "name", create) {
		c.Name = httpx.CheckString(errs, "name", in.Name.Value, true, 1, 200)
	}
	if in.Description.Set || create {
		c.Description = ""
		if in.Description.Value != nil {
			c.Description = httpx.CheckString(errs, "description", in.Description.Value, false, 0, 5000)
		}
	}
	if in.MaxGuests.Required(errs, "maxGuests", create) {
		if v := *in.MaxGuests.Value; v < 1 || v > property.MaxGuests {
			errs.Add("maxGuests", fmt.Sprintf("must be from 1 to %d", property.MaxGuests))
		} else {
			c.MaxGuests = v
		}
	}
	if in.Beds.Set || create {
		c.Beds = []property.Bed{}
		if in.Beds.Value != nil {
			if len(*in.Beds.Value) > 10 {
				errs.Add("beds", "at most 10 kinds of bed")
			}
			for i, b := range *in.Beds.Value {
				at := fmt.Sprintf("beds[%d].", i)
				switch {
				case b.Type == nil || !slices.Contains(property.BedTypes, *b.Type):
					errs.Add(at+"type", "must be one of "+strings.Join(property.BedTypes, ", "))
				case b.Count == nil || *b.Count < 1 || *b.Count > 20:
					errs.Add(at+"count", "must be from 1 to 20")
				default:
					c.Beds = append(c.Beds, property.Bed{Type: *b.Type, Count: *b.Count})
				}
			}
		}
	}
	if in.TotalUnits.Required(errs, "totalUnits", create) {
		if v := *in.TotalUnits.Value; v < 0 || v > property.MaxUnits {
			errs.Add("totalUnits", fmt.Sprintf("must be from 0 to %d", property.MaxUnits))
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

// pathRoomType returns the {id} and {roomTypeId} of the path.
func pathRoomType(r *http.Request) (string, string, error) {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return "", "", err
	}
	rt := r.PathValue("roomTypeId")
	if u, err := uuid.Parse(rt); err != nil || len(rt) != 36 {
		return "", "", apperr.Errorf(apperr.NotFound, "Property %s has no room type with id %q.", id, rt)
	} else {
		rt = u.String()
	}
	return id, rt, nil
}

// ownedProperty returns the caller's own property (another account's is
// NOT_FOUND), for its currency.
func (s *Server) ownedProperty(r *http.Request, id string) (*property.Property, error) {
	return s.cfg.Supply.FindOwnedProperty(r.Context(), account(r.Context()), id)
}

func (s *Server) handleRoomTypeCreate(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return err
	}
	var in roomTypeFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	p, err := s.ownedProperty(r, id)
	if err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	var c property.RoomTypeContent
	applyRoomTypeFields(&in, &c, p.Currency, true, errs)
	if err := errs.Err(); err != nil {
		return err
	}
	rt, err := s.cfg.Supply.CreateRoomType(r.Context(), account(r.Context()), id, c)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, rt)
	return nil
}

func (s *Server) handleRoomTypeUpdate(w http.ResponseWriter, r *http.Request) error {
	id, rtID, err := pathRoomType(r)
	if err != nil {
		return err
	}
	var in roomTypeFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	p, err := s.ownedProperty(r, id)
	if err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	applyRoomTypeFields(&in, &property.RoomTypeContent{}, p.Currency, false, errs)
	if err := errs.Err(); err != nil {
		return err
	}
	rt, err := s.cfg.Supply.UpdateRoomType(r.Context(), account(r.Context()), id, rtID, func(c *property.RoomTypeContent) error {
		errs := apperr.FieldErrors{}
		applyRoomTypeFields(&in, c, p.Currency, false, errs)
		return errs.Err()
	})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, rt)
	return nil
}

func (s *Server) handleRoomTypeDelete(w http.ResponseWriter, r *http.Request) error {
	id, rtID, err := pathRoomType(r)
	if err != nil {
		return err
	}
	if _, err := s.ownedProperty(r, id); err != nil {
		return err
	}
	if err := s.cfg.Supply.DeleteRoomType(r.Context(), account(r.Context()), id, rtID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

var weekdays = map[string]time.Weekday{"mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday, "thu": time.Thursday,
	"fri": time.Friday, "sat": time.Saturday, "sun": time.Sunday}

// calendarFields is the body of a calendar update.
type calendarFields struct {
	Updates *[]struct {
		RoomTypeID *string   `json:"roomTypeId"`
		From       *string   `json:"from"`
		To         *string   `json:"to"`
		DaysOfWeek *[]string `json:"daysOfWeek"`
		Units      *int      `json:"units"`
		Price      *struct {
			Amount   *int64  `json:"amount"`
			Currency *string `json:"currency"`
		} `json:"price"`
		MinStay           *int  `json:"minStay"`
		Closed            *bool `json:"closed"`
		ClosedToArrival   *bool `json:"closedToArrival"`
		ClosedToDeparture *bool `json:"closedToDeparture"`
	} `json:"updates"`
}

func (s *Server) handleCalendarUpdate(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return err
	}
	var in calendarFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	p, err := s.ownedProperty(r, id)
	if err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	switch {
	case in.Updates == nil:
		errs.Add("updates", "is required")
	case len(*in.Updates) == 0:
		errs.Add("updates", "must hold at least one update")
	case len(*in.Updates) > property.MaxCalendarUpdates:
		errs.Add("updates", fmt.Sprintf("at most %d updates per request", property.MaxCalendarUpdates))
	}
	if err := errs.Err(); err != nil {
		return err
	}
	updates := make([]property.CalendarUpdate, len(*in.Updates))
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
			if *u.Units < 0 || *u.Units > property.MaxUnits {
				errs.Add(at+"units", fmt.Sprintf("must be from 0 to %d", property.MaxUnits))
			}
			cu.Units = u.Units
		}
		if u.Price != nil {
			if v, ok := checkMoney(errs, at+"price", u.Price.Amount, u.Price.Currency, p.Currency); ok {
				cu.Price = &v
			}
		}
		if u.MinStay != nil {
			if *u.MinStay < 1 || *u.MinStay > property.MaxStayNights {
				errs.Add(at+"minStay", fmt.Sprintf("must be from 1 to %d", property.MaxStayNights))
			}
			cu.MinStay = u.MinStay
		}
		cu.Closed, cu.ClosedToArrival, cu.ClosedToDeparture = u.Closed, u.ClosedToArrival, u.ClosedToDeparture
		if u.Units == nil && u.Price == nil && u.MinStay == nil && u.Closed == nil && u.ClosedToArrival == nil && u.ClosedToDeparture == nil {
			errs.Add(at[:len(at)-1], "sets nothing: give units, price, minStay, closed, closedToArrival or closedToDeparture")
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	res, err := s.cfg.Supply.UpdateCalendar(r.Context(), account(r.Context()), id, updates)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, res)
	return nil
}

// supplyRoutes registers the hosts' routes.
func (s *Server) supplyRoutes() {
	s.open("POST /api/v1/properties", property.ScopePropertiesWrite, s.idem.Wrap(http.StatusCreated, nil, s.handlePropertyCreate))
	s.open("PATCH /api/v1/properties/{id}", property.ScopePropertiesWrite, s.idem.Wrap(http.StatusOK, nil, s.handlePropertyUpdate))
	s.open("POST /api/v1/properties/{id}/room-types", property.ScopePropertiesWrite, s.idem.Wrap(http.StatusCreated, nil, s.handleRoomTypeCreate))
	s.open("PATCH /api/v1/properties/{id}/room-types/{roomTypeId}", property.ScopePropertiesWrite, s.idem.Wrap(http.StatusOK, nil, s.handleRoomTypeUpdate))
	s.open("DELETE /api/v1/properties/{id}/room-types/{roomTypeId}", property.ScopePropertiesWrite, s.handleRoomTypeDelete)
	s.open("PATCH /api/v1/properties/{id}/calendar", property.ScopeCalendarWrite, s.calendarUpdate())
}

// maxCalendarBody bounds a calendar push: room for MaxCalendarUpdates
// updates that each set every field (about 300 bytes compact), indented
// too, where the 64 KiB of other bodies hold about 200.
const maxCalendarBody = 512 << 10

// calendarUpdate is the calendar push of the open API and the portal.
func (s *Server) calendarUpdate() httpx.HandlerFunc {
	return httpx.LimitBody(maxCalendarBody, s.idem.Wrap(http.StatusOK, nil, s.handleCalendarUpdate))
}
