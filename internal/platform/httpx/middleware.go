package httpx

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

type ctxKey struct{}

// requestInfo is what the outermost middleware learns about a request.
type requestInfo struct {
	id       string
	clientIP netip.Addr
	secure   bool // reached us over TLS, directly or through a trusted proxy
	// publicURL is the configured external base URL of the API that
	// serves the request.
	publicURL string
	// keyID and clientID name the credential the request was
	// authenticated with, for its log line: an API key (or an OAuth
	// grant), and the OAuth client whose token it was.
	keyID, clientID string
}

func info(ctx context.Context) *requestInfo {
	if ri, ok := ctx.Value(ctxKey{}).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

// SetCredential records the API key or OAuth grant (keyID) and the OAuth
// client (clientID, "" for a key) that authenticated the request, so that
// its log line says who acted.
func SetCredential(ctx context.Context, keyID, clientID string) {
	if ri, ok := ctx.Value(ctxKey{}).(*requestInfo); ok {
		ri.keyID, ri.clientID = keyID, clientID
	}
}

// RequestID returns the id of the request being served.
func RequestID(ctx context.Context) string { return info(ctx).id }

// ClientIP returns the address of the client, as far as trusted proxies
// vouch for it.
func ClientIP(ctx context.Context) netip.Addr { return info(ctx).clientIP }

// Secure reports whether the client reached us over TLS.
func Secure(ctx context.Context) bool { return info(ctx).secure }

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// AbsoluteURL is path (which starts with "/") on the public base URL of the
// API serving the request, such as "https://api.example.com" + path. The
// base is configured (GUIDE_PUBLIC_URL, PROPERTY_PUBLIC_URL), never taken
// from the request: a forged Host or X-Forwarded-Host header must not
// reach a link that others follow.
func AbsoluteURL(ctx context.Context, path string) string {
	return info(ctx).publicURL + path
}

// Outer is the middleware every request passes first: it assigns the
// request id (kept from X-Request-Id when well formed), works out the client
// address behind trusted proxies, starts the request's span when tracing is
// on (continuing the caller's traceparent), recovers from panics and logs
// the request.
type Outer struct {
	Logger         *slog.Logger
	PublicURL      string // the API's external base URL, without a trailing slash
	TrustedProxies []netip.Prefix
	Server         string   // "guide" or "property", for metrics
	Metrics        *Metrics // may be nil
}

// Wrap applies the middleware to next.
func (o *Outer) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &requestInfo{id: r.Header.Get("X-Request-Id"), publicURL: o.PublicURL}
		if !validRequestID.MatchString(ri.id) {
			ri.id = uuid.Must(uuid.NewV7()).String()
		}
		ri.clientIP, ri.secure = o.client(r)
		w.Header().Set("X-Request-Id", ri.id)
		ctx, span := telemetry.StartRequest(context.WithValue(r.Context(), ctxKey{}, ri), r, ri.id)
		r = r.WithContext(ctx)
		sw := &statusWriter{ResponseWriter: w}
		// Named by the route the mux found, once it is known; ended after
		// the log line below, and on a panic passed on.
		defer func() { span.EndRequest(r.Method, r.Pattern, sw.code()) }()
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				o.Logger.ErrorContext(r.Context(), "panic", "request_id", ri.id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					WriteError(sw, r, fmt.Errorf("panic: %v", p))
				}
			}
			attrs := []slog.Attr{
				slog.String("request_id", ri.id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", sw.code()),
				slog.Int64("bytes", sw.bytes),
				slog.Duration("duration", time.Since(start)),
				slog.String("client", ri.clientIP.String()),
			}
			if ri.keyID != "" {
				attrs = append(attrs, slog.String("key_id", ri.keyID))
			}
			if ri.clientID != "" {
				attrs = append(attrs, slog.String("oauth_client_id", ri.clientID))
			}
			o.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
			o.Metrics.observe(o.Server, r.Pattern, r.Method, sw.code(), time.Since(start))
		}()
		next.ServeHTTP(sw, r)
	})
}

// client returns the client address and whether the client used TLS. A
// proxy's X-Forwarded-For and X-Forwarded-Proto count only when the
// connection comes from a trusted proxy; the client is then the rightmost
// address not itself a trusted proxy.
func (o *Outer) client(r *http.Request) (netip.Addr, bool) {
	secure := r.TLS != nil
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		a, _ := netip.ParseAddr(host)
		return a.Unmap(), secure
	}
	addr := ap.Addr().Unmap()
	if !o.trusted(addr) {
		return addr, secure
	}
	if proto := r.Header.Get("X-Forwarded-Proto"); proto != "" {
		secure = strings.EqualFold(strings.TrimSpace(proto), "https")
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		addr = hop.Unmap()
		if !o.trusted(addr) {
			break
		}
	}
	return addr, secure
}

