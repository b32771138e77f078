// Command server runs the guide marketplace API and the property platform
// API, each on its own address and database.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/wayfarer-asia/platform/api"
	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/guidehttp"
	"github.com/wayfarer-asia/platform/internal/guide/guidejobs"
	"github.com/wayfarer-asia/platform/internal/guide/guideocto"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/ai"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/chat"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/config"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/push"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
	"github.com/wayfarer-asia/platform/internal/property/propertyhttp"
	propertysample "github.com/wayfarer-asia/platform/internal/property/sample"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	// Lines logged under a span carry its trace_id and span_id.
	logger := slog.New(telemetry.LogHandler(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel})))
	slog.SetDefault(logger)
	redis.SetLogger(redisLog{logger})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Off unless the OTEL_* variables ask for OTLP export.
	stopTracing, err := telemetry.Setup(ctx)
	if err != nil {
		return err
	}
	if telemetry.Enabled() {
		logger.Info("tracing: exporting spans over OTLP/HTTP")
	}
	a := &app{cfg: cfg, logger: logger, clock: clock.System{}, registry: prometheus.NewRegistry()}
	defer a.close()
	a.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	a.metrics = httpx.NewMetrics(a.registry)
	if cfg.RedisURL != "" {
		opts, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return fmt.Errorf("REDIS_URL: %w", err)
		}
		// Short timeouts: a limiter that waits on a sick Redis would stall
		// every request; failing fast lets the fallback rules apply.
		opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = time.Second, 250*time.Millisecond, 250*time.Millisecond
		a.redis = redis.NewClient(opts)
		a.redis.AddHook(telemetry.RedisHook{})
		a.closers = append(a.closers, a.redis.Close)
		// Without Redis the replicas keep serving (readiness stays 200,
		// "degraded"); this gauge is where monitoring sees it.
		a.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "redis_up", Help: "1 when Redis answers a ping within 250 ms at scrape time, 0 while it is unreachable (rate limits then count per replica).",
		}, func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			defer cancel()
			if a.redis.Ping(ctx).Err() != nil {
				return 0
			}
			return 1
		}))
	}
	a.limiter = limiter(a.redis, a.clock, a.metrics, logger)

	guideHandler, err := a.guide(ctx)
	if err != nil {
		return err
	}
	propertyHandler, err := a.property(ctx)
	if err != nil {
		return err
	}
	// Migrations and the sample data leave their garbage in a heap grown
	// to twice what they held live; returned now, the servers start at
	// their working size instead of waiting for the scavenger's pace.
	debug.FreeOSMemory()

	// Every port is bound before anything runs, so a busy one stops the
	// start with the setting that named it.
	type listener struct {
		setting string
		srv     *http.Server
	}
	listeners := []listener{{"GUIDE_ADDR", newServer(cfg.GuideAddr, guideHandler)}, {"PROPERTY_ADDR", newServer(cfg.PropertyAddr, propertyHandler)}}
	if cfg.PprofAddr != "" {
		listeners = append(listeners, listener{"PPROF_ADDR", newPprofServer(cfg.PprofAddr)})
	}
	if cfg.MetricsAddr != "" {
		// Operators keep this port private; the API ports then have no
		// /metrics.
		metrics := http.NewServeMux()
		metrics.Handle("GET /metrics", httpx.HandleMetrics(a.registry))
		listeners = append(listeners, listener{"METRICS_ADDR", newServer(cfg.MetricsAddr, metrics)})
	}
	var servers []*http.Server
	var bound []net.Listener
	for _, l := range listeners {
		ln, err := net.Listen("tcp", l.srv.Addr)
		if err != nil {
			for _, b := range bound {
				b.Close()
			}
			return fmt.Errorf("%s=%s: %w", l.setting, l.srv.Addr, err)
		}
		servers, bound = append(servers, l.srv), append(bound, ln)
	}

	// Background jobs run until the servers have drained, so that work the
	// last requests recorded is still flushed.
	jobsCtx, stopJobs := context.WithCancel(context.WithoutCancel(ctx))
	var background sync.WaitGroup
	for _, j := range a.jobs {
		background.Go(func() { jobs.Every(jobsCtx, j.name, j.every, j.run) })
	}
	for _, r := range append([]*jobs.Runner{a.runner}, a.runners...) {
		background.Go(func() { r.Run(jobsCtx) })
	}
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() {
			logger.Info("listening", "addr", bound[i].Addr().String())
			if err := srv.Serve(bound[i]); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("serve %s: %w", srv.Addr, err)
			}
		}()
	}

	select {
	case err = <-errc:
	case <-ctx.Done():
		// Readiness fails first and the listeners stay open for the drain,
		// so the load balancer moves traffic away before anything is
		// refused; then requests in flight get the grace period.
		a.draining.Store(true)
		logger.Info("shutting down: draining", "drain", cfg.ShutdownDrain)
		time.Sleep(cfg.ShutdownDrain)
		logger.Info("shutting down: finishing in-flight requests")
		for _, f := range a.drained {
			f()
		}
	}
	shutdown(servers, cfg.ShutdownGrace, logger)
	stopJobs()
	background.Wait()
	// The spans of the last requests and jobs leave before the process.
	flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if err := stopTracing(flushCtx); err != nil {
		logger.Error("tracing: flushing spans failed", "err", err)
	}
	cancel()
	if err == nil {
		logger.Info("stopped")
	}
	return err
}

