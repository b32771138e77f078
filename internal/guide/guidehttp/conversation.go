package guidehttp

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

func (s *Server) handleConversationList(w http.ResponseWriter, r *http.Request) error {
	cs, err := s.cfg.Conversations.FindConversations(r.Context(), caller(r.Context()).User)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), cs...)
	httpx.WriteJSON(w, http.StatusOK, item{cs})
	return nil
}

func (s *Server) handleConversationOpen(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ExpertHandle *string `json:"expertHandle"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	handle := httpx.CheckString(errs, "expertHandle", in.ExpertHandle, true, 1, 100)
	if err := errs.Err(); err != nil {
		return err
	}
	c, created, err := s.cfg.Conversations.OpenConversation(r.Context(), caller(r.Context()).User, handle)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	httpx.ResolveMedia(r.Context(), c)
	httpx.WriteJSON(w, status, item{c})
	return nil
}

func (s *Server) handleMessageList(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "conversation")
	if err != nil {
		return err
	}
	q := httpx.NewQuery(r.URL.Query())
	limit := q.Int("limit", 50, 1, 100)
	cursor := q.String("cursor", 64)
	if err := q.Err(); err != nil {
		return err
	}
	page, err := s.cfg.Conversations.FindMessages(r.Context(), caller(r.Context()).User, id, cursor, limit)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), page)
	httpx.WriteJSON(w, http.StatusOK, item{page})
	return nil
}

func (s *Server) handleMessageSend(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "conversation")
	if err != nil {
		return err
	}
	var in struct {
		Content           *string `json:"content"`
		MessageType       *string `json:"messageType"`
		RealtimeMessageID *string `json:"realtimeMessageId"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	m := guide.NewMessage{MessageType: guide.MessageText, RealtimeMessageID: in.RealtimeMessageID}
	m.Content = httpx.CheckString(errs, "content", in.Content, true, 1, 5000)
	if in.Content != nil && strings.TrimSpace(*in.Content) == "" {
		errs.Add("content", "must not be blank")
	}
	if in.MessageType != nil {
		switch *in.MessageType {
		case guide.MessageText:
		case guide.MessageImage:
			if u, err := url.Parse(m.Content); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				errs.Add("content", "must be the image's http(s) URL for an IMAGE message")
			}
		default:
			errs.Add("messageType", "must be TEXT or IMAGE")
		}
		m.MessageType = *in.MessageType
	}
	httpx.CheckString(errs, "realtimeMessageId", in.RealtimeMessageID, false, 1, 200)
	if err := errs.Err(); err != nil {
		return err
	}
	msg, created, err := s.cfg.Conversations.SendMessage(r.Context(), caller(r.Context()).User, id, m, s.cfg.AIReplies)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	httpx.ResolveMedia(r.Context(), msg)
	httpx.WriteJSON(w, status, item{msg})
	return nil
}

func (s *Server) handleConversationRead(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "conversation")
	if err != nil {
		return err
	}
	n, err := s.cfg.Conversations.MarkRead(r.Context(), caller(r.Context()).User, id)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{struct {
		MarkedCount int `json:"markedCount"`
	}{n}})
	return nil
}

func (s *Server) handleUnreadCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.cfg.Conversations.UnreadCount(r.Context(), caller(r.Context()).User)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{struct {
		UnreadCount int `json:"unreadCount"`
	}{n}})
	return nil
}

func (s *Server) handleRealtimeToken(w http.ResponseWriter, r *http.Request) error {
	u := caller(r.Context()).User
	token, exp, err := s.cfg.Realtime.Issue(u.ID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, struct {
		AppID     string    `json:"appId"`
		UserID    string    `json:"userId"`
		Token     string    `json:"token"`
		ExpiresAt time.Time `json:"expiresAt"`
	}{s.cfg.Realtime.AppID, u.ID, token, exp})
	return nil
}

func (s *Server) handleAvailability(w http.ResponseWriter, r *http.Request) error {
	a, err := s.cfg.Conversations.FindAvailability(r.Context(), caller(r.Context()).User)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, a)
	return nil
}
