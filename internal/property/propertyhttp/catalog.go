package propertyhttp

import (
	"net/http"
	"net/url"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/property"
)

// propertyQuery reads the parameters of a property search, but mine,
// adding what is no date or number to errs.
func propertyQuery(errs apperr.FieldErrors, q url.Values) property.PropertyQuery {
	in := property.PropertyQuery{
		CheckIn: dateArg(errs, "checkIn", q.Get("checkIn")), CheckOut: dateArg(errs, "checkOut", q.Get("checkOut")), Guests: guestsArg(errs, q.Get("guests")),
		City: q.Get("city"), Country: q.Get("country"), Type: q.Get("type"), Currency: q.Get("currency"),
		MinPrice: amountArg(errs, "minPrice", q.Get("minPrice")), MaxPrice: amountArg(errs, "maxPrice", q.Get("maxPrice")), Amenities: q.Get("amenities"),
		Sort: q.Get("sort"), Order: q.Get("order"),
	}
	in.Page, in.PageSize = pageArgs(errs, q.Get("page"), q.Get("pageSize"))
	return in
}

func (s *Server) handlePropertyList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	errs := apperr.FieldErrors{}
	in := propertyQuery(errs, q)
	in.Mine = field.Enum(errs, "mine", q.Get("mine"), "false", []string{"true", "false"}) == "true"
	if err := errs.Err(); err != nil {
		return err
	}
	return s.writeProperties(w, r, in)
}

func (s *Server) writeProperties(w http.ResponseWriter, r *http.Request, in property.PropertyQuery) error {
	list, err := s.svc.FindProperties(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), list.Data...)
	httpx.WriteJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) handlePropertyGet(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.FindProperty(r.Context(), caller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, p)
	return nil
}

// availabilityQuery reads an availability request. An id that names no
// property is answered before the query is read, as the service answers
// it before checking the rest.
func availabilityQuery(r *http.Request) (property.AvailabilityQuery, error) {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return property.AvailabilityQuery{}, err
	}
	q := r.URL.Query()
	errs := apperr.FieldErrors{}
	in := property.AvailabilityQuery{PropertyID: id, From: dateArg(errs, "from", q.Get("from")), To: dateArg(errs, "to", q.Get("to")),
		RoomTypeID: q.Get("roomTypeId")}
	return in, errs.Err()
}

func (s *Server) handleAvailability(w http.ResponseWriter, r *http.Request) error {
	in, err := availabilityQuery(r)
	if err != nil {
		return err
	}
	return s.writeAvailability(w, r, in)
}

func (s *Server) writeAvailability(w http.ResponseWriter, r *http.Request, in property.AvailabilityQuery) error {
	a, err := s.svc.FindAvailability(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, a)
	return nil
}
