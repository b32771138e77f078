package guidehttp

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/chat"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// Live is the realtime chat channel's engine (chat.Engine).
type Live interface {
	// ServeHTTP serves the transports under /api/realtime/connection/.
	http.Handler
	// DisconnectUser drops every connection of a closed account.
	DisconnectUser(userID string) error
}

// realtimeRoutes mounts the realtime channel's transports: WebSocket, and
// the fallbacks (SSE, HTTP streaming, and the emulation endpoint through
// which those send). The connection authenticates itself with the token
// of GET /api/realtime/token, inside the channel's protocol.
func (s *Server) realtimeRoutes() {
	h := httpx.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		if s.cfg.Live == nil {
			return apperr.Errorf(apperr.Unavailable, "The realtime channel is not running on this server.")
		}
		s.cfg.Live.ServeHTTP(w, r)
		return nil
	})
	for _, p := range []string{
		"GET /api/realtime/connection/websocket",
		"GET /api/realtime/connection/sse",
		"POST /api/realtime/connection/sse",
		"POST /api/realtime/connection/http_stream",
		"POST /api/realtime/connection/emulation",
	} {
		s.router.Handle(p, h)
	}
}

// accountClosed drops the realtime connections of a closed account at
// once; tokens it still holds are refused by the channel on connect.
func (s *Server) accountClosed(r *http.Request, userID string) {
	if s.cfg.Live == nil {
		return
	}
	if err := s.cfg.Live.DisconnectUser(userID); err != nil {
		s.svc.Logger.ErrorContext(r.Context(), "realtime: disconnect closed account", "user", userID, "err", err)
	}
}

// ChatStore is what the guide's rules of the chat channel read
// (guidedb.Guide).
type ChatStore interface {
	// FindUserByID returns an open account. Errors: apperr.NotFound.
	FindUserByID(ctx context.Context, id string) (*guide.User, error)
	// CheckParticipant errors: apperr.NotFound, apperr.Forbidden.
	CheckParticipant(ctx context.Context, userID, conversationID string) error
}

// ChatRules are the guide's rules of the chat channel (chat.Config.Rules):
// open accounts connect, a conversation's participants join its channel,
// and a draft is checked as POST /api/v1/conversations/{id}/messages
// checks a message.
func ChatRules(s ChatStore) chat.Rules { return chatRules{s} }

type chatRules struct{ ChatStore }

func (r chatRules) CheckUser(ctx context.Context, userID string) error {
	_, err := r.FindUserByID(ctx, userID)
	return err
}

func (chatRules) CheckDraft(content, messageType *string) (text, kind string, err error) {
	errs := apperr.FieldErrors{}
	kind = guide.MessageText
	text = field.CheckString(errs, "content", content, true, 1, 5000)
	if content != nil && strings.TrimSpace(*content) == "" {
		errs.Add("content", "must not be blank")
	}
	if messageType != nil {
		switch *messageType {
		case guide.MessageText:
		case guide.MessageImage:
			if u, err := url.Parse(text); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				errs.Add("content", "must be the image's http(s) URL for an IMAGE message")
			}
		default:
			errs.Add("messageType", "must be TEXT or IMAGE")
		}
		kind = *messageType
	}
	return text, kind, errs.Err()
}
