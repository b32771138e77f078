package guidehttp

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

// sessionCookie is the name of the web session cookie.
const sessionCookie = "gm_session"

// rule says who may call an endpoint.
type rule struct {
	scope    string // an API key needs this scope; "" means API keys are refused
	cookie   bool   // the web session cookie is accepted as well as a bearer token
	anyScope bool   // any API key of the user is accepted (pending actions)
}

var (
	userOnly      = rule{}
	userOrSession = rule{cookie: true}
	anyKey        = rule{anyScope: true}
)

// keyOr returns the rule of an endpoint open to user tokens and to API
// keys holding scope.
func keyOr(scope string) rule { return rule{scope: scope} }

type callerKey struct{}

// caller returns the authenticated caller of a request behind s.authed.
func caller(ctx context.Context) *guide.Caller {
	c, _ := ctx.Value(callerKey{}).(*guide.Caller)
	return c
}

// authed registers a handler that runs only for a caller the rule admits.
func (s *Server) authed(pattern string, rl rule, h httpx.HandlerFunc) {
	s.router.Handle(pattern, httpx.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.authenticate(w, r, rl)
		if err != nil {
			return err
		}
		r = r.WithContext(context.WithValue(r.Context(), callerKey{}, c))
		if c.APIKey != nil {
			s.cfg.KeyUsage.Record(c.APIKey.ID, s.cfg.Clock.Now())
			return httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, func(*http.Request) (string, ratelimit.Limit) {
				return "guide:key:" + c.APIKey.ID, ratelimit.PerMinute(c.APIKey.RateLimit)
			}, h)(w, r)
		}
		return h(w, r)
	}))
}

var errNoCredentials = apperr.Errorf(apperr.Unauthorized, "Authentication required: send \"Authorization: Bearer <token or API key>\".")

// authenticate resolves the credentials of r: a bearer user token, a bearer
// API key (by its prefix), or, where the rule allows, the session cookie.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, rl rule) (*guide.Caller, error) {
	ctx := r.Context()
	bearer, hasAuth, err := httpx.BearerToken(r)
	if err != nil {
		return nil, err
	}
	if !hasAuth {
		if rl.cookie {
			if ck, err := r.Cookie(sessionCookie); err == nil && ck.Value != "" {
				return s.sessionCaller(r, ck.Value)
			}
		}
		return nil, errNoCredentials
	}
	if app := oauth.IsAccessToken(bearer); app || auth.IsAPIKey(bearer) {
		var key *guide.APIKey
		var user *guide.User
		if app {
			key, user, err = s.grantCaller(ctx, bearer)
		} else {
			key, user, err = s.cfg.Accounts.FindAPIKeyByHash(ctx, auth.HashAPIKey(bearer))
		}
		if err != nil {
			if app && w != nil {
				w.Header().Set("WWW-Authenticate", mcpx.TokenChallenge(s.cfg.PublicURL))
			}
			return nil, err
		}
		switch {
		case rl.anyScope:
		case rl.scope == "":
			return nil, apperr.Errorf(apperr.Forbidden, "This endpoint accepts user tokens only; API keys and applications' tokens cannot call it.")
		case !key.HasScope(rl.scope):
			e := apperr.Errorf(apperr.Scope, "The API key lacks the %s scope this endpoint needs.", rl.scope)
			if app {
				e = apperr.Errorf(apperr.Scope, "The person has not granted this application the %s scope this endpoint needs.", rl.scope)
				s.challengeScope(w, rl.scope)
			}
			e.Details = map[string]any{"requiredScope": rl.scope}
			return nil, e
		}
		httpx.SetCredential(ctx, key.ID, key.OAuthClientID)
		return &guide.Caller{User: user, APIKey: key}, nil
	}
	userID, err := s.cfg.Tokens.Verify(bearer)
	if err != nil {
		return nil, apperr.Errorf(apperr.Unauthorized, "The token is invalid or expired.")
	}
	user, err := s.cfg.Accounts.FindUserByID(ctx, userID)
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
func (s *Server) sessionCaller(r *http.Request, value string) (*guide.Caller, error) {
	if !httpx.SameOrigin(r) {
		return nil, apperr.Errorf(apperr.Forbidden, "Cross-site request refused: requests authenticated by the session cookie must come from this site.")
	}
	user, err := s.cfg.Accounts.FindSessionUser(r.Context(), guide.HashSession(value))
	if apperr.Code(err) == apperr.NotFound {
		return nil, apperr.Errorf(apperr.Unauthorized, "The session has expired or was ended.")
	} else if err != nil {
		return nil, err
	}
	return &guide.Caller{User: user, Session: true}, nil
}
