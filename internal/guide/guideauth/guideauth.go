// Package guideauth authenticates a request to any door of the guide
// marketplace (REST, MCP, OCTO) once into a *guide.Caller, and meters the
// API key or application token it carries, the same way whatever the
// protocol.
package guideauth

import (
	"context"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
)

// SessionCookie is the name of the web session cookie.
const SessionCookie = "gm_session"

// Rule says who may call an endpoint.
type Rule struct {
	Scope    string // an API key needs this scope; "" means API keys are refused
	Cookie   bool   // the web session cookie is accepted as well as a bearer token
	AnyScope bool   // any API key of the user is accepted (pending actions)
}

// Authenticator resolves the credentials of a request for the service's
// accounts and meters API keys.
type Authenticator struct {
	Service *guide.Service
	// OAuth is the authorization server whose access tokens are taken as
	// API keys of their grants.
	OAuth   *oauth.Server
	Limiter ratelimit.Limiter
	Metrics *httpx.Metrics // may be nil
}

var errNoCredentials = apperr.Errorf(apperr.Unauthorized, "Authentication required: send \"Authorization: Bearer <token or API key>\".")

// Authenticate resolves the credentials of r: a bearer user token, a bearer
// API key (by its prefix), an application's access token, or, where the
// rule allows, the session cookie. w, when not nil, receives the
// challenge an application needs to ask for a token or a scope.
func (a *Authenticator) Authenticate(w http.ResponseWriter, r *http.Request, rl Rule) (*guide.Caller, error) {
	ctx := r.Context()
	bearer, hasAuth, err := httpx.BearerToken(r)
	if err != nil {
		return nil, err
	}
	if !hasAuth {
		if rl.Cookie {
			if ck, err := r.Cookie(SessionCookie); err == nil && ck.Value != "" {
				return a.sessionCaller(r, ck.Value)
			}
		}
		return nil, errNoCredentials
	}
	if app := oauth.IsAccessToken(bearer); app || auth.IsAPIKey(bearer) {
		var key *guide.APIKey
		var user *guide.User
		if app {
			key, user, err = a.grantCaller(ctx, bearer)
		} else {
			key, user, err = a.Service.Accounts.FindAPIKeyByHash(ctx, auth.HashAPIKey(bearer))
		}
		if err != nil {
			if app && w != nil {
				w.Header().Set("WWW-Authenticate", mcpx.TokenChallenge(a.Service.PublicURL))
			}
			return nil, err
		}
		switch {
		case rl.AnyScope:
		case rl.Scope == "":
			return nil, apperr.Errorf(apperr.Forbidden, "This endpoint accepts user tokens only; API keys and applications' tokens cannot call it.")
		case !key.HasScope(rl.Scope):
			e := apperr.Errorf(apperr.Scope, "The API key lacks the %s scope this endpoint needs.", rl.Scope)
			if app {
				e = apperr.Errorf(apperr.Scope, "The person has not granted this application the %s scope this endpoint needs.", rl.Scope)
				a.challengeScope(w, rl.Scope)
			}
			e.Details = map[string]any{"requiredScope": rl.Scope}
			return nil, e
		}
		httpx.SetCredential(ctx, key.ID, key.OAuthClientID)
		return &guide.Caller{User: user, APIKey: key}, nil
	}
	userID, err := a.Service.Tokens.Verify(bearer)
	if err != nil {
		return nil, apperr.Errorf(apperr.Unauthorized, "The token is invalid or expired.")
	}
	user, err := a.Service.Accounts.FindUserByID(ctx, userID)
	if apperr.Code(err) == apperr.NotFound {
		return nil, apperr.Errorf(apperr.Unauthorized, "The token's account is closed or does not exist.")
	} else if err != nil {
		return nil, err
	}
	return &guide.Caller{User: user}, nil
}

// sessionCaller authenticates by the session cookie. A state-changing
// request that carries only the cookie must come from our own origin, so a
// cross-site form or script cannot ride on it.
func (a *Authenticator) sessionCaller(r *http.Request, value string) (*guide.Caller, error) {
	if !httpx.SameOrigin(r) {
		return nil, apperr.Errorf(apperr.Forbidden, "Cross-site request refused: requests authenticated by the session cookie must come from this site.")
	}
	user, err := a.Service.Accounts.FindSessionUser(r.Context(), guide.HashSession(value))
	if apperr.Code(err) == apperr.NotFound {
		return nil, apperr.Errorf(apperr.Unauthorized, "The session has expired or was ended.")
	} else if err != nil {
		return nil, err
	}
	return &guide.Caller{User: user, Session: true}, nil
}

// grantCaller authenticates an access token: the caller is its grant (an
// API key of the person's, with the scopes granted) and its person.
func (a *Authenticator) grantCaller(ctx context.Context, token string) (*guide.APIKey, *guide.User, error) {
	t, err := a.OAuth.Verify(ctx, token)
	if err != nil {
		return nil, nil, err
	}
	return a.Service.Accounts.FindGrant(ctx, t.GrantID)
}

// challengeScope tells an application what to ask the person for: the
// challenge of an insufficient_scope refusal (RFC 6750, section 3.1).
func (a *Authenticator) challengeScope(w http.ResponseWriter, scope string) {
	if w != nil {
		w.Header().Set("WWW-Authenticate", mcpx.ScopeChallenge(a.Service.PublicURL, scope))
	}
}

// Meter counts one request of key (one message of a JSON-RPC batch)
// against the key's rate limit, with the rate limit headers on w, and
// records that the key was used. Errors: apperr.RateLimited,
// apperr.Unavailable (the limiter cannot answer).
func (a *Authenticator) Meter(w http.ResponseWriter, r *http.Request, key *guide.APIKey) error {
	a.Service.KeyUsage.Record(key.ID, a.Service.Clock.Now())
	return httpx.RateLimitCounted(a.Metrics, a.Limiter, func(*http.Request) (string, ratelimit.Limit) {
		return "guide:key:" + key.ID, ratelimit.PerMinute(key.RateLimit)
	}, func(http.ResponseWriter, *http.Request) error { return nil })(w, r)
}
