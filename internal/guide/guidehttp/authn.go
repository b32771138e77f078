package guidehttp

import (
	"context"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guideauth"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

var (
	userOnly      = guideauth.Rule{}
	userOrSession = guideauth.Rule{Cookie: true}
	anyKey        = guideauth.Rule{AnyScope: true}
)

// keyOr returns the rule of an endpoint open to user tokens and to API
// keys holding scope.
func keyOr(scope string) guideauth.Rule { return guideauth.Rule{Scope: scope} }

type callerKey struct{}

// caller returns the authenticated caller of a request behind s.authed.
func caller(ctx context.Context) *guide.Caller {
	c, _ := ctx.Value(callerKey{}).(*guide.Caller)
	return c
}

// authed registers a handler that runs only for a caller the rule admits,
// its API key metered.
func (s *Server) authed(pattern string, rl guideauth.Rule, h httpx.HandlerFunc) {
	s.router.Handle(pattern, httpx.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.auth.Authenticate(w, r, rl)
		if err != nil {
			return err
		}
		r = r.WithContext(context.WithValue(r.Context(), callerKey{}, c))
		if c.APIKey != nil {
			if err := s.auth.Meter(w, r, c.APIKey); err != nil {
				return err
			}
		}
		return h(w, r)
	}))
}
