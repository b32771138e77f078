package guidehttp

import (
	"context"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

func (s *Server) handleBookingList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := pageArgs(q)
	if err != nil {
		return err
	}
	bookings, meta, err := s.svc.ListBookings(r.Context(), caller(r.Context()), guide.BookingSearch{PageArgs: page,
		Sort: q.Get("sort"), Status: q.Get("status")})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, list[guide.BookingSummary]{bookings, meta})
	return nil
}

func (s *Server) handleBookingCreate(w http.ResponseWriter, r *http.Request) error {
	var in guide.BookingRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	b, err := s.svc.CreateBooking(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, item{b})
	return nil
}

func (s *Server) handleBookingGet(w http.ResponseWriter, r *http.Request) error {
	b, err := s.svc.Booking(r.Context(), caller(r.Context()), r.PathValue("id"))
	return writeItem(w, r, http.StatusOK, b, err)
}

// handleMove serves accept, start and complete.
func (s *Server) handleMove(move func(context.Context, *guide.Caller, string) (*guide.BookingDetail, error)) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		b, err := move(r.Context(), caller(r.Context()), r.PathValue("id"))
		return writeItem(w, r, http.StatusOK, b, err)
	}
}

func (s *Server) handleBookingCancel(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.CancelBooking(r.Context(), caller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	if out.Asked != nil {
		s.writeAsk(w, out.Asked)
		return nil
	}
	httpx.WriteJSON(w, http.StatusOK, item{out.Cancelled})
	return nil
}

func (s *Server) handleBookingReview(w http.ResponseWriter, r *http.Request) error {
	// An id that names no booking is answered before the body is read.
	id, err := httpx.PathID(r, "booking")
	if err != nil {
		return err
	}
	var in guide.ReviewRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	rv, err := s.svc.ReviewBooking(r.Context(), caller(r.Context()), id, in)
	if err != nil {
		return err
	}
	s.catalogChanged()
	httpx.WriteJSON(w, http.StatusCreated, item{rv})
	return nil
}
