// Package propertyhttp serves the property platform open API over HTTP: the
// integrators' API under /api/v1, authenticated by API key, and the
// developer portal's API under /portal/api, authenticated by a portal
// token.
package propertyhttp

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/property"
)

// Config is what the property API's HTTP door needs to serve. Zero limits
// take the defaults noted.
type Config struct {
	// Service is the property platform, built once by the wiring and
	// shared by every door.
	Service *property.Service
	// OAuth is the authorization server of the MCP endpoint, whose access
	// tokens the open API takes as well.
	OAuth *oauth.Server
	// PublicURL is the API's external base URL (PROPERTY_PUBLIC_URL), such
	// as "https://api.example.com", without a trailing slash: every
	// absolute URL in a response (images, doc_url) is built on it.
	PublicURL   string
	Idempotency idempotency.Store
	// Events is the change feed; Webhooks the portal's webhook endpoints,
	// whose URLs WebhookPolicy judges.
	Events        *changes.Feed
	Webhooks      *changes.Endpoints
	WebhookPolicy changes.Policy
	// PortalTokens issues and verifies the portal's tokens; give it a
	// secret of its own, not the guide API's.
	PortalTokens *auth.Tokens
	Limiter      ratelimit.Limiter
	// KeyLimit is the budget of each API key, and of each client IP for
	// requests without a valid key (PROPERTY_RATE_LIMIT; default 60 a
	// minute).
	KeyLimit ratelimit.Limit
	// PortalAuthLimit bounds signup and login per client IP (default 10
	// per 15 minutes); PortalLimit the other portal requests (default 120 a
	// minute).
	PortalAuthLimit ratelimit.Limit
	PortalLimit     ratelimit.Limit
	TrustedProxies  []netip.Prefix
	Logger          *slog.Logger
	OpenAPI         []byte              // the OpenAPI document as JSON
	Metrics         *httpx.Metrics      // may be nil
	Gatherer        prometheus.Gatherer // served at /metrics; nil: an empty registry
	// MetricsElsewhere leaves /metrics out: it is served on a listener of
	// its own (METRICS_ADDR).
	MetricsElsewhere bool
	ReadyChecks      []httpx.Check // dependencies /readyz asks
	// CORSOrigins are the origins browsers may call every route from
	// (PROPERTY_CORS_ALLOWED_ORIGINS); empty: only the OpenAPI document
	// may be read from any origin. The portal's session cookie is never
	// sent cross-origin: no answer allows credentials.
	CORSOrigins []string
}

// Server is the property API's HTTP handler.
type Server struct {
	cfg     Config
	svc     *property.Service
	router  *httpx.Router
	handler http.Handler
	idem    *idempotency.HTTP
	openAPI *httpx.Precompressed // cfg.OpenAPI, kept gzipped too
	// portalAuthPaths are the portal paths counted against
	// PortalAuthLimit: signup and login.
	portalAuthPaths map[string]bool
}