// app holds what the two APIs share while the server is wired.
type app struct {
	cfg      *config.Config
	logger   *slog.Logger
	clock    clock.Clock
	registry *prometheus.Registry
	metrics  *httpx.Metrics
	redis    *redis.Client
	limiter  ratelimit.Limiter
	// draining is set on SIGTERM: /readyz answers 503 from then on.
	draining atomic.Bool
	jobs     []job
	runner   *jobs.Runner
	runners  []*jobs.Runner // more runners: the property platform's webhooks
	// drained runs once the load balancer has moved traffic away, before
	// the servers finish their in-flight requests.
	drained []func()
	closers []func() error
}

// job is background work run every so often.
type job struct {
	name  string
	every time.Duration
	run   func(context.Context) error
}

func (a *app) close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
}

// openDB opens the database of a service, migrates it to schema and, when
// it holds nothing yet and sample data is on, loads sample, all under the
// database's lock for this schema, so that replicas started together do
// each step once. A failure names setting, the variable that pointed at
// the database.
func (a *app) openDB(ctx context.Context, setting, url string, schema store.Schema, sample sampleLoader) (*store.DB, error) {
	service := schema.Name
	db, err := store.Open(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	a.closers = append(a.closers, db.Close)
	if a.cfg.DatabaseMaxConns > 0 {
		db.SetPool(a.cfg.DatabaseMaxConns)
	}
	err = db.Exclusive(ctx, schema.Name, func(ctx context.Context) error {
		if err := db.Migrate(ctx, schema); err != nil {
			return err
		}
		if !a.cfg.SampleData {
			return nil
		}
		empty, err := sample.isEmpty(ctx, db)
		if err != nil || !empty {
			return err
		}
		start := time.Now()
		if err := sample.load(ctx, db); err != nil {
			return fmt.Errorf("load %s sample data: %w", service, err)
		}
		a.logger.Info("loaded sample data", "service", service, "scale", a.cfg.SampleScale, "duration", time.Since(start))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	a.registry.MustRegister(collectors.NewDBStatsCollector(db.DB, service))
	if db.Engine == store.Postgres {
		a.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "database_transaction_conflicts_total", Help: "Transactions PostgreSQL aborted for a deadlock or a serialization failure (each run again, up to three runs).",
			ConstLabels: prometheus.Labels{"db_name": service},
		}, func() float64 { return float64(db.TxConflicts()) }))
	}
	if w := db.Writer(); w != db.DB {
		a.registry.MustRegister(collectors.NewDBStatsCollector(w, service+"_writer"))
		labels := prometheus.Labels{"db_name": service}
		a.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "sqlite_write_batches_total", Help: "Transactions SQLite's writer committed, each holding a batch of requests' transactions.", ConstLabels: labels,
		}, func() float64 { b, _ := db.WriteBatches(); return float64(b) }))
		a.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "sqlite_write_batched_transactions_total", Help: "Requests' transactions run in SQLite's write batches; divided by sqlite_write_batches_total, the mean batch.", ConstLabels: labels,
		}, func() float64 { _, n := db.WriteBatches(); return float64(n) }))
	}
	return db, nil
}

// sampleLoader tells whether a product's database is empty and fills it
// with sample data.
type sampleLoader struct {
	isEmpty func(context.Context, *store.DB) (bool, error)
	load    func(context.Context, *store.DB) error
}