func (o *Outer) trusted(a netip.Addr) bool {
	for _, p := range o.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// RateLimit counts each request against limit under the key that keyFn
// derives from it, sets the X-RateLimit-* headers, and refuses with 429
// once the budget is spent.
func RateLimit(l ratelimit.Limiter, keyFn func(*http.Request) (string, ratelimit.Limit), next HandlerFunc) HandlerFunc {
	return RateLimitCounted(nil, l, keyFn, next)
}

// RateLimitCounted is RateLimit that also counts each decision in m.
func RateLimitCounted(m *Metrics, l ratelimit.Limiter, keyFn func(*http.Request) (string, ratelimit.Limit), next HandlerFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		key, limit := keyFn(r)
		res, err := l.Allow(r.Context(), key, limit)
		if err != nil {
			// Refuse rather than run unlimited; limiters that may fall back
			// to a local count do so before getting here.
			m.LimiterDecision("error")
			slog.WarnContext(r.Context(), "rate limiter unavailable", "err", err, "request_id", RequestID(r.Context()))
			return &apperr.Error{Code: apperr.Unavailable, Message: "The rate limiter is unavailable; try again shortly.", RetryAfter: 1}
		}
		setRateLimitHeaders(w.Header(), key, limit, res)
		if !res.Allowed {
			m.LimiterDecision("denied")
			secs := int(math.Ceil(res.RetryAfter.Seconds()))
			return &apperr.Error{
				Code:       apperr.RateLimited,
				Message:    fmt.Sprintf("Rate limit of %d requests per %s exceeded; retry in %s.", limit.Rate, period(limit.Period), HumanDuration(time.Duration(secs)*time.Second)),
				RetryAfter: secs,
			}
		}
		m.LimiterDecision("allowed")
		return next(w, r)
	}
}

func logError(r *http.Request, msg string, args ...any) {
	slog.ErrorContext(r.Context(), msg, append(args, "request_id", RequestID(r.Context()))...)
}

func period(d time.Duration) string {
	switch d {
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	}
	return HumanDuration(d)
}

// Router is a ServeMux whose own answers for unknown paths (404) and wrong
// methods (405, with Allow) use the error envelope. The mux is not
// embedded, so that Handle is the only way to add a route.
type Router struct {
	mux      *http.ServeMux
	patterns []string
	trees    []treeRule
}

// treeRule is the rule of the router's own answers under prefix.
type treeRule struct {
	prefix string
	wrap   func(HandlerFunc) HandlerFunc
}

// NewRouter returns an empty router.
func NewRouter() *Router { return &Router{mux: http.NewServeMux()} }

// Handle registers h for pattern and remembers the pattern, so that tests
// can compare the routes served with the routes documented. Before h runs,
// the path values and query parameters are checked to be text
// (checkURLText): no route can forget it.
func (rt *Router) Handle(pattern string, h http.Handler) {
	rt.patterns = append(rt.patterns, pattern)
	rt.mux.Handle(pattern, rt.checkURLText(pathParams(pattern), h))
}

// HandleTree makes the router's own answers to a request under prefix (a
// path ending in "/"; the path without its slash too) go through wrap: the
// 400 for a path or query that is not text, the 404 and the 405. An API's
// rule for its whole tree, such as authentication and rate limiting, then
// holds for what no route of it answers.
func (rt *Router) HandleTree(prefix string, wrap func(HandlerFunc) HandlerFunc) {
	rt.trees = append(rt.trees, treeRule{prefix, wrap})
}

// answer sends the router's own answer, through the rule of its tree.
func (rt *Router) answer(w http.ResponseWriter, r *http.Request, h HandlerFunc) {
	for _, t := range rt.trees {
		if strings.HasPrefix(r.URL.Path, t.prefix) || r.URL.Path+"/" == t.prefix {
			h = t.wrap(h)
			break
		}
	}
	Adapt(h).ServeHTTP(w, r)
}

// Patterns lists the registered patterns in registration order.
func (rt *Router) Patterns() []string { return append([]string(nil), rt.patterns...) }

// ServeHTTP dispatches r, answering for unmatched requests itself.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, pattern := rt.mux.Handler(r)
	if pattern != "" {
		rt.mux.ServeHTTP(w, r)
		return
	}
	rec := &recorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	rt.answer(w, r, func(w http.ResponseWriter, r *http.Request) error {
		switch rec.status {
		case http.StatusNotFound:
			return apperr.Errorf(apperr.NotFound, "No endpoint at %s %s.", r.Method, r.URL.Path)
		case http.StatusMethodNotAllowed:
			w.Header().Set("Allow", rec.header.Get("Allow"))
			return apperr.Errorf(apperr.MethodNotAllowed, "%s is not allowed here; allowed: %s.", r.Method, rec.header.Get("Allow"))
		default: // the mux's redirects to a cleaned path
			for k, v := range rec.header {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.status)
			w.Write(rec.body.Bytes())
			return nil
		}
	})
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}
