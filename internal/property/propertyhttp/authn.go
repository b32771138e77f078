package propertyhttp

import (
	"context"
	"net/http"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/property"
)

// SessionCookie is the name of the portal's session cookie. It holds a
// portal token, the same as a bearer token; the portal's web pages set it.
const SessionCookie = "pp_session"

type callerCtx struct{}

// caller returns who a request of the open API (or of the portal's
// Properties page, asHost) acts for.
func caller(ctx context.Context) *property.Caller {
	c, _ := ctx.Value(callerCtx{}).(*property.Caller)
	return c
}

// keyed returns the rule of the open API, for a key holding scope (any
// key when scope is ""): every request is counted against a rate limit (the
// key's, or the client IP's when it has no valid key), so that every
// response, 401 and 429 included, carries the X-RateLimit-* headers; then a
// request without a valid key is refused with 401, and a key without the
// scope with 403.
func (s *Server) keyed(scope string) func(httpx.HandlerFunc) httpx.HandlerFunc {
	return func(h httpx.HandlerFunc) httpx.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error {
			key, err := s.authenticateKey(r)
			if err != nil && apperr.Code(err) != apperr.Unauthorized {
				return err
			}
			if key == nil {
				if oauth.IsAccessToken(credential(r)) {
					w.Header().Set("WWW-Authenticate", mcpx.TokenChallenge(s.cfg.PublicURL))
				}
				return httpx.RateLimit(s.cfg.Limiter, s.ipLimit, func(http.ResponseWriter, *http.Request) error { return err })(w, r)
			}
			scoped := func(w http.ResponseWriter, r *http.Request) error {
				if scope != "" && !key.HasScope(scope) {
					e := apperr.Errorf(apperr.Scope, "The API key lacks the %s scope this endpoint needs.", scope)
					if key.OAuthClientID != "" {
						e = apperr.Errorf(apperr.Scope, "The developer has not granted this application the %s scope this endpoint needs.", scope)
						w.Header().Set("WWW-Authenticate", mcpx.ScopeChallenge(s.cfg.PublicURL, scope))
					}
					e.Details = map[string]any{"requiredScope": scope}
					return e
				}
				return h(w, r.WithContext(context.WithValue(r.Context(), callerCtx{}, key.Caller())))
			}
			return s.meterKey(w, r, key, scoped)
		}
	}
}

// meterKey counts a request of key against its rate limit and usage, then
// runs h unless the budget is spent.
func (s *Server) meterKey(w http.ResponseWriter, r *http.Request, key *property.Key, h httpx.HandlerFunc) error {
	err := httpx.RateLimit(s.cfg.Limiter, func(*http.Request) (string, ratelimit.Limit) {
		return "property:key:" + key.ID, s.cfg.KeyLimit
	}, h)(w, r)
	s.svc.RecordUsage(key.ID, apperr.Code(err) == apperr.RateLimited)
	return err
}

// open registers an open API handler that needs scope.
func (s *Server) open(pattern, scope string, h httpx.HandlerFunc) {
	s.router.Handle(pattern, httpx.Adapt(s.keyed(scope)(h)))
}

// ipLimited registers a handler that needs no key, limited per client IP.
func (s *Server) ipLimited(pattern string, h httpx.HandlerFunc) {
	s.router.Handle(pattern, httpx.Adapt(httpx.RateLimit(s.cfg.Limiter, s.ipLimit, h)))
}

// portalLimit is the budget of a portal API request, per client IP.
func (s *Server) portalLimit(r *http.Request) (string, ratelimit.Limit) {
	ip := httpx.ClientIP(r.Context()).String()
	if s.portalAuthPaths[r.URL.Path] {
		return "property:portal-auth:" + ip, s.cfg.PortalAuthLimit
	}
	return "property:portal:" + ip, s.cfg.PortalLimit
}

func (s *Server) ipLimit(r *http.Request) (string, ratelimit.Limit) {
	return "property:ip:" + httpx.ClientIP(r.Context()).String(), s.cfg.KeyLimit
}

var errNoKey = apperr.Errorf(apperr.Unauthorized, "An API key is required: send it as \"X-API-KEY: <key>\" or \"Authorization: Bearer <key>\".")

// credential is the key or token a request carries, unchecked: X-API-KEY,
// or else the bearer credential.
func credential(r *http.Request) string {
	if v := strings.TrimSpace(r.Header.Get("X-API-KEY")); v != "" {
		return v
	}
	bearer, _, _ := httpx.BearerToken(r)
	return bearer
}