// readyChecks are the dependencies /readyz asks about, besides db.
func (a *app) readyChecks(db *store.DB) []httpx.Check {
	checks := []httpx.Check{
		{Name: "shutdown", Check: func(context.Context) error {
			if a.draining.Load() {
				return httpx.ErrDraining
			}
			return nil
		}},
		{Name: "database", Check: db.PingContext},
	}
	if a.redis != nil {
		// Redis can only make the replica degraded, never unready: its
		// check gets a short budget of its own, so a Redis that hangs
		// does not stretch /readyz past the load balancer's timeout.
		checks = append(checks, httpx.Check{Name: "redis", Degrades: true, Check: func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
			defer cancel()
			return a.redis.Ping(ctx).Err()
		}})
	}
	return checks
}

// guide wires the guide marketplace API.
func (a *app) guide(ctx context.Context) (http.Handler, error) {
	cfg, clk, logger := a.cfg, a.clock, a.logger
	db, err := a.openDB(ctx, "GUIDE_DATABASE_URL", cfg.GuideDatabaseURL, guidedb.Schema, sampleLoader{guidedb.IsEmpty,
		func(ctx context.Context, db *store.DB) error {
			return guidedb.LoadSampleScaled(ctx, db, sample.Generate(), cfg.SampleScale)
		}})
	if err != nil {
		return nil, err
	}
	gs := guidedb.New(db, clk)
	queue := store.NewJobs(db, clk)
	keys := idempotency.NewKeys(db, clk, cfg.IdempotencyLockTTL)
	hash, err := demoHash(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := gs.SetDemoPasswords(ctx, hash); err != nil {
		return nil, err
	}
	if err := gs.SetCurrencyRates(ctx, cfg.CurrencyRates); err != nil {
		return nil, err
	}
	openAPI, err := api.GuideJSON()
	if err != nil {
		return nil, err
	}
	octoAPI, err := api.OctoJSON()
	if err != nil {
		return nil, err
	}
	secret, err := persistedSecret(ctx, cfg.JWTSecret, "JWT_SECRET", "jwt_secret", gs.Setting, logger)
	if err != nil {
		return nil, err
	}
	tokens, err := auth.NewTokens(secret, clk)
	if err != nil {
		return nil, err
	}
	realtimeCreds, err := realtimeIssuer(cfg, clk, logger)
	if err != nil {
		return nil, err
	}
	keyUsage := auth.NewKeyUsage()
	a.jobs = append(a.jobs, job{"api key usage", 10 * time.Second, func(ctx context.Context) error {
		return gs.TouchAPIKeys(ctx, keyUsage.Take())
	}}, job{"guide idempotency records", time.Hour, func(ctx context.Context) error {
		_, err := keys.Purge(ctx)
		return err
	}}, job{"OCTO test bookings", time.Hour, func(ctx context.Context) error {
		_, err := gs.PurgeOctoTestBookings(ctx)
		return err
	}})
	avatars, err := avatarStore(cfg)
	if err != nil {
		return nil, err
	}
	var sender push.Sender = push.LogSender{Logger: logger}
	if cfg.PushGatewayURL != "" {
		sender = &push.HTTPSender{URL: cfg.PushGatewayURL}
	}
	var aiClient *ai.Client
	if cfg.AIBaseURL != "" {
		aiClient = &ai.Client{BaseURL: cfg.AIBaseURL, APIKey: cfg.AIAPIKey, Model: cfg.AIModel}
	}
	a.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "jobs_pending", Help: "Background jobs (notifications, AI replies, file removals) not yet done.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		n, err := queue.CountPending(ctx)
		if err != nil {
			return -1
		}
		return float64(n)
	}))
	live, err := chat.New(chat.Config{Credentials: realtimeCreds, Rules: guidehttp.ChatRules(gs), RedisURL: cfg.RedisURL, Logger: logger})
	if err != nil && cfg.RedisURL != "" {
		// As the rate limits do, the server starts without Redis (/readyz
		// reports it): the channel then serves this replica's clients only.
		logger.Error("realtime: Redis unreachable at start; the channel runs in memory on this replica until a restart", "err", err)
		live, err = chat.New(chat.Config{Credentials: realtimeCreds, Rules: guidehttp.ChatRules(gs), Logger: logger})
	}
	if err != nil {
		return nil, err
	}
	a.drained = append(a.drained, live.Drain)
	a.closers = append(a.closers, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return live.Shutdown(ctx)
	})
	a.runner = jobs.NewRunner(queue, clk)
	a.runner.Logger = logger
	guideJobs := &guidejobs.Jobs{Store: gs, Push: sender, AI: aiClient, Blobs: avatars, Chat: live, PublicURL: cfg.GuidePublicURL, Logger: logger}
	guideJobs.Register(a.runner)
	hooks := a.webhooks(db, gs.Events(), cfg.GuidePublicURL, a.runner)
	// The realtime publications go to the runner as their transactions
	// commit; the other jobs wake it.
	queue.SetHandoff(a.runner.Handoff())
	idpA, err := identityProvider(ctx, "idp-a", cfg.IdpA, clk)
	if err != nil {
		return nil, err
	}
	idpB, err := identityProvider(ctx, "idp-b", cfg.IdpB, clk)
	if err != nil {
		return nil, err
	}
	authServer := oauth.New(oauth.Config{
		Issuer: cfg.GuidePublicURL, Resource: cfg.GuidePublicURL + "/mcp", Scopes: guide.Scopes,
		ConsentPage: "/oauth/consent/", DB: db, Grants: gs, Clock: clk, Logger: logger,
		Fetcher: changes.NewClientTimeout(changes.Policy{AllowHosts: cfg.WebhookAllowHosts}, oauth.FetchTimeout),
	})
	a.jobs = append(a.jobs, job{"guide OAuth records", time.Hour, func(ctx context.Context) error {
		_, err := authServer.Purge(ctx)
		return err
	}})
	svc := &guide.Service{
		Catalog: gs, Accounts: gs, Profiles: gs, Bookings: gs, Actions: gs, Closure: gs, Conversations: gs, Supply: gs,
		Admin: gs, Authoring: gs, Moderation: gs, Octo: gs, Applications: gs,
		Clock: clk, ActionTTL: cfg.PendingActionTTL, Tokens: tokens, IdpA: idpA, IdpB: idpB, KeyUsage: keyUsage,
		Blobs: avatars, PublicURL: cfg.GuidePublicURL, Logger: logger, AIReplies: aiClient != nil, Realtime: realtimeCreds,
		AdminEmails: cfg.AdminEmails,
	}
	octo := guideocto.New(guideocto.Config{Service: svc, OAuth: authServer, Limiter: a.limiter, Metrics: a.metrics, OpenAPI: octoAPI,
		Idempotency: keys})
	return guidehttp.New(guidehttp.Config{
		Service:          svc,
		OAuth:            authServer,
		Idempotency:      keys,
		CatalogCacheTTL:  cfg.CatalogCacheTTL,
		Live:             live,
		Limiter:          a.limiter,
		Metrics:          a.metrics,
		Gatherer:         a.registry,
		ReadyChecks:      a.readyChecks(db),
		PublicLimit:      ratelimit.PerMinute(cfg.PublicRateLimit),
		AuthLimit:        ratelimit.Limit{Rate: cfg.AuthRateLimit, Period: 15 * time.Minute},
		AvatarLimit:      ratelimit.Limit{Rate: cfg.AvatarRateLimit, Period: time.Hour},
		ImageLimit:       ratelimit.Limit{Rate: cfg.ImageRateLimit, Period: time.Hour},
		TravelogueLimit:  ratelimit.Limit{Rate: cfg.TravelogueRateLimit, Period: time.Hour},
		TrustedProxies:   cfg.TrustedProxies,
		OpenAPI:          openAPI,
		Octo:             octo,
		CORSOrigins:      cfg.GuideCORSOrigins,
		MetricsElsewhere: cfg.MetricsAddr != "",
		Events:           gs.Events(),
		Webhooks:         hooks,
		WebhookPolicy:    changes.Policy{AllowHosts: cfg.WebhookAllowHosts},
	}), nil
}

