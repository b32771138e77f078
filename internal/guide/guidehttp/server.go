// Package guidehttp serves the guide marketplace API over HTTP.
package guidehttp

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guideauth"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/webui"
)

// Config is what the guide API needs to serve, besides the service.
type Config struct {
	// Service is the marketplace every route and tool calls; its
	// PublicURL, Clock, Logger, KeyUsage and Blobs serve the door too.
	Service *guide.Service
	// Idempotency keeps the Idempotency-Key records of the POSTs that
	// create something or confirm an action.
	Idempotency idempotency.Store
	Live        Live // the realtime channel; nil: its routes answer 503
	// Events is the change feed; Webhooks the webhook endpoints, whose
	// URLs WebhookPolicy judges.
	Events        *changes.Feed
	Webhooks      *changes.Endpoints
	WebhookPolicy changes.Policy
	// CatalogCacheTTL bounds how long a rendered catalogue page is served
	// from memory; writes in this process invalidate at once, writes by
	// other replicas show within it. 0 disables the cache.
	CatalogCacheTTL time.Duration
	// Limiter counts every rate-limited request (shared by the replicas
	// when it is Redis, with a per-replica fallback).
	Limiter     ratelimit.Limiter
	PublicLimit ratelimit.Limit // per client IP on public reads and sample images
	AuthLimit   ratelimit.Limit // per client IP on login, register, providers, session exchange
	AvatarLimit ratelimit.Limit // avatar uploads per user (GUIDE_AVATAR_RATE_LIMIT); default 10 an hour
	ImageLimit  ratelimit.Limit // package and travelogue image uploads per user (GUIDE_PACKAGE_IMAGE_RATE_LIMIT); default 30 an hour
	// TravelogueLimit bounds the travelogues a user creates
	// (GUIDE_TRAVELOGUE_RATE_LIMIT); default 20 an hour.
	TravelogueLimit ratelimit.Limit
	ReportLimit     ratelimit.Limit // reports per user; default 20 an hour
	// ApplicationLimit bounds the writes of expert applications per user
	// (applying, editing, document uploads); default 20 an hour.
	ApplicationLimit ratelimit.Limit
	TrustedProxies   []netip.Prefix
	OpenAPI          []byte // the OpenAPI document as JSON
	// Octo is the OCTO door (guideocto), served on this port under /octo
	// and its reference under /docs/octo, inside the same logging,
	// metrics, CORS and compression; nil: neither is served.
	Octo     http.Handler
	Metrics  *httpx.Metrics      // may be nil
	Gatherer prometheus.Gatherer // served at /metrics; nil: an empty registry
	// MetricsElsewhere leaves /metrics out: it is served on a listener of
	// its own (METRICS_ADDR).
	MetricsElsewhere bool
	ReadyChecks      []httpx.Check // dependencies /readyz asks
	// CORSOrigins are the origins browsers may call every route from
	// (GUIDE_CORS_ALLOWED_ORIGINS); empty: the public catalogue reads
	// from any origin, nothing else.
	CORSOrigins []string
	// OAuth is the authorization server of the MCP endpoint, whose access
	// tokens the REST routes take as well.
	OAuth *oauth.Server
}

// Server is the guide API's HTTP handler.
type Server struct {
	cfg     Config
	svc     *guide.Service // the operations the routes and tools call
	auth    *guideauth.Authenticator
	router  *httpx.Router
	handler http.Handler
	cache   *pageCache // nil when CatalogCacheTTL is 0
	idem    *idempotency.HTTP
	openAPI *httpx.Precompressed // cfg.OpenAPI, kept gzipped too
	// publicReads are the patterns of the public reads, open to any
	// origin when no CORS origin is configured.
	publicReads map[string]bool
}

