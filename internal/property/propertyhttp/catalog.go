package propertyhttp

import (
	"net/http"
	"net/url"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/property"
)

// propertyQuery reads the parameters of a property search.
func propertyQuery(q url.Values) property.PropertyQuery {
	return property.PropertyQuery{
		CheckIn: q.Get("checkIn"), CheckOut: q.Get("checkOut"), Guests: q.Get("guests"),
		City: q.Get("city"), Country: q.Get("country"), Type: q.Get("type"), Currency: q.Get("currency"),
		MinPrice: q.Get("minPrice"), MaxPrice: q.Get("maxPrice"), Amenities: q.Get("amenities"), Mine: q.Get("mine"),
		Sort: q.Get("sort"), Order: q.Get("order"), Page: q.Get("page"), PageSize: q.Get("pageSize"),
	}
}

func (s *Server) handlePropertyList(w http.ResponseWriter, r *http.Request) error {
	return s.writeProperties(w, r, propertyQuery(r.URL.Query()))
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

// availabilityQuery reads an availability request.
func availabilityQuery(r *http.Request) property.AvailabilityQuery {
	q := r.URL.Query()
	return property.AvailabilityQuery{PropertyID: r.PathValue("id"), From: q.Get("from"), To: q.Get("to"), RoomTypeID: q.Get("roomTypeId")}
}

func (s *Server) handleAvailability(w http.ResponseWriter, r *http.Request) error {
	return s.writeAvailability(w, r, availabilityQuery(r))
}

func (s *Server) writeAvailability(w http.ResponseWriter, r *http.Request, in property.AvailabilityQuery) error {
	a, err := s.svc.FindAvailability(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, a)
	return nil
}
