package propertyhttp

import (
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/property"
)

// stayFields are the body fields of a stay.
type stayFields struct {
	PropertyID *string `json:"propertyId"`
	RoomTypeID *string `json:"roomTypeId"`
	CheckIn    *string `json:"checkIn"`
	CheckOut   *string `json:"checkOut"`
	Guests     *int    `json:"guests"`
}

func (f *stayFields) any() bool {
	return f.PropertyID != nil || f.RoomTypeID != nil || f.CheckIn != nil || f.CheckOut != nil || f.Guests != nil
}

// check validates the fields into a stay request.
func (f *stayFields) check(errs apperr.FieldErrors) property.StayRequest {
	var s property.StayRequest
	s.PropertyID = checkUUID(errs, "propertyId", f.PropertyID)
	s.RoomTypeID = checkUUID(errs, "roomTypeId", f.RoomTypeID)
	s.CheckIn = checkDate(errs, "checkIn", f.CheckIn)
	s.CheckOut = checkDate(errs, "checkOut", f.CheckOut)
	if !s.CheckIn.IsZero() && !s.CheckOut.IsZero() && !s.CheckIn.Before(s.CheckOut) {
		errs.Add("checkOut", "must be after checkIn")
	}
	switch {
	case f.Guests == nil:
		errs.Add("guests", "is required")
	case *f.Guests < 1 || *f.Guests > property.MaxGuests:
		errs.Add("guests", "must be from 1 to 20")
	default:
		s.Guests = *f.Guests
	}
	return s
}

func checkUUID(errs apperr.FieldErrors, field string, v *string) string {
	if v == nil {
		errs.Add(field, "is required")
		return ""
	}
	u, err := uuid.Parse(*v)
	if err != nil || len(*v) != 36 {
		errs.Add(field, "must be a UUID")
		return ""
	}
	return u.String()
}

func checkDate(errs apperr.FieldErrors, field string, v *string) property.Date {
	if v == nil {
		errs.Add(field, "is required")
		return property.Date{}
	}
	d, err := property.ParseDate(*v)
	if err != nil {
		errs.Add(field, err.Error())
	}
	return d
}

func (s *Server) handleQuoteCreate(w http.ResponseWriter, r *http.Request) error {
	var in stayFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	req := in.check(errs)
	if err := errs.Err(); err != nil {
		return err
	}
	q, err := s.cfg.Bookings.CreateQuote(r.Context(), account(r.Context()), req, s.cfg.QuoteTTL)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, q)
	return nil
}

var (
	validPhone   = regexp.MustCompile(`^\+?[0-9][0-9 ()\-.]{5,29}$`)
	validCountry = regexp.MustCompile(`^[A-Z]{2}$`)
)

func (s *Server) handleBookingCreate(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		stayFields
		QuoteID *string `json:"quoteId"`
		Guest   *struct {
			FirstName *string `json:"firstName"`
			LastName  *string `json:"lastName"`
			Email     *string `json:"email"`
			Phone     *string `json:"phone"`
			Country   *string `json:"country"`
		} `json:"guest"`
		SpecialRequests   *string `json:"specialRequests"`
		ExternalReference *string `json:"externalReference"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	var nb property.NewBooking
	switch {
	case in.QuoteID != nil && in.stayFields.any():
		errs.Add("quoteId", "give either quoteId or the stay (propertyId, roomTypeId, checkIn, checkOut, guests), not both")
	case in.QuoteID != nil:
		nb.QuoteID = checkUUID(errs, "quoteId", in.QuoteID)
	case in.stayFields.any():
		req := in.stayFields.check(errs)
		nb.Stay = &req
	default:
		errs.Add("quoteId", "quoteId, or the stay (propertyId, roomTypeId, checkIn, checkOut, guests), is required")
	}
	if in.Guest == nil {
		errs.Add("guest", "is required")
	} else {
		g := in.Guest
		nb.Guest.FirstName = httpx.CheckString(errs, "guest.firstName", g.FirstName, true, 1, 100)
		nb.Guest.LastName = httpx.CheckString(errs, "guest.lastName", g.LastName, true, 1, 100)
		nb.Guest.Email = httpx.CheckEmail(errs, "guest.email", g.Email)
		if g.Phone != nil {
			p := strings.TrimSpace(*g.Phone)
			if !validPhone.MatchString(p) {
				errs.Add("guest.phone", "must be a phone number such as +81 3-1234-5678")
			}
			nb.Guest.Phone = &p
		}
		if g.Country != nil {
			c := strings.ToUpper(strings.TrimSpace(*g.Country))
			if !validCountry.MatchString(c) {
				errs.Add("guest.country", "must be an ISO 3166-1 alpha-2 country code such as JP")
			}
			nb.Guest.Country = &c
		}
	}
	if in.SpecialRequests != nil {
		v := httpx.CheckString(errs, "specialRequests", in.SpecialRequests, false, 0, 1000)
		nb.SpecialRequests = &v
	}
	if in.ExternalReference != nil {
		v := httpx.CheckString(errs, "externalReference", in.ExternalReference, false, 1, 100)
		nb.ExternalReference = &v
	}
	if err := errs.Err(); err != nil {
		return err
	}
	b, err := s.cfg.Bookings.CreateBooking(r.Context(), account(r.Context()), nb)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, b)
	return nil
}

func (s *Server) handleBookingList(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	f := property.BookingFilter{
		Page:              pageParams(q, "desc"),
		Sort:              q.Enum("sort", "createdAt", []string{"createdAt", "checkIn", "updatedAt"}),
		Status:            q.Enum("status", "", property.BookingStatuses),
		PropertyID:        uuidParam(q, "propertyId"),
		CheckInFrom:       dateParam(q, "checkInFrom", property.Date{}),
		CheckInTo:         dateParam(q, "checkInTo", property.Date{}),
		ExternalReference: q.String("externalReference", 100),
	}
	if v := q.String("updatedSince", 40); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			q.Errs.Add("updatedSince", "must be an RFC 3339 date-time such as 2026-12-01T00:00:00Z")
		} else {
			t = t.UTC()
			f.UpdatedSince = &t
		}
	}
	if !f.CheckInFrom.IsZero() && !f.CheckInTo.IsZero() && f.CheckInTo.Before(f.CheckInFrom) {
		q.Errs.Add("checkInTo", "must not be before checkInFrom")
	}
	if err := q.Err(); err != nil {
		return err
	}
	bookings, total, err := s.cfg.Bookings.FindBookings(r.Context(), account(r.Context()), f)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, list[property.Booking]{bookings, paging.NewMeta(f.Page, total)})
	return nil
}

func (s *Server) handleBookingGet(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "booking")
	if err != nil {
		return err
	}
	b, err := s.cfg.Bookings.FindBooking(r.Context(), account(r.Context()), id)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, b)
	return nil
}

func (s *Server) handleBookingCancel(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "booking")
	if err != nil {
		return err
	}
	b, err := s.cfg.Bookings.CancelBooking(r.Context(), account(r.Context()), id)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, b)
	return nil
}