// property wires the property platform API.
func (a *app) property(ctx context.Context) (http.Handler, error) {
	cfg, clk, logger := a.cfg, a.clock, a.logger
	db, err := a.openDB(ctx, "PROPERTY_DATABASE_URL", cfg.PropertyDatabaseURL, propertydb.Schema, sampleLoader{propertydb.IsEmpty,
		func(ctx context.Context, db *store.DB) error {
			// The calendar starts today, so that "next month" has stock.
			return propertydb.LoadSampleScaled(ctx, db, propertysample.Generate(property.DateOf(clk.Now())), cfg.SampleScale)
		}})
	if err != nil {
		return nil, err
	}
	ps := propertydb.New(db, clk)
	keys := idempotency.NewKeys(db, clk, cfg.IdempotencyLockTTL)
	hash, err := demoHash(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := ps.SetDemoPassword(ctx, hash); err != nil {
		return nil, err
	}
	secret, err := persistedSecret(ctx, cfg.PortalJWTSecret, "PORTAL_JWT_SECRET", "portal_jwt_secret", ps.Setting, logger)
	if err != nil {
		return nil, err
	}
	portalTokens, err := auth.NewPortalTokens(secret, clk)
	if err != nil {
		return nil, err
	}
	openAPI, err := api.PropertyJSON()
	if err != nil {
		return nil, err
	}
	queue := store.NewJobs(db, clk)
	runner := &jobs.Runner{Jobs: queue, Clock: clk, Logger: logger}
	a.runners = append(a.runners, runner)
	hooks := a.webhooks(db, ps.Events(), cfg.PropertyPublicURL, runner)
	queue.SetHandoff(runner.Handoff()) // no direct kind: every commit that enqueues wakes it
	usage := property.NewUsage()
	a.jobs = append(a.jobs,
		job{"property key usage", 10 * time.Second, func(ctx context.Context) error { return ps.FlushUsage(ctx, usage) }},
		job{"expired quote holds", 30 * time.Second, func(ctx context.Context) error {
			_, err := ps.ReleaseExpiredHolds(ctx)
			return err
		}},
		job{"property idempotency records", time.Hour, func(ctx context.Context) error {
			_, err := keys.Purge(ctx)
			return err
		}},
	)
	authServer := oauth.New(oauth.Config{
		Issuer: cfg.PropertyPublicURL, Resource: cfg.PropertyPublicURL + "/mcp", Scopes: property.Scopes,
		ConsentPage: "/oauth/consent/", DB: db, Grants: ps, Clock: clk, Logger: logger,
		Fetcher: changes.NewClientTimeout(changes.Policy{AllowHosts: cfg.WebhookAllowHosts}, oauth.FetchTimeout),
	})
	a.jobs = append(a.jobs, job{"property OAuth records", time.Hour, func(ctx context.Context) error {
		_, err := authServer.Purge(ctx)
		return err
	}})
	svc := &property.Service{Catalog: ps, Bookings: ps, Accounts: ps, Supply: ps, Clock: clk, Usage: usage,
		QuoteTTL: cfg.QuoteTTL, PublicURL: cfg.PropertyPublicURL}
	return propertyhttp.New(propertyhttp.Config{
		Service:          svc,
		OAuth:            authServer,
		PublicURL:        cfg.PropertyPublicURL,
		Idempotency:      keys,
		PortalTokens:     portalTokens,
		Limiter:          a.limiter,
		KeyLimit:         ratelimit.PerMinute(cfg.PropertyRateLimit),
		PortalAuthLimit:  ratelimit.Limit{Rate: cfg.PortalAuthRateLimit, Period: 15 * time.Minute},
		Metrics:          a.metrics,
		Gatherer:         a.registry,
		ReadyChecks:      a.readyChecks(db),
		TrustedProxies:   cfg.TrustedProxies,
		Logger:           logger,
		OpenAPI:          openAPI,
		CORSOrigins:      cfg.PropertyCORSOrigins,
		MetricsElsewhere: cfg.MetricsAddr != "",
		Events:           ps.Events(),
		Webhooks:         hooks,
		WebhookPolicy:    changes.Policy{AllowHosts: cfg.WebhookAllowHosts},
	}), nil
}

// webhooks sets up the change feed and the webhooks of a database: runner
// sends the deliveries (the queue wakes it after each commit that enqueued
// some: its Handoff), and the feed forgets old events (and finished
// deliveries) every hour.
func (a *app) webhooks(db *store.DB, events *changes.Feed, publicURL string, runner *jobs.Runner) *changes.Endpoints {
	hooks := changes.NewEndpoints(db, a.clock)
	events.PublicURL = publicURL
	(&changes.Sender{Store: hooks, Client: changes.NewClient(changes.Policy{AllowHosts: a.cfg.WebhookAllowHosts})}).Register(runner)
	a.jobs = append(a.jobs, job{"purge events and webhook deliveries", time.Hour, func(ctx context.Context) error {
		_, err1 := events.Purge(ctx)
		_, err2 := hooks.PurgeDeliveries(ctx)
		return errors.Join(err1, err2)
	}})
	return hooks
}

// demoHash hashes DEMO_PASSWORD; "" when it is unset, which takes the demo
// accounts' passwords away.
func demoHash(ctx context.Context, cfg *config.Config) (string, error) {
	if cfg.DemoPassword == "" {
		return "", nil
	}
	return auth.HashPassword(ctx, cfg.DemoPassword)
}

// limiter returns the rate limiter of both APIs: with Redis, counts
// shared by every replica, falling back to counts in this process while
// Redis is unreachable; without, counts in this process.
func limiter(rdb *redis.Client, clk clock.Clock, m *httpx.Metrics, logger *slog.Logger) ratelimit.Limiter {
	local := ratelimit.NewMemory(clk)
	if rdb == nil {
		return local
	}
	l := &ratelimit.Fallback{Primary: ratelimit.NewRedis(rdb, "rl:"), Local: local,
		OnFallback: func(error) { m.LimiterDecision("fallback") },
		OnChange: func(down bool, err error) {
			if down {
				logger.Warn("Redis unreachable: rate limits count per replica until it returns", "err", err)
			} else {
				logger.Info("Redis reachable again: rate limits are shared across replicas")
			}
		}}
	return l
}

// persistedSecret returns the configured secret, or else the one kept in
// the database under key, generated on first start so that tokens survive
// restarts and every replica agrees.
func persistedSecret(ctx context.Context, configured, envName, key string, setting func(ctx context.Context, key, value string) (string, error), logger *slog.Logger) ([]byte, error) {
	if configured != "" {
		return []byte(configured), nil
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	fresh := hex.EncodeToString(b[:])
	secret, err := setting(ctx, key, fresh)
	if err != nil {
		return nil, err
	}
	if secret == fresh {
		logger.Warn(envName + " is not set: generated a secret and stored it in the database; set " + envName + " to manage it yourself")
	}
	return []byte(secret), nil
}

// realtimeIssuer signs realtime channel credentials with REALTIME_SECRET,
// or with a random secret for this process when none is set.
func realtimeIssuer(cfg *config.Config, clk clock.Clock, logger *slog.Logger) (*chat.Credentials, error) {
	secret := []byte(cfg.RealtimeSecret)
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, err
		}
		logger.Warn("REALTIME_SECRET is not set: realtime credentials are signed with a random secret that changes at every start; set it to share one with the realtime service")
	}
	return chat.NewCredentials(cfg.RealtimeAppID, secret, clk), nil
}