// New returns the guide API with every route registered.
func New(cfg Config) *Server {
	if cfg.Gatherer == nil {
		cfg.Gatherer = prometheus.NewRegistry()
	}
	if cfg.AvatarLimit.Rate == 0 {
		cfg.AvatarLimit = ratelimit.Limit{Rate: 10, Period: time.Hour}
	}
	if cfg.ImageLimit.Rate == 0 {
		cfg.ImageLimit = ratelimit.Limit{Rate: 30, Period: time.Hour}
	}
	if cfg.TravelogueLimit.Rate == 0 {
		cfg.TravelogueLimit = ratelimit.Limit{Rate: 20, Period: time.Hour}
	}
	if cfg.ReportLimit.Rate == 0 {
		cfg.ReportLimit = ratelimit.Limit{Rate: 20, Period: time.Hour}
	}
	if cfg.ApplicationLimit.Rate == 0 {
		cfg.ApplicationLimit = ratelimit.Limit{Rate: 20, Period: time.Hour}
	}
	s := &Server{cfg: cfg, svc: cfg.Service, router: httpx.NewRouter(), publicReads: map[string]bool{"GET /api/v1/openapi.json": true}}
	s.auth = &guideauth.Authenticator{Service: cfg.Service, OAuth: cfg.OAuth, Limiter: cfg.Limiter, Metrics: cfg.Metrics}
	s.idem = &idempotency.HTTP{Store: cfg.Idempotency, Account: idempotencyAccount, Render: renderItem, Logger: cfg.Service.Logger}
	if cfg.CatalogCacheTTL > 0 {
		s.cache = newPageCache(cfg.CatalogCacheTTL, 10000)
	}
	s.openAPI = &httpx.Precompressed{Body: cfg.OpenAPI}
	s.routes()
	var inner http.Handler = s.router
	if cfg.Octo != nil {
		inner = withOcto(s.router, cfg.Octo)
	}
	outer := &httpx.Outer{Logger: cfg.Service.Logger, PublicURL: cfg.Service.PublicURL, TrustedProxies: cfg.TrustedProxies, Server: "guide", Metrics: cfg.Metrics}
	cors := &httpx.CORS{Origins: cfg.CORSOrigins, Public: s.publicRead}
	s.handler = outer.Wrap(cors.Wrap(httpx.Compress(inner)))
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// withOcto serves the OCTO door's paths, /octo and /docs/octo and what is
// under them, with octo, and every other path with rest: each answers its
// own unknown paths in its own format.
func withOcto(rest, octo http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, prefix := range []string{"/octo", "/docs/octo"} {
			if r.URL.Path == prefix || strings.HasPrefix(r.URL.Path, prefix+"/") {
				octo.ServeHTTP(w, r)
				return
			}
		}
		rest.ServeHTTP(w, r)
	})
}

// Routes lists the "METHOD /path" patterns the server answers.
func (s *Server) Routes() []string { return s.router.Patterns() }

