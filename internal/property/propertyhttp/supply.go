package propertyhttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/property"
)

// The supply side: hosts manage their properties, room types and
// calendars with keys holding properties:write and calendar:write.

func (s *Server) handlePropertyCreate(w http.ResponseWriter, r *http.Request) error {
	var in property.PropertyFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	p, err := s.svc.CreateProperty(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), p)
	httpx.WriteJSON(w, http.StatusCreated, p)
	return nil
}

func (s *Server) handlePropertyUpdate(w http.ResponseWriter, r *http.Request) error {
	// An id that names no property is answered before the body is read.
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return err
	}
	var in property.PropertyFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	p, err := s.svc.UpdateProperty(r.Context(), caller(r.Context()), id, in)
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, p)
	return nil
}

// pathRoomType returns the {id} and {roomTypeId} of the path: ids that
// name nothing are answered before the body is read.
func pathRoomType(r *http.Request) (string, string, error) {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return "", "", err
	}
	rt, err := property.RoomTypeID(id, r.PathValue("roomTypeId"))
	return id, rt, err
}

func (s *Server) handleRoomTypeCreate(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return err
	}
	var in property.RoomTypeFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	rt, err := s.svc.CreateRoomType(r.Context(), caller(r.Context()), id, in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, rt)
	return nil
}

func (s *Server) handleRoomTypeUpdate(w http.ResponseWriter, r *http.Request) error {
	id, rtID, err := pathRoomType(r)
	if err != nil {
		return err
	}
	var in property.RoomTypeFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	rt, err := s.svc.UpdateRoomType(r.Context(), caller(r.Context()), id, rtID, in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, rt)
	return nil
}

func (s *Server) handleRoomTypeDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.DeleteRoomType(r.Context(), caller(r.Context()), r.PathValue("id"), r.PathValue("roomTypeId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) handleCalendarUpdate(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "property")
	if err != nil {
		return err
	}
	var in property.CalendarFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	res, err := s.svc.UpdateCalendar(r.Context(), caller(r.Context()), id, in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, res)
	return nil
}

// supplyRoutes registers the hosts' routes.
func (s *Server) supplyRoutes() {
	s.open("POST /api/v1/properties", property.ScopePropertiesWrite, s.idem.Wrap(http.StatusCreated, nil, s.handlePropertyCreate))
	s.open("PATCH /api/v1/properties/{id}", property.ScopePropertiesWrite, s.idem.Wrap(http.StatusOK, nil, s.handlePropertyUpdate))
	s.open("POST /api/v1/properties/{id}/room-types", property.ScopePropertiesWrite, s.idem.Wrap(http.StatusCreated, nil, s.handleRoomTypeCreate))
	s.open("PATCH /api/v1/properties/{id}/room-types/{roomTypeId}", property.ScopePropertiesWrite, s.idem.Wrap(http.StatusOK, nil, s.handleRoomTypeUpdate))
	s.open("DELETE /api/v1/properties/{id}/room-types/{roomTypeId}", property.ScopePropertiesWrite, s.handleRoomTypeDelete)
	s.open("PATCH /api/v1/properties/{id}/calendar", property.ScopeCalendarWrite, s.calendarUpdate())
}

// maxCalendarBody bounds a calendar push: room for MaxCalendarUpdates
// updates that each set every field (about 300 bytes compact), indented
// too, where the 64 KiB of other bodies hold about 200.
const maxCalendarBody = 512 << 10

// calendarUpdate is the calendar push of the open API and the portal.
func (s *Server) calendarUpdate() httpx.HandlerFunc {
	return httpx.LimitBody(maxCalendarBody, s.idem.Wrap(http.StatusOK, nil, s.handleCalendarUpdate))
}