// avatarStore keeps avatars in the S3-compatible bucket when one is
// configured, else in AVATAR_DIR.
func avatarStore(cfg *config.Config) (media.Store, error) {
	if s := cfg.S3; s != nil {
		return media.NewS3(media.S3Config{Endpoint: s.Endpoint, Region: s.Region, Bucket: s.Bucket, AccessKey: s.AccessKey,
			SecretKey: s.SecretKey, PathStyle: s.PathStyle, Timeout: 30 * time.Second})
	}
	return &media.Local{Dir: cfg.AvatarDir}, nil
}

// identityProvider is nil when the provider is not configured. Its keys are
// refreshed until ctx ends.
func identityProvider(ctx context.Context, name string, p *config.IdentityProvider, c clock.Clock) (*auth.IdentityProvider, error) {
	if p == nil {
		return nil, nil
	}
	return auth.NewIdentityProvider(ctx, name, p.Issuer, p.Audiences, p.JWKSURL, c)
}

// redisLog passes the Redis client's own messages (a failed dial, a
// fallback on handshake) to slog, so that every line of the log is JSON.
type redisLog struct{ logger *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.logger.WarnContext(ctx, "redis client", "detail", strings.TrimSpace(fmt.Sprintf(format, v...)))
}

// newServer returns a server whose timeouts keep slow or idle clients from
// holding connections.
func newServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

func shutdown(servers []*http.Server, grace time.Duration, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(ctx); err != nil {
			logger.Error("shutdown", "addr", srv.Addr, "err", err)
		}
	}
}