func (s *Server) routes() {
	public := func(pattern string, h httpx.HandlerFunc) {
		s.publicReads[pattern] = true
		s.router.Handle(pattern, httpx.Adapt(httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.publicKey, s.cached(h))))
	}
	public("GET /api/v1/experts", s.handleExpertList)
	public("GET /api/v1/experts/{handle}", s.handleExpertGet)
	public("GET /api/v1/experts/{handle}/packages", s.handleExpertPackages)
	public("GET /api/v1/experts/{handle}/reviews", s.handleExpertReviews)
	public("GET /api/v1/packages", s.handlePackageList)
	public("GET /api/v1/packages/{id}", s.handlePackageGet)
	public("GET /api/v1/travelogues", s.handleTravelogueList)
	// Public, and with the author's user token also the author's draft.
	s.publicReads["GET /api/v1/travelogues/{slug}"] = true
	s.router.Handle("GET /api/v1/travelogues/{slug}", httpx.Adapt(httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.publicKey,
		s.travelogueReader(s.cached(s.handleTravelogueGet), s.handleTravelogueGet))))
	public("GET /api/v1/cities", s.handleCities)
	public("GET /api/v1/specialties", s.handleSpecialties)

	s.authLimited("POST /api/v1/auth/register", s.handleRegister)
	s.authLimited("POST /api/v1/auth/login", s.handleLogin)
	s.authLimited("POST /api/v1/auth/idp-a", s.handleIdpA)
	s.authLimited("POST /api/v1/auth/idp-b", s.handleIdpB)
	s.authed("GET /api/v1/auth/me", userOnly, s.handleMe)
	s.authed("POST /api/v1/auth/session-exchange", userOnly, httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.authKey, s.handleSessionExchange))
	s.authed("POST /api/v1/auth/api-keys", userOnly, s.idem.Wrap(http.StatusCreated, renderCreatedAPIKey, s.handleAPIKeyCreate))
	s.authed("GET /api/v1/auth/api-keys", userOnly, s.handleAPIKeyList)
	s.authed("DELETE /api/v1/auth/api-keys/{id}", userOnly, s.handleAPIKeyRevoke)

	s.authed("GET /api/v1/bookings", keyOr("bookings:read"), s.handleBookingList)
	s.authed("POST /api/v1/bookings", keyOr("bookings:write"), s.idem.Wrap(http.StatusCreated, nil, s.handleBookingCreate))
	s.authed("GET /api/v1/bookings/{id}", keyOr("bookings:read"), s.handleBookingGet)
	s.authed("POST /api/v1/bookings/{id}/accept", keyOr("bookings:write"), s.handleMove(s.svc.AcceptBooking))
	s.authed("POST /api/v1/bookings/{id}/start", keyOr("bookings:write"), s.handleMove(s.svc.StartBooking))
	s.authed("POST /api/v1/bookings/{id}/complete", keyOr("bookings:write"), s.handleMove(s.svc.CompleteBooking))
	s.authed("POST /api/v1/bookings/{id}/cancel", keyOr("bookings:write"), s.handleBookingCancel)
	s.authed("POST /api/v1/bookings/{id}/review", keyOr("bookings:write"), s.idem.Wrap(http.StatusCreated, nil, s.handleBookingReview))
	s.authed("GET /api/v1/actions/{id}", anyKey, s.handleActionGet)
	s.authed("POST /api/v1/actions/{id}/confirm", anyKey, s.idem.Wrap(http.StatusOK, nil, s.handleActionConfirm))

	s.authed("GET /api/v1/profile", keyOr("profile:read"), s.handleProfileGet)
	s.authed("PUT /api/v1/profile", keyOr("profile:write"), s.handleProfileUpdate)
	// Each upload is decoded: a costly step, bounded per user before the
	// body is read.
	s.authed("POST /api/v1/profile/avatar", keyOr("profile:write"), httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.avatarKey, s.handleAvatarUpload))
	s.authed("GET /api/v1/profile/delete", keyOr("profile:write"), s.handleDeletionCheck)
	s.authed("POST /api/v1/profile/delete", keyOr("profile:write"), s.handleAccountDelete)
	s.authed("GET /api/v1/conversations", userOnly, s.handleConversationList)
	s.authed("POST /api/v1/conversations", userOnly, s.idem.Wrap(http.StatusCreated, nil, s.handleConversationOpen))
	s.authed("GET /api/v1/conversations/unread-count", userOnly, s.handleUnreadCount)
	s.authed("GET /api/v1/conversations/{id}/messages", userOnly, s.handleMessageList)
	s.authed("POST /api/v1/conversations/{id}/messages", userOnly, s.handleMessageSend)
	s.authed("POST /api/v1/conversations/{id}/read", userOnly, s.handleConversationRead)
	s.authed("GET /api/realtime/token", userOnly, s.handleRealtimeToken)
	s.realtimeRoutes()
	s.authed("GET /api/expert/availability", userOnly, s.handleAvailability)
	s.supplyRoutes()      // experts: supply.go
	s.travelogueRoutes()  // authors: travelogue.go
	s.adminRoutes()       // admins: admin.go
	s.applicationRoutes() // guides joining, and their profiles: application.go
	s.authed("POST /api/push/register", userOrSession, s.handlePushRegister)
	s.authed("POST /api/push/unregister", userOnly, s.handlePushUnregister)

	s.mcpRoutes()
	s.oauthRoutes() // applications a person connects: oauth.go

	s.router.Handle("GET /{$}", httpx.Home("/docs/"))

	s.eventRoutes() // events.go

	s.router.Handle("GET /healthz", httpx.Adapt(httpx.HandleHealth))
	s.router.Handle("GET /readyz", httpx.Adapt(httpx.HandleReady(s.cfg.ReadyChecks)))
	if !s.cfg.MetricsElsewhere {
		s.router.Handle("GET /metrics", httpx.HandleMetrics(s.cfg.Gatherer))
	}
	s.router.Handle("GET /api/v1/openapi.json", httpx.Adapt(s.handleOpenAPI))
	// The API reference: GET /docs/, /docs/assets/ and the error-code
	// pages /docs/errors/; it links the OCTO one when the door is served.
	var links []webui.Link
	if s.cfg.Octo != nil {
		links = []webui.Link{{Text: "OCTO supplier API", Href: "/docs/octo/"}}
	}
	webui.Docs(webui.DocsConfig{Title: "Guide Marketplace API", API: httpx.GuideAPI, Links: links}).Register(s.router)
	// Where the person approves what an agent asked for (pending actions).
	webui.Confirm().Register(s.router)
	// Where admins decide on applications and reports.
	webui.Admin().Register(s.router)
	portrait, landscape := media.Size{Width: 320, Height: 320}, media.Size{Width: 640, Height: 420}
	s.router.Handle("GET /media/sample/{kind}/{name}", httpx.Adapt(httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.publicKey,
		media.SampleImages(map[string]media.Size{
			"experts": portrait, "avatars": portrait, "covers": landscape, "packages": landscape, "travelogues": landscape,
			"messages": {Width: 640, Height: 480},
		}))))
	s.router.Handle("GET /media/avatars/{key...}", httpx.Adapt(s.handleAvatarGet))
}

