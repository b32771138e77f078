package guidehttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/webui"
)

// This file is the guide API's side of OAuth (internal/platform/oauth):
// the authorization server's endpoints, the consent page where a person
// approves an application, and the person's list of connected apps. An
// access token is a principal like an API key: guideauth turns it into
// the caller of its grant.

// oauthRoutes registers the authorization server and the connected apps.
func (s *Server) oauthRoutes() {
	s.cfg.OAuth.Register(s.router, func(h httpx.HandlerFunc) httpx.HandlerFunc {
		return httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.publicKey, h)
	}, func(h httpx.HandlerFunc) httpx.HandlerFunc {
		// Registering is rarer than signing in, and each registration is
		// kept: it takes the sign-in limit.
		return httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.authKey, h)
	}, s.consentPerson)
	// The protocol's endpoints take no cookie: any origin may call them
	// (browser-based clients do).
	for _, p := range oauth.Routes.Protocol {
		s.publicReads[p] = true
	}
	webui.Consent(webui.ConsentConfig{Product: webui.GuideProduct}).Register(s.router)
	webui.ConnectedApps().Register(s.router)
	s.authed("GET /api/v1/profile/connected-apps", userOnly, s.handleConnectedApps)
	s.authed("DELETE /api/v1/profile/connected-apps/{id}", userOnly, s.handleConnectedAppRevoke)
}

// consentPerson authenticates the person deciding on an authorization
// request: a user token or the web session, never a key or a token of
// another application.
func (s *Server) consentPerson(r *http.Request) (*oauth.Person, error) {
	c, err := s.auth.Authenticate(nil, r, userOrSession)
	if err != nil {
		return nil, err
	}
	return &oauth.Person{ID: c.User.ID, Scopes: guide.Scopes}, nil
}

func (s *Server) handleConnectedApps(w http.ResponseWriter, r *http.Request) error {
	apps, err := s.svc.ConnectedApps(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{apps})
	return nil
}

func (s *Server) handleConnectedAppRevoke(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.RevokeConnectedApp(r.Context(), caller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{out})
	return nil
}