// authenticateKey returns the working key of the request, from X-API-KEY
// or else Authorization: Bearer, or the grant of an application's access
// token. Errors: apperr.Unauthorized.
func (s *Server) authenticateKey(r *http.Request) (*property.Key, error) {
	value := strings.TrimSpace(r.Header.Get("X-API-KEY"))
	if value == "" {
		bearer, ok, err := httpx.BearerToken(r)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errNoKey
		}
		value = bearer
	}
	if len(value) > httpx.MaxCredential {
		return nil, property.ErrInvalidKey
	}
	var key *property.Key
	var err error
	if oauth.IsAccessToken(value) {
		var t *oauth.AccessToken
		if t, err = s.cfg.OAuth.Verify(r.Context(), value); err == nil {
			key, err = s.svc.KeyByGrant(r.Context(), t.GrantID)
		}
	} else {
		key, err = s.svc.KeyBySecret(r.Context(), value)
	}
	if err != nil {
		return nil, err
	}
	httpx.SetCredential(r.Context(), key.ID, key.OAuthClientID)
	return key, nil
}

type developerCtx struct{}

// developer returns the portal account of a request behind s.portal.
func developer(ctx context.Context) *property.Developer {
	d, _ := ctx.Value(developerCtx{}).(*property.Developer)
	return d
}

// portalCaller returns the developer of a portal request as the caller of
// the account's operations.
func portalCaller(ctx context.Context) *property.Caller {
	return &property.Caller{DeveloperID: developer(ctx).ID}
}

// portalLimited is the rule of the portal API: every request is counted
// per client IP (portalLimit), so that every answer carries the
// X-RateLimit-* headers.
func (s *Server) portalLimited(h httpx.HandlerFunc) httpx.HandlerFunc {
	return httpx.RateLimit(s.cfg.Limiter, s.portalLimit, h)
}

// portalAuth registers signup or login: no credentials, counted per client
// IP against PortalAuthLimit.
func (s *Server) portalAuth(pattern string, h httpx.HandlerFunc) {
	_, path, _ := strings.Cut(pattern, " ")
	s.portalAuthPaths[path] = true
	s.router.Handle(pattern, httpx.Adapt(s.portalLimited(h)))
}

// portal registers a portal handler for a developer authenticated by a
// portal token, counted per client IP against PortalLimit.
func (s *Server) portal(pattern string, h httpx.HandlerFunc) {
	s.router.Handle(pattern, httpx.Adapt(s.portalLimited(func(w http.ResponseWriter, r *http.Request) error {
		d, err := s.authenticatePortal(r)
		if err != nil {
			return err
		}
		return h(w, r.WithContext(context.WithValue(r.Context(), developerCtx{}, d)))
	})))
}

// authenticatePortal resolves the portal token of r, from Authorization:
// Bearer or the session cookie. A state-changing request carried by the
// cookie alone must come from the portal's own origin.
func (s *Server) authenticatePortal(r *http.Request) (*property.Developer, error) {
	token, ok, err := httpx.BearerToken(r)
	if err != nil {
		return nil, err
	}
	if !ok {
		ck, err := r.Cookie(SessionCookie)
		if err != nil || ck.Value == "" {
			return nil, apperr.Errorf(apperr.Unauthorized, "Sign in first: send the portal token as \"Authorization: Bearer <token>\".")
		}
		if !httpx.SameOrigin(r) {
			return nil, apperr.Errorf(apperr.Forbidden, "Cross-site request refused: requests authenticated by the session cookie must come from the portal.")
		}
		token = ck.Value
	}
	return s.portalDeveloper(r.Context(), token)
}

// portalDeveloper returns the account of a portal token; a token that is
// not one, has expired or names no account is Unauthorized.
func (s *Server) portalDeveloper(ctx context.Context, token string) (*property.Developer, error) {
	if auth.IsAPIKey(token) {
		return nil, apperr.Errorf(apperr.Unauthorized, "The portal takes a portal token, not an API key; sign in with POST /portal/api/login.")
	}
	id, err := s.cfg.PortalTokens.Verify(token)
	if err != nil {
		return nil, apperr.Errorf(apperr.Unauthorized, "The portal token is invalid or expired; sign in again.")
	}
	return s.svc.DeveloperOfSession(ctx, id)
}
