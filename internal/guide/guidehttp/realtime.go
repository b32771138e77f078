package guidehttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// Live is the realtime chat channel's engine (realtime.Engine).
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
		s.cfg.Logger.ErrorContext(r.Context(), "realtime: disconnect closed account", "user", userID, "err", err)
	}
}
