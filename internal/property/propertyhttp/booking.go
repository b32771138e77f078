package propertyhttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/property"
)

func (s *Server) handleQuoteCreate(w http.ResponseWriter, r *http.Request) error {
	var in property.StayFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	q, err := s.svc.CreateQuote(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, q)
	return nil
}

func (s *Server) handleBookingCreate(w http.ResponseWriter, r *http.Request) error {
	var in property.BookingFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	b, err := s.svc.CreateBooking(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, b)
	return nil
}

func (s *Server) handleBookingList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	errs := apperr.FieldErrors{}
	in := property.BookingQuery{
		Status: q.Get("status"), PropertyID: q.Get("propertyId"),
		CheckInFrom: dateArg(errs, "checkInFrom", q.Get("checkInFrom")), CheckInTo: dateArg(errs, "checkInTo", q.Get("checkInTo")),
		ExternalReference: q.Get("externalReference"), UpdatedSince: timeArg(errs, "updatedSince", q.Get("updatedSince")),
		Sort: q.Get("sort"), Order: q.Get("order"),
	}
	in.Page, in.PageSize = pageArgs(errs, q.Get("page"), q.Get("pageSize"))
	if err := errs.Err(); err != nil {
		return err
	}
	list, err := s.svc.FindBookings(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) handleBookingGet(w http.ResponseWriter, r *http.Request) error {
	b, err := s.svc.FindBooking(r.Context(), caller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, b)
	return nil
}

func (s *Server) handleBookingCancel(w http.ResponseWriter, r *http.Request) error {
	b, err := s.svc.CancelBooking(r.Context(), caller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, b)
	return nil
}
