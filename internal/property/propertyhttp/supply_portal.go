package propertyhttp

import (
	"context"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/property"
)

// The portal's Properties page: the signed-in developer's own properties
// and their calendars, through the same handlers as the open API.

func (s *Server) supplyPortalRoutes() {
	s.portal("GET /portal/api/properties", s.asHost(s.handlePropertyList))
	s.portal("GET /portal/api/properties/{id}/availability", s.asHost(s.handleOwnedAvailability))
	s.portal("PATCH /portal/api/properties/{id}/calendar", s.asHost(s.calendarUpdate()))
}

// asHost runs h for the signed-in developer as a key of the inventory
// named by ?mode= (live, the default, or test) would: own properties only
// (the list is always mine=true).
func (s *Server) asHost(h httpx.HandlerFunc) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		mode := q.Get("mode")
		switch mode {
		case "":
			mode = property.ModeLive
		case property.ModeLive, property.ModeTest:
		default:
			return apperr.Field("mode", "must be live or test")
		}
		if r.Method == http.MethodGet && r.URL.Path == "/portal/api/properties" {
			q.Del("mode")
			q.Set("mine", "true")
			r.URL.RawQuery = q.Encode()
		}
		k := &property.Key{DeveloperID: developer(r.Context()).ID, Mode: mode, Scopes: property.Scopes}
		return h(w, r.WithContext(context.WithValue(r.Context(), keyCtx{}, k)))
	}
}

func (s *Server) handleOwnedAvailability(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return err
	}
	if _, err := s.ownedProperty(r, id); err != nil {
		return err
	}
	return s.handleAvailability(w, r)
}
