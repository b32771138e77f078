package httpx

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Headers of cross-origin requests (CORS). The APIs authenticate with
// headers, never cookies, so no answer allows credentials: a browser app
// sends its token or key in Authorization or X-API-KEY, which the
// preflight allows.
const (
	corsAllowHeaders  = "Authorization, X-API-KEY, Idempotency-Key, X-Request-Id, Content-Type, If-None-Match"
	corsExposeHeaders = "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, " +
		"RateLimit, RateLimit-Policy, Retry-After, Idempotent-Replayed, ETag, Location"
	corsAllowMethods = "GET, HEAD, POST, PUT, DELETE"
	corsMaxAge       = 600 // seconds a browser may keep a preflight's answer
)

// CORS answers the cross-origin questions of browsers. A preflight (OPTIONS
// with Origin and Access-Control-Request-Method) is answered here, before
// any route, authentication or rate limit; other requests from an allowed
// origin get the Access-Control-Allow-Origin and -Expose-Headers fields.
//
// Origins lists the origins allowed on every route ("*": any). When it is
// empty, the public reads (Public reports them) allow any origin and
// everything else allows none.
type CORS struct {
	Origins []string
	// Public reports whether method and path are open to any origin when
	// Origins is empty: the public reads, and endpoints that take no
	// credential a browser holds for its person (OAuth's token endpoint).
	// Nil: none is.
	Public func(method, path string) bool
}

// Wrap applies the rules to next.
func (c *CORS) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		method := r.Method
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if preflight {
			method = r.Header.Get("Access-Control-Request-Method")
		}
		allow, varies := c.allow(origin, method, r.URL.Path)
		if varies {
			h.Add("Vary", "Origin")
		}
		if preflight {
			h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
			if allow != "" {
				h.Set("Access-Control-Allow-Origin", allow)
				h.Set("Access-Control-Allow-Methods", corsAllowMethods)
				h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
				h.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
			}
			// Without the allow fields the browser refuses the request
			// itself; the answer is the same 204 either way, so that a
			// preflight tells nothing of what lies behind the path.
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if allow != "" {
			h.Set("Access-Control-Allow-Origin", allow)
			h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		}
		next.ServeHTTP(w, r)
	})
}

// allow returns the Access-Control-Allow-Origin value for origin asking
// for method on path ("" when refused) and whether the answer depends on
// the origin (then Vary: Origin).
func (c *CORS) allow(origin, method, path string) (string, bool) {
	if len(c.Origins) == 0 {
		if c.Public != nil && c.Public(method, path) {
			return "*", false
		}
		return "", false
	}
	for _, o := range c.Origins {
		if o == "*" {
			return "*", false
		}
		if strings.EqualFold(o, origin) {
			return origin, true
		}
	}
	return "", true
}

// Pattern returns the pattern of the route that would answer method on
// path, or "" when none would; the CORS rules use it to tell a public read
// from a preflight, whose own method is OPTIONS.
func (rt *Router) Pattern(method, path string) string {
	_, pattern := rt.mux.Handler(&http.Request{Method: method, URL: &url.URL{Path: path}})
	return pattern
}