// catalogChanged drops cached catalogue pages after a write that shows in
// the catalogue.
func (s *Server) catalogChanged() {
	if s.cache != nil {
		s.cache.invalidate()
	}
}

func (s *Server) publicKey(r *http.Request) (string, ratelimit.Limit) {
	return "guide:public:" + httpx.ClientIP(r.Context()).String(), s.cfg.PublicLimit
}

func (s *Server) avatarKey(r *http.Request) (string, ratelimit.Limit) {
	return "guide:avatar:" + caller(r.Context()).User.ID, s.cfg.AvatarLimit
}

func (s *Server) authKey(r *http.Request) (string, ratelimit.Limit) {
	return "guide:auth:" + httpx.ClientIP(r.Context()).String(), s.cfg.AuthLimit
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=300")
	s.openAPI.Write(w, r)
	return nil
}

// list is the envelope of a paginated list.
type list[T any] struct {
	Data []T         `json:"data"`
	Meta paging.Meta `json:"meta"`
}

// item is the envelope of a single resource.
type item struct {
	Data any `json:"data"`
}

// renderItem renders a result as the API sends it: {"data": result}.
func renderItem(result any) ([]byte, error) { return json.Marshal(item{result}) }

// idempotencyAccount is the key space and mode of a REST request
// (idempotencyScope).
func idempotencyAccount(r *http.Request) (string, string) {
	return idempotencyScope(caller(r.Context()))
}

// idempotencyScope: Idempotency-Keys belong to the user, whichever
// credentials and door carry the request.
func idempotencyScope(c *guide.Caller) (account, mode string) {
	return c.User.ID, ""
}

// publicRead reports whether method on path is a public catalogue read.
func (s *Server) publicRead(method, path string) bool {
	return s.publicReads[s.router.Pattern(method, path)]
}
