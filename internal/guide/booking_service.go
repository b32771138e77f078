package guide

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// BookingSearch selects the caller's bookings.
type BookingSearch struct {
	PageArgs
	Sort   string // createdAt (default), scheduledDate
	Status string // one of BookingStatuses
}

// ListBookings lists the bookings the caller made, and those made with the
// caller as expert. Errors: apperr.Unauthorized, apperr.Validation.
func (s *Service) ListBookings(ctx context.Context, c *Caller, in BookingSearch) ([]BookingSummary, paging.Meta, error) {
	if err := checkCaller(c); err != nil {
		return nil, paging.Meta{}, err
	}
	errs := apperr.FieldErrors{}
	f := BookingFilter{
		Page:   in.check(errs),
		Sort:   field.Enum(errs, "sort", in.Sort, "createdAt", []string{"createdAt", "scheduledDate"}),
		Status: field.Enum(errs, "status", in.Status, "", BookingStatuses),
	}
	if err := errs.Err(); err != nil {
		return nil, paging.Meta{}, err
	}
	bookings, total, err := s.Bookings.FindBookings(ctx, c.User, f)
	if err != nil {
		return nil, paging.Meta{}, err
	}
	return bookings, paging.NewMeta(f.Page, total), nil
}

// Booking returns a booking the caller is a party to. Errors:
// apperr.Unauthorized, apperr.NotFound, apperr.Forbidden.
func (s *Service) Booking(ctx context.Context, c *Caller, id string) (*BookingDetail, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "booking")
	if err != nil {
		return nil, err
	}
	return s.Bookings.FindBookingByID(ctx, c.User, id)
}

// BookingRequest asks to book a verified expert or an active package, its
// fields as sent.
type BookingRequest struct {
	ScheduledDate    *string `json:"scheduledDate"`    // RFC 3339 date-time, required
	ScheduledEndDate *string `json:"scheduledEndDate"` // after ScheduledDate
	ExpertID         *string `json:"expertId"`         // ExpertID or PackageID or both
	PackageID        *string `json:"packageId"`
	Participants     *int    `json:"participants"` // 1 to 50 (default 1)
	CustomRequest    *string `json:"customRequest"`
	MeetingLocation  *string `json:"meetingLocation"`
}

// CreateBooking asks the expert for a booking for the caller. A request
// takes none of the expert's time until the expert accepts it, so several
// travellers may ask for the same hours; AcceptBooking refuses the time
// once it is taken. Errors: apperr.Unauthorized, apperr.Validation,
// apperr.NotFound, apperr.InvalidState.
func (s *Service) CreateBooking(ctx context.Context, c *Caller, in BookingRequest) (*CreatedBooking, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	nb := NewBooking{Participants: 1, CustomRequest: in.CustomRequest, MeetingLocation: in.MeetingLocation}
	if in.ScheduledDate == nil {
		errs.Add("scheduledDate", "is required")
	} else if t, ok := parseTime(*in.ScheduledDate); !ok {
		errs.Add("scheduledDate", "must be an RFC 3339 date-time such as 2027-01-15T09:00:00+09:00")
	} else {
		nb.ScheduledDate = t
	}
	if in.ScheduledEndDate != nil {
		if t, ok := parseTime(*in.ScheduledEndDate); !ok {
			errs.Add("scheduledEndDate", "must be an RFC 3339 date-time")
		} else if !nb.ScheduledDate.IsZero() && !t.After(nb.ScheduledDate) {
			errs.Add("scheduledEndDate", "must be after scheduledDate")
		} else {
			nb.ScheduledEndDate = &t
		}
	}
	for field, v := range map[string]**string{"expertId": &in.ExpertID, "packageId": &in.PackageID} {
		if *v == nil {
			continue
		}
		u, err := uuid.Parse(**v)
		if err != nil || len(**v) != 36 {
			errs.Add(field, "must be a UUID")
			continue
		}
		id := u.String()
		*v = &id
	}
	nb.ExpertID, nb.PackageID = in.ExpertID, in.PackageID
	if in.ExpertID == nil && in.PackageID == nil {
		errs.Add("expertId", "expertId or packageId (or both) is required")
	}
	if in.Participants != nil {
		if *in.Participants < 1 || *in.Participants > 50 {
			errs.Add("participants", "must be from 1 to 50")
		}
		nb.Participants = *in.Participants
	}
	field.CheckString(errs, "customRequest", in.CustomRequest, false, 0, 2000)
	field.CheckString(errs, "meetingLocation", in.MeetingLocation, false, 0, 500)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Bookings.CreateBooking(ctx, c.User, nb)
}

