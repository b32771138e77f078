package guidehttp

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

func (s *Server) handleBookingList(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	f := guide.BookingFilter{
		Page:   pageParams(q),
		Sort:   q.Enum("sort", "createdAt", []string{"createdAt", "scheduledDate"}),
		Status: q.Enum("status", "", guide.BookingStatuses),
	}
	if err := q.Err(); err != nil {
		return err
	}
	bookings, total, err := s.cfg.Bookings.FindBookings(r.Context(), caller(r.Context()).User, f)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, list[guide.BookingSummary]{bookings, paging.NewMeta(f.Page, total)})
	return nil
}

func (s *Server) handleBookingCreate(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ScheduledDate    *string `json:"scheduledDate"`
		ScheduledEndDate *string `json:"scheduledEndDate"`
		ExpertID         *string `json:"expertId"`
		PackageID        *string `json:"packageId"`
		Participants     *int    `json:"participants"`
		CustomRequest    *string `json:"customRequest"`
		MeetingLocation  *string `json:"meetingLocation"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	nb := guide.NewBooking{Participants: 1, CustomRequest: in.CustomRequest, MeetingLocation: in.MeetingLocation}
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
	httpx.CheckString(errs, "customRequest", in.CustomRequest, false, 0, 2000)
	httpx.CheckString(errs, "meetingLocation", in.MeetingLocation, false, 0, 500)
	if err := errs.Err(); err != nil {
		return err
	}
	b, err := s.cfg.Bookings.CreateBooking(r.Context(), caller(r.Context()).User, nb)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, item{b})
	return nil
}

// parseTime reads an RFC 3339 date-time into UTC at the precision stored.
func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil || t.Year() < 2000 || t.Year() > 2100 {
		return time.Time{}, false
	}
	return t.UTC().Truncate(time.Microsecond), true
}

func (s *Server) handleBookingGet(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "booking")
	if err != nil {
		return err
	}
	b, err := s.cfg.Bookings.FindBookingByID(r.Context(), caller(r.Context()).User, id)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), b)
	httpx.WriteJSON(w, http.StatusOK, item{b})
	return nil
}

// handleTransition serves accept, start and complete.
func (s *Server) handleTransition(t guide.Transition) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "booking")
		if err != nil {
			return err
		}
		b, err := s.cfg.Bookings.TransitionBooking(r.Context(), caller(r.Context()).User, id, t)
		if err != nil {
			return err
		}
		httpx.ResolveMedia(r.Context(), b)
		httpx.WriteJSON(w, http.StatusOK, item{b})
		return nil
	}
}

func (s *Server) handleBookingCancel(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "booking")
	if err != nil {
		return err
	}
	c := caller(r.Context())
	if c.APIKey != nil {
		// High risk: a key only asks; its owner confirms.
		if err := s.cfg.Bookings.CheckTransition(r.Context(), c.User, id, guide.Cancel); err != nil {
			return err
		}
		payload := map[string]any{"method": r.Method, "path": r.URL.Path, "bookingId": id}
		return s.writePending(w, r, guide.ActionBookingCancel, id, payload, "Cancelling a booking with an API key needs confirmation.")
	}
	b, err := s.cfg.Bookings.TransitionBooking(r.Context(), c.User, id, guide.Cancel)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{guide.CancelledBooking{ID: b.ID, Status: b.Status, CancelledAt: *b.CancelledAt}})
	return nil
}

func (s *Server) handleBookingReview(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "booking")
	if err != nil {
		return err
	}
	var in struct {
		Rating  *int    `json:"rating"`
		Comment *string `json:"comment"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	if in.Rating == nil {
		errs.Add("rating", "is required")
	} else if *in.Rating < 1 || *in.Rating > 5 {
		errs.Add("rating", "must be a whole number from 1 to 5")
	}
	httpx.CheckString(errs, "comment", in.Comment, false, 0, 2000)
	if err := errs.Err(); err != nil {
		return err
	}
	rv, err := s.cfg.Bookings.CreateReview(r.Context(), caller(r.Context()).User, id, *in.Rating, in.Comment)
	if err != nil {
		return err
	}
	s.catalogChanged()
	httpx.WriteJSON(w, http.StatusCreated, item{rv})
	return nil
}