// New returns the property API with every route registered.
func New(cfg Config) *Server {
	if cfg.KeyLimit.Rate == 0 {
		cfg.KeyLimit = ratelimit.PerMinute(60)
	}
	if cfg.PortalAuthLimit.Rate == 0 {
		cfg.PortalAuthLimit = ratelimit.Limit{Rate: 10, Period: 15 * time.Minute}
	}
	if cfg.PortalLimit.Rate == 0 {
		cfg.PortalLimit = ratelimit.PerMinute(120)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Gatherer == nil {
		cfg.Gatherer = prometheus.NewRegistry()
	}
	s := &Server{cfg: cfg, svc: cfg.Service, router: httpx.NewRouter(), portalAuthPaths: map[string]bool{}}
	s.idem = &idempotency.HTTP{Store: cfg.Idempotency, Account: idempotencyAccount, Render: json.Marshal, Logger: cfg.Logger}
	s.openAPI = &httpx.Precompressed{Body: cfg.OpenAPI}
	s.routes()
	outer := &httpx.Outer{Logger: cfg.Logger, PublicURL: cfg.PublicURL, TrustedProxies: cfg.TrustedProxies, Server: "property", Metrics: cfg.Metrics}
	// The OAuth protocol's endpoints take no cookie: any origin may call
	// them (browser-based clients do).
	anyOrigin := map[string]bool{"GET /api/v1/openapi.json": true}
	for _, p := range oauth.Routes.Protocol {
		anyOrigin[p] = true
	}
	cors := &httpx.CORS{Origins: cfg.CORSOrigins, Public: func(method, path string) bool {
		return anyOrigin[s.router.Pattern(method, path)]
	}}
	s.handler = outer.Wrap(cors.Wrap(httpx.Compress(s.router)))
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

func (s *Server) routes() {
	// The open API: each route authenticates the key, counts the request
	// against the key's rate limit and checks the scope (authn.go).
	s.open("GET /api/v1/properties", property.ScopePropertiesRead, s.handlePropertyList)
	s.open("GET /api/v1/properties/{id}", property.ScopePropertiesRead, s.handlePropertyGet)
	s.open("GET /api/v1/properties/{id}/availability", property.ScopePropertiesRead, s.handleAvailability)
	s.supplyRoutes() // hosts: supply.go
	s.open("POST /api/v1/quotes", property.ScopeBookingsWrite, s.idem.Wrap(http.StatusCreated, nil, s.handleQuoteCreate))
	s.open("GET /api/v1/bookings", property.ScopeBookingsRead, s.handleBookingList)
	s.open("POST /api/v1/bookings", property.ScopeBookingsWrite, s.idem.Wrap(http.StatusCreated, nil, s.handleBookingCreate))
	s.open("GET /api/v1/bookings/{id}", property.ScopeBookingsRead, s.handleBookingGet)
	s.open("POST /api/v1/bookings/{id}/cancel", property.ScopeBookingsWrite, s.idem.Wrap(http.StatusOK, nil, s.handleBookingCancel))
	s.ipLimited("GET /api/v1/openapi.json", s.handleOpenAPI)
	s.eventRoutes() // events.go
	// What no route answers under /api/v1 (404, 405, a path or query that
	// is not text): a key first, then the answer, with the rate-limit
	// headers like every answer of the open API; under /portal/api, the
	// portal's per-IP count.
	s.router.HandleTree("/api/v1/", s.keyed(""))
	s.router.HandleTree("/portal/api/", s.portalLimited)
	s.router.Handle("GET /{$}", httpx.Home("/portal/"))
	s.router.Handle("GET /healthz", httpx.Adapt(httpx.HandleHealth))
	s.router.Handle("GET /readyz", httpx.Adapt(httpx.HandleReady(s.cfg.ReadyChecks)))
	if !s.cfg.MetricsElsewhere {
		s.router.Handle("GET /metrics", httpx.HandleMetrics(s.cfg.Gatherer))
	}

	// The developer portal.
	s.portalAuth("POST /portal/api/signup", s.handleSignup)
	s.portalAuth("POST /portal/api/login", s.handleLogin)
	s.portal("GET /portal/api/me", s.handleMe)
	s.portal("POST /portal/api/keys", s.idem.Wrap(http.StatusCreated, recordCreatedKey, s.handleKeyCreate))
	s.portal("GET /portal/api/keys", s.handleKeyList)
	s.portal("DELETE /portal/api/keys/{id}", s.handleKeyRevoke)
	s.portal("POST /portal/api/keys/{id}/rotate", s.idem.Wrap(http.StatusCreated, recordCreatedKey, s.handleKeyRotate))
	s.portal("GET /portal/api/usage", s.handleUsage)
	s.oauthRoutes()        // applications a developer connects: oauth.go
	s.supplyPortalRoutes() // the Properties page: supply_portal.go

	// Counted against the client IP's budget, as API requests without a key.
	s.router.Handle("GET /media/sample/{kind}/{name}", httpx.Adapt(httpx.RateLimit(s.cfg.Limiter, s.ipLimit,
		media.SampleImages(map[string]media.Size{"properties": {Width: 640, Height: 420}}))))
	s.mcpRoutes() // the MCP door for agents: mcp.go
	s.webRoutes() // the developer portal (/portal/) and the API reference (/docs/): web.go
}

// idempotencyAccount returns whose key space the request uses and the
// mode that is part of its fingerprint.
func idempotencyAccount(r *http.Request) (string, string) {
	if c := caller(r.Context()); c != nil {
		return c.DeveloperID, c.Mode
	}
	return developer(r.Context()).ID, "portal"
}

// Routes lists the "METHOD /path" patterns the server answers.
func (s *Server) Routes() []string { return s.router.Patterns() }

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=300")
	s.openAPI.Write(w, r)
	return nil
}
