package propertyhttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/webui"
	"github.com/wayfarer-asia/platform/internal/property"
)

// This file is the property API's side of OAuth (internal/platform/oauth):
// the authorization server's endpoints, the consent page where a developer
// approves an application, and the portal's list of connected apps. An
// access token is a principal like an API key: authenticateKey turns it
// into its grant.

// oauthRoutes registers the authorization server and the connected apps.
func (s *Server) oauthRoutes() {
	s.cfg.OAuth.Register(s.router, func(h httpx.HandlerFunc) httpx.HandlerFunc {
		return httpx.RateLimit(s.cfg.Limiter, s.ipLimit, h)
	}, func(h httpx.HandlerFunc) httpx.HandlerFunc {
		// Registering is rarer than signing in, and each registration is
		// kept: it takes the sign-in limit.
		return httpx.RateLimit(s.cfg.Limiter, func(r *http.Request) (string, ratelimit.Limit) {
			return "property:oauth-register:" + httpx.ClientIP(r.Context()).String(), s.cfg.PortalAuthLimit
		}, h)
	}, s.consentPerson)
	webui.Consent(webui.ConsentConfig{Product: webui.PropertyProduct}).Register(s.router)
	s.portal("GET /portal/api/connected-apps", s.handleConnectedApps)
	s.portal("DELETE /portal/api/connected-apps/{id}", s.handleConnectedAppRevoke)
}

// consentPerson authenticates the developer deciding on an authorization
// request: the portal token or session, never a key or a token.
func (s *Server) consentPerson(r *http.Request) (*oauth.Person, error) {
	d, err := s.authenticatePortal(r)
	if err != nil {
		return nil, err
	}
	return &oauth.Person{ID: d.ID, Scopes: property.Scopes}, nil
}

func (s *Server) handleConnectedApps(w http.ResponseWriter, r *http.Request) error {
	apps, err := s.svc.ConnectedApps(r.Context(), portalCaller(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, struct {
		Data []oauth.ConnectedApp `json:"data"`
	}{apps})
	return nil
}

func (s *Server) handleConnectedAppRevoke(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.RevokeConnectedApp(r.Context(), portalCaller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, struct {
		Data *oauth.RevokedApp `json:"data"`
	}{out})
	return nil
}
