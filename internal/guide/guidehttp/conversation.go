package guidehttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
)

func (s *Server) handleConversationList(w http.ResponseWriter, r *http.Request) error {
	cs, err := s.svc.ListConversations(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), cs...)
	httpx.WriteJSON(w, http.StatusOK, item{cs})
	return nil
}

// createdOr is 201 for what a request created, 200 for what it found.
func createdOr(created bool) int {
	if created {
		return http.StatusCreated
	}
	return http.StatusOK
}

func (s *Server) handleConversationOpen(w http.ResponseWriter, r *http.Request) error {
	var in guide.ConversationRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	c, created, err := s.svc.OpenConversation(r.Context(), caller(r.Context()), in)
	return writeItem(w, r, createdOr(created), c, err)
}

func (s *Server) handleMessageList(w http.ResponseWriter, r *http.Request) error {
	// An id that names no conversation is answered before the query is
	// read, as the service answers it before checking the rest.
	id, err := httpx.PathID(r, "conversation")
	if err != nil {
		return err
	}
	q := httpx.NewQuery(r.URL.Query())
	limit := q.Whole("limit", guide.MessageLimitRange)
	if err := q.Err(); err != nil {
		return err
	}
	page, err := s.svc.Messages(r.Context(), caller(r.Context()), guide.MessageSearch{ConversationID: id,
		Limit: limit, Cursor: r.URL.Query().Get("cursor")})
	return writeItem(w, r, http.StatusOK, page, err)
}

func (s *Server) handleMessageSend(w http.ResponseWriter, r *http.Request) error {
	// An id that names no conversation is answered before the body is read.
	id, err := httpx.PathID(r, "conversation")
	if err != nil {
		return err
	}
	var in guide.MessageRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	msg, created, err := s.svc.SendMessage(r.Context(), caller(r.Context()), id, in)
	return writeItem(w, r, createdOr(created), msg, err)
}

func (s *Server) handleConversationRead(w http.ResponseWriter, r *http.Request) error {
	n, err := s.svc.MarkRead(r.Context(), caller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{struct {
		MarkedCount int `json:"markedCount"`
	}{n}})
	return nil
}

func (s *Server) handleUnreadCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.svc.UnreadCount(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{struct {
		UnreadCount int `json:"unreadCount"`
	}{n}})
	return nil
}

func (s *Server) handleRealtimeToken(w http.ResponseWriter, r *http.Request) error {
	t, err := s.svc.RealtimeToken(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, t)
	return nil
}

func (s *Server) handleAvailability(w http.ResponseWriter, r *http.Request) error {
	a, err := s.svc.Availability(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, a)
	return nil
}
