package propertyapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/wayfarer-asia/platform/internal/apperr"
	"github.com/wayfarer-asia/platform/internal/auth"
	"github.com/wayfarer-asia/platform/internal/httpapi"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/ratelimit"
)

// SessionCookie is the name of the portal's session cookie. It holds a
// portal token, the same as a bearer token; the portal's web pages set it.
const SessionCookie = "pp_session"

// openAPIPath is the one path under /api/v1 that needs no key.
const openAPIPath = "/api/v1/openapi.json"

type keyCtx struct{}

// callerKey returns the API key of a request that passed the gate.
func callerKey(ctx context.Context) *property.Key {
	k, _ := ctx.Value(keyCtx{}).(*property.Key)
	return k
}

// account returns whose inventory and bookings the request acts on.
func account(ctx context.Context) property.Account {
	k := callerKey(ctx)
	return property.Account{DeveloperID: k.DeveloperID, Test: k.Test()}
}

// gate guards /api/v1 and /portal/api before routing, so that every
// response there, the router's own 400, 404 and 405 included, carries the
// X-RateLimit-* headers. On /api/v1 every request is counted against the
// key's limit, or the client IP's when it has no valid key; then a request
// without a valid key is refused with 401 (the OpenAPI document needs
// none). On /portal/api every request is counted per client IP, against
// the smaller budget of signup and login for those.
func (s *Server) gate(next http.Handler) http.Handler {
	serve := func(w http.ResponseWriter, r *http.Request) error {
		next.ServeHTTP(w, r)
		return nil
	}
	portal := httpapi.Adapt(httpapi.RateLimit(s.cfg.Limiter, s.portalLimit, serve))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case strings.HasPrefix(p, "/portal/api/"):
			portal.ServeHTTP(w, r)
			return
		case p != "/api/v1" && !strings.HasPrefix(p, "/api/v1/"):
			next.ServeHTTP(w, r)
			return
		}
		httpapi.Adapt(func(w http.ResponseWriter, r *http.Request) error {
			if r.URL.Path == openAPIPath {
				return httpapi.RateLimit(s.cfg.Limiter, s.ipLimit, serve)(w, r)
			}
			key, err := s.authenticateKey(r)
			if err != nil && apperr.Code(err) != apperr.Unauthorized {
				return err
			}
			if key == nil {
				return httpapi.RateLimit(s.cfg.Limiter, s.ipLimit, func(http.ResponseWriter, *http.Request) error { return err })(w, r)
			}
			err = httpapi.RateLimit(s.cfg.Limiter, func(*http.Request) (string, ratelimit.Limit) {
				return "property:key:" + key.ID, s.cfg.KeyLimit
			}, func(w http.ResponseWriter, r *http.Request) error {
				return serve(w, r.WithContext(context.WithValue(r.Context(), keyCtx{}, key)))
			})(w, r)
			s.cfg.Usage.Record(key.ID, s.cfg.Clock.Now(), apperr.Code(err) == apperr.RateLimited)
			return err
		}).ServeHTTP(w, r)
	})
}

// portalLimit is the budget of a portal API request, per client IP.
func (s *Server) portalLimit(r *http.Request) (string, ratelimit.Limit) {
	ip := httpapi.ClientIP(r.Context()).String()
	if s.portalAuthPaths[r.URL.Path] {
		return "property:portal-auth:" + ip, s.cfg.PortalAuthLimit
	}
	return "property:portal:" + ip, s.cfg.PortalLimit
}

func (s *Server) ipLimit(r *http.Request) (string, ratelimit.Limit) {
	return "property:ip:" + httpapi.ClientIP(r.Context()).String(), s.cfg.KeyLimit
}

var errNoKey = apperr.Errorf(apperr.Unauthorized, "An API key is required: send it as \"X-API-KEY: <key>\" or \"Authorization: Bearer <key>\".")

// authenticateKey returns the working key of the request, from X-API-KEY
// or else Authorization: Bearer. Errors: apperr.Unauthorized.
func (s *Server) authenticateKey(r *http.Request) (*property.Key, error) {
	value := strings.TrimSpace(r.Header.Get("X-API-KEY"))
	if value == "" {
		bearer, ok, err := httpapi.BearerToken(r)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errNoKey
		}
		value = bearer
	}
	if len(value) > httpapi.MaxCredential || !auth.IsAPIKey(value) {
		return nil, apperr.Errorf(apperr.Unauthorized, "The API key is not valid: keys start with pk_test_ or pk_live_.")
	}
	return s.cfg.Accounts.FindKeyByHash(r.Context(), auth.HashAPIKey(value))
}

// open registers an open API handler that needs scope.
func (s *Server) open(pattern, scope string, h httpapi.HandlerFunc) {
	s.router.Handle(pattern, httpapi.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		k := callerKey(r.Context())
		if k == nil { // not through the gate: cannot happen
			return errNoKey
		}
		if !k.HasScope(scope) {
			e := apperr.Errorf(apperr.Scope, "The API key lacks the %s scope this endpoint needs.", scope)
			e.Details = map[string]any{"requiredScope": scope}
			return e
		}
		return h(w, r)
	}))
}

type developerCtx struct{}

// developer returns the portal account of a request behind s.portal.
func developer(ctx context.Context) *property.Developer {
	d, _ := ctx.Value(developerCtx{}).(*property.Developer)
	return d
}

// portalAuth registers signup or login: no credentials, and the gate
// counts them per client IP against PortalAuthLimit.
func (s *Server) portalAuth(pattern string, h httpapi.HandlerFunc) {
	_, path, _ := strings.Cut(pattern, " ")
	s.portalAuthPaths[path] = true
	s.router.Handle(pattern, httpapi.Adapt(h))
}

// portal registers a portal handler for a developer authenticated by a
// portal token; the gate has counted the request per client IP.
func (s *Server) portal(pattern string, h httpapi.HandlerFunc) {
	s.router.Handle(pattern, httpapi.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		d, err := s.authenticatePortal(r)
		if err != nil {
			return err
		}
		return h(w, r.WithContext(context.WithValue(r.Context(), developerCtx{}, d)))
	}))
}

// authenticatePortal resolves the portal token of r, from Authorization:
// Bearer or the session cookie. A state-changing request carried by the
// cookie alone must come from the portal's own origin.
func (s *Server) authenticatePortal(r *http.Request) (*property.Developer, error) {
	token, ok, err := httpapi.BearerToken(r)
	if err != nil {
		return nil, err
	}
	if !ok {
		ck, err := r.Cookie(SessionCookie)
		if err != nil || ck.Value == "" {
			return nil, apperr.Errorf(apperr.Unauthorized, "Sign in first: send the portal token as \"Authorization: Bearer <token>\".")
		}
		if !httpapi.SameOrigin(r) {
			return nil, apperr.Errorf(apperr.Forbidden, "Cross-site request refused: requests authenticated by the session cookie must come from the portal.")
		}
		token = ck.Value
	}
	if auth.IsAPIKey(token) {
		return nil, apperr.Errorf(apperr.Unauthorized, "The portal takes a portal token, not an API key; sign in with POST /portal/api/login.")
	}
	id, err := s.cfg.PortalTokens.Verify(token)
	if err != nil {
		return nil, apperr.Errorf(apperr.Unauthorized, "The portal token is invalid or expired; sign in again.")
	}
	d, err := s.cfg.Accounts.FindDeveloperByID(r.Context(), id)
	if apperr.Code(err) == apperr.NotFound {
		return nil, apperr.Errorf(apperr.Unauthorized, "The portal token's account does not exist.")
	}
	return d, err
}
