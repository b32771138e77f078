package propertyhttp

import (
	"net/http"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/webui"
	"github.com/wayfarer-asia/platform/internal/property"
)

// sessionPath is the Path of the session cookie: the portal's pages and its
// API, nothing else.
const sessionPath = "/portal"

// webRoutes registers the web pages of the property server: the developer
// portal (/portal/) with the endpoints that tell the page whether it is
// signed in, turn a portal token into the session cookie and clear it, and
// the API reference (/docs/; the error-code pages under /docs/errors/ are
// registered with the API).
func (s *Server) webRoutes() {
	webui.Portal().Register(s.router)
	webui.Docs(webui.DocsConfig{
		Title: "Property Platform Open API",
		API:   httpx.PropertyAPI,
		Links: []webui.Link{{Text: "Developer portal", Href: "/portal/"}},
	}).Register(s.router)
	s.router.Handle("GET /portal/session", s.sessionLimited(s.handleSession))
	s.router.Handle("POST /portal/session", s.sessionLimited(s.handleSessionCreate))
	s.router.Handle("POST /portal/logout", s.sessionLimited(s.handleLogout))
}

// sessionLimited limits the session endpoints per client IP as the portal
// API, and refuses their changes cross-site: a page of another site must
// neither sign the browser in to an account of its choosing nor sign it
// out (reading the session is a GET, which another site cannot read).
func (s *Server) sessionLimited(h httpx.HandlerFunc) http.Handler {
	return httpx.Adapt(httpx.RateLimit(s.cfg.Limiter, func(r *http.Request) (string, ratelimit.Limit) {
		return "property:portal:" + httpx.ClientIP(r.Context()).String(), s.cfg.PortalLimit
	}, func(w http.ResponseWriter, r *http.Request) error {
		if !httpx.SameOrigin(r) {
			return apperr.Errorf(apperr.Forbidden, "Cross-site request refused: the portal session is set and cleared only by the portal's own pages.")
		}
		w.Header().Set("Cache-Control", "no-store")
		return h(w, r)
	}))
}

// session is the answer of GET /portal/session.
type session struct {
	SignedIn  bool                `json:"signedIn"`
	Developer *property.Developer `json:"developer"` // null when signed out
}

// handleSession tells the portal page whether this browser is signed in,
// and as whom, always with 200: the page opens signed out without a failed
// request, which browsers log as an error (GET /portal/api/me answers 401
// then). A cookie that no longer signs in (an expired token, an account
// that is gone) is cleared.
func (s *Server) handleSession(w http.ResponseWriter, r *http.Request) error {
	ck, err := r.Cookie(SessionCookie)
	if err != nil || ck.Value == "" {
		httpx.WriteJSON(w, http.StatusOK, session{})
		return nil
	}
	d, err := s.portalDeveloper(r.Context(), ck.Value)
	if apperr.Code(err) == apperr.Unauthorized {
		http.SetCookie(w, s.sessionCookie(r, "", 0))
		httpx.WriteJSON(w, http.StatusOK, session{})
		return nil
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, session{SignedIn: true, Developer: d})
	return nil
}

// handleSessionCreate takes a portal token (from signup or login) and
// keeps it in the session cookie: HttpOnly, so the page's scripts never
// hold it for long; SameSite=Strict; Secure when the client reached us over
// TLS. The answer is the account, as GET /portal/api/me.
func (s *Server) handleSessionCreate(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Token *string `json:"token"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	if in.Token == nil || *in.Token == "" {
		return apperr.Field("token", "is required: the token answered by signup or login")
	}
	token := *in.Token
	if len(token) > httpx.MaxCredential || auth.IsAPIKey(token) {
		return apperr.Errorf(apperr.Unauthorized, "The session takes a portal token from signup or login, not an API key.")
	}
	id, err := s.cfg.PortalTokens.Verify(token)
	if err != nil {
		return apperr.Errorf(apperr.Unauthorized, "The portal token is invalid or expired; sign in again.")
	}
	d, err := s.svc.DeveloperOfSession(r.Context(), id)
	if err != nil {
		return err
	}
	http.SetCookie(w, s.sessionCookie(r, token, auth.UserTokenTTL))
	httpx.WriteJSON(w, http.StatusOK, struct {
		Developer *property.Developer `json:"developer"`
	}{d})
	return nil
}

// handleLogout clears the session cookie. The token it held stays valid
// until it expires, as any portal token does; only this browser forgets it.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) error {
	http.SetCookie(w, s.sessionCookie(r, "", 0))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// sessionCookie is the session cookie holding token for ttl; a zero ttl
// deletes it.
func (s *Server) sessionCookie(r *http.Request, token string, ttl time.Duration) *http.Cookie {
	c := &http.Cookie{
		Name:     SessionCookie,
		Value:    token,
		Path:     sessionPath,
		HttpOnly: true,
		Secure:   httpx.Secure(r.Context()),
		SameSite: http.SameSiteStrictMode,
	}
	if ttl > 0 {
		c.MaxAge = int(ttl / time.Second)
		c.Expires = s.svc.Clock.Now().Add(ttl).UTC()
	} else {
		c.MaxAge = -1
		c.Expires = time.Unix(0, 0).UTC()
	}
	return c
}