// parseTime reads an RFC 3339 date-time into UTC at the precision stored.
func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil || t.Year() < 2000 || t.Year() > 2100 {
		return time.Time{}, false
	}
	return t.UTC().Truncate(time.Microsecond), true
}

// AcceptBooking confirms a pending booking: the expert's move, refused
// while the expert is taken at an overlapping time. Errors:
// apperr.Unauthorized, apperr.NotFound, apperr.Forbidden,
// apperr.InvalidState, apperr.Conflict.
func (s *Service) AcceptBooking(ctx context.Context, c *Caller, id string) (*BookingDetail, error) {
	return s.moveBooking(ctx, c, id, Accept)
}

// StartBooking starts a confirmed booking: the expert's move. Errors:
// apperr.Unauthorized, apperr.NotFound, apperr.Forbidden,
// apperr.InvalidState.
func (s *Service) StartBooking(ctx context.Context, c *Caller, id string) (*BookingDetail, error) {
	return s.moveBooking(ctx, c, id, Start)
}

// CompleteBooking completes a booking in progress: the expert's or an
// admin's move. Errors: apperr.Unauthorized, apperr.NotFound,
// apperr.Forbidden, apperr.InvalidState.
func (s *Service) CompleteBooking(ctx context.Context, c *Caller, id string) (*BookingDetail, error) {
	return s.moveBooking(ctx, c, id, Complete)
}

func (s *Service) moveBooking(ctx context.Context, c *Caller, id string, t Transition) (*BookingDetail, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "booking")
	if err != nil {
		return nil, err
	}
	return s.Bookings.TransitionBooking(ctx, c.User, id, t)
}

// BookingCancellation is the answer to a cancellation: cancelled
// (Cancelled), or, asked with an API key, a pending action (Asked).
type BookingCancellation struct {
	Cancelled *CancelledBooking
	Asked     *ActionAsk
}

// CancelBooking cancels a booking the caller is a party to. Cancelling is
// high risk: an API key only asks, once the cancellation is allowed now,
// and gets a pending action that its owner confirms (the rules are
// checked again then). Errors: apperr.Unauthorized, apperr.NotFound,
// apperr.Forbidden, apperr.InvalidState.
func (s *Service) CancelBooking(ctx context.Context, c *Caller, id string) (*BookingCancellation, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	asSent := id
	id, err := checkID(id, "booking")
	if err != nil {
		return nil, err
	}
	if c.APIKey != nil {
		if err := s.Bookings.CheckTransition(ctx, c.User, id, Cancel); err != nil {
			return nil, err
		}
		// The payload names the operation as the REST API offers it, the
		// id as it was sent.
		payload := map[string]any{"method": "POST", "path": "/api/v1/bookings/" + asSent + "/cancel", "bookingId": id}
		ask, err := s.askAction(ctx, c, ActionBookingCancel, id, payload, "Cancelling a booking with an API key needs confirmation.")
		if err != nil {
			return nil, err
		}
		return &BookingCancellation{Asked: ask}, nil
	}
	b, err := s.Bookings.TransitionBooking(ctx, c.User, id, Cancel)
	if err != nil {
		return nil, err
	}
	return &BookingCancellation{Cancelled: &CancelledBooking{ID: b.ID, Status: b.Status, CancelledAt: *b.CancelledAt}}, nil
}

// ReviewRequest is a review of a completed booking, its fields as sent.
type ReviewRequest struct {
	Rating  *int    `json:"rating"` // 1 to 5, required
	Comment *string `json:"comment"`
}

// ReviewBooking reviews a completed booking the caller made as
// traveller (CanReview), once, and recomputes the expert's rating.
// Errors: apperr.Unauthorized, apperr.NotFound, apperr.Validation,
// apperr.Forbidden, apperr.Conflict.
func (s *Service) ReviewBooking(ctx context.Context, c *Caller, id string, in ReviewRequest) (*CreatedReview, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "booking")
	if err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	if in.Rating == nil {
		errs.Add("rating", "is required")
	} else if *in.Rating < 1 || *in.Rating > 5 {
		errs.Add("rating", "must be a whole number from 1 to 5")
	}
	field.CheckString(errs, "comment", in.Comment, false, 0, 2000)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Bookings.CreateReview(ctx, c.User, id, *in.Rating, in.Comment)
}
