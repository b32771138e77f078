package propertyhttp

import (
	"context"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/property"
)

// The portal's Properties page: the signed-in developer's own properties
// and their calendars, through the same service operations as the open
// API.

func (s *Server) supplyPortalRoutes() {
	s.portal("GET /portal/api/properties", s.asHost(s.handleOwnedProperties))
	s.portal("GET /portal/api/properties/{id}/availability", s.asHost(s.handleOwnedAvailability))
	s.portal("PATCH /portal/api/properties/{id}/calendar", s.asHost(s.calendarUpdate()))
}

// asHost runs h for the signed-in developer on the inventory named by
// ?mode= (live, the default, or test), as a key of that mode would.
func (s *Server) asHost(h httpx.HandlerFunc) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		mode := r.URL.Query().Get("mode")
		switch mode {
		case "":
			mode = property.ModeLive
		case property.ModeLive, property.ModeTest:
		default:
			return apperr.Field("mode", "must be live or test")
		}
		c := &property.Caller{DeveloperID: developer(r.Context()).ID, Mode: mode}
		return h(w, r.WithContext(context.WithValue(r.Context(), callerCtx{}, c)))
	}
}

// handleOwnedProperties lists the developer's own properties, whatever
// their status.
func (s *Server) handleOwnedProperties(w http.ResponseWriter, r *http.Request) error {
	errs := apperr.FieldErrors{}
	in := propertyQuery(errs, r.URL.Query())
	if err := errs.Err(); err != nil {
		return err
	}
	in.Mine = true
	return s.writeProperties(w, r, in)
}

func (s *Server) handleOwnedAvailability(w http.ResponseWriter, r *http.Request) error {
	in, err := availabilityQuery(r)
	if err != nil {
		return err
	}
	in.Owned = true
	return s.writeAvailability(w, r, in)
}
