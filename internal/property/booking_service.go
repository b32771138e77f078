package property

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// List is a page of a list, with what the pages hold in all.
type List[T any] struct {
	Data []T         `json:"data"`
	Meta paging.Meta `json:"meta"`
}

// StayFields are a stay as sent: every field is required.
type StayFields struct {
	PropertyID *string `json:"propertyId"`
	RoomTypeID *string `json:"roomTypeId"`
	CheckIn    *string `json:"checkIn"`
	CheckOut   *string `json:"checkOut"`
	Guests     *int    `json:"guests"`
}

func (f *StayFields) any() bool {
	return f.PropertyID != nil || f.RoomTypeID != nil || f.CheckIn != nil || f.CheckOut != nil || f.Guests != nil
}

// check validates the fields into a stay request.
func (f *StayFields) check(errs apperr.FieldErrors) StayRequest {
	var s StayRequest
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
	case *f.Guests < 1 || *f.Guests > MaxGuests:
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

func checkDate(errs apperr.FieldErrors, field string, v *string) Date {
	if v == nil {
		errs.Add(field, "is required")
		return Date{}
	}
	d, err := ParseDate(*v)
	if err != nil {
		errs.Add(field, err.Error())
	}
	return d
}

// CreateQuote prices a stay and holds one unit of every night of it for
// the caller's account until the quote expires. Errors:
// apperr.Unauthorized, apperr.Validation, apperr.NotFound (no such
// property or room type), and the store's refusals of a stay that cannot
// be had (apperr.Unavailable and the like).
func (s *Service) CreateQuote(ctx context.Context, c *Caller, in StayFields) (*Quote, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	req := in.check(errs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	ttl := s.QuoteTTL
	if ttl == 0 {
		ttl = DefaultQuoteTTL
	}
	return s.Bookings.CreateQuote(ctx, c.Account(), req, ttl)
}

var (
	validPhone   = regexp.MustCompile(`^\+?[0-9][0-9 ()\-.]{5,29}$`)
	validCountry = regexp.MustCompile(`^[A-Z]{2}$`)
)

// GuestFields are the lead guest of a booking as sent.
type GuestFields struct {
	FirstName *string `json:"firstName"`
	LastName  *string `json:"lastName"`
	Email     *string `json:"email"`
	Phone     *string `json:"phone"`
	Country   *string `json:"country"`
}

// BookingFields are a booking as sent: a quote, or a stay to quote and
// book at once, and the lead guest.
type BookingFields struct {
	StayFields
	QuoteID           *string      `json:"quoteId"`
	Guest             *GuestFields `json:"guest"`
	SpecialRequests   *string      `json:"specialRequests"`
	ExternalReference *string      `json:"externalReference"`
}

// CreateBooking books a quote of the caller's account (or a stay, quoted
// at once) for a guest, at the quoted price. Errors: apperr.Unauthorized,
// apperr.Validation, apperr.NotFound (no such quote), and the store's
// refusals of an expired quote or a stay that cannot be had.
func (s *Service) CreateBooking(ctx context.Context, c *Caller, in BookingFields) (*Booking, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	var nb NewBooking
	switch {
	case in.QuoteID != nil && in.StayFields.any():
		errs.Add("quoteId", "give either quoteId or the stay (propertyId, roomTypeId, checkIn, checkOut, guests), not both")
	case in.QuoteID != nil:
		nb.QuoteID = checkUUID(errs, "quoteId", in.QuoteID)
	case in.StayFields.any():
		req := in.StayFields.check(errs)
		nb.Stay = &req
	default:
		errs.Add("quoteId", "quoteId, or the stay (propertyId, roomTypeId, checkIn, checkOut, guests), is required")
	}
	if in.Guest == nil {
		errs.Add("guest", "is required")
	} else {
		g := in.Guest
		nb.Guest.FirstName = field.CheckString(errs, "guest.firstName", g.FirstName, true, 1, 100)
		nb.Guest.LastName = field.CheckString(errs, "guest.lastName", g.LastName, true, 1, 100)
		nb.Guest.Email = field.CheckEmail(errs, "guest.email", g.Email)
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
		v := field.CheckString(errs, "specialRequests", in.SpecialRequests, false, 0, 1000)
		nb.SpecialRequests = &v
	}
	if in.ExternalReference != nil {
		v := field.CheckString(errs, "externalReference", in.ExternalReference, false, 1, 100)
		nb.ExternalReference = &v
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Bookings.CreateBooking(ctx, c.Account(), nb)
}

// BookingQuery is a booking list request. Text is taken as sent, ""
// when absent; numbers and times are typed, nil when absent (a door
// parses its wire format into them).
type BookingQuery struct {
	Status, PropertyID     string
	CheckInFrom, CheckInTo *Date
	ExternalReference      string
	UpdatedSince           *time.Time
	Sort, Order            string
	Page, PageSize         *int
}

// FindBookings lists the bookings of the caller's account (in its mode).
// Errors: apperr.Unauthorized, apperr.Validation.
func (s *Service) FindBookings(ctx context.Context, c *Caller, in BookingQuery) (*List[Booking], error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	f := BookingFilter{
		Page:              paging.Select(errs, in.Page, in.PageSize, in.Order, "desc"),
		Sort:              field.Enum(errs, "sort", in.Sort, "createdAt", []string{"createdAt", "checkIn", "updatedAt"}),
		Status:            field.Enum(errs, "status", in.Status, "", BookingStatuses),
		PropertyID:        checkUUIDArg(errs, "propertyId", in.PropertyID),
		ExternalReference: field.Text(errs, "externalReference", in.ExternalReference, 100),
	}
	if in.CheckInFrom != nil {
		f.CheckInFrom = *in.CheckInFrom
	}
	if in.CheckInTo != nil {
		f.CheckInTo = *in.CheckInTo
	}
	if in.UpdatedSince != nil {
		t := in.UpdatedSince.UTC()
		f.UpdatedSince = &t
	}
	if !f.CheckInFrom.IsZero() && !f.CheckInTo.IsZero() && f.CheckInTo.Before(f.CheckInFrom) {
		errs.Add("checkInTo", "must not be before checkInFrom")
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	bookings, total, err := s.Bookings.FindBookings(ctx, c.Account(), f)
	if err != nil {
		return nil, err
	}
	return &List[Booking]{bookings, paging.NewMeta(f.Page, total)}, nil
}

// FindBooking returns a booking of the caller's account. Errors:
// apperr.Unauthorized, apperr.NotFound.
func (s *Service) FindBooking(ctx context.Context, c *Caller, id string) (*Booking, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "booking")
	if err != nil {
		return nil, err
	}
	return s.Bookings.FindBooking(ctx, c.Account(), id)
}

// CancelBooking cancels a booking of the caller's account now, under its
// property's cancellation policy. Errors: apperr.Unauthorized,
// apperr.NotFound, and the store's refusal of a booking that can no
// longer be cancelled.
func (s *Service) CancelBooking(ctx context.Context, c *Caller, id string) (*Booking, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "booking")
	if err != nil {
		return nil, err
	}
	return s.Bookings.CancelBooking(ctx, c.Account(), id)
}
