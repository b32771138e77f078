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
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/wayfarer-asia/platform/api"
	"github.com/wayfarer-asia/platform/internal/auth"
	"github.com/wayfarer-asia/platform/internal/blob"
	"github.com/wayfarer-asia/platform/internal/clock"
	"github.com/wayfarer-asia/platform/internal/config"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/httpapi"
	"github.com/wayfarer-asia/platform/internal/httpapi/guideapi"
	"github.com/wayfarer-asia/platform/internal/ratelimit"
	"github.com/wayfarer-asia/platform/internal/store"
	"github.com/wayfarer-asia/platform/internal/worker"
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
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	slog.SetDefault(logger)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	clk := clock.System{}

	guideDB, err := store.Open(ctx, cfg.GuideDatabaseURL)
	if err != nil {
		return err
	}
	defer guideDB.Close()
	if err := guideDB.Migrate(ctx, "guide"); err != nil {
		return err
	}
	guideStore := store.NewGuide(guideDB, clk)
	if err := loadGuideSample(ctx, cfg, guideDB, guideStore, logger); err != nil {
		return err
	}

	openAPI, err := api.GuideJSON()
	if err != nil {
		return err
	}
	secret, err := jwtSecret(ctx, cfg, guideStore, logger)
	if err != nil {
		return err
	}
	tokens, err := auth.NewTokens(secret, clk)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(guideDB.DB, "guide"))
	metrics := httpapi.NewMetrics(reg)
	readyChecks := []httpapi.Check{{Name: "database", Check: guideDB.PingContext}}
	var rdb *redis.Client
	if cfg.RedisURL != "" {
		opts, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return fmt.Errorf("REDIS_URL: %w", err)
		}
		// Short timeouts: a limiter that waits on a sick Redis would stall
		// every request; failing fast lets the fallback rules apply.
		opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = time.Second, 250*time.Millisecond, 250*time.Millisecond
		rdb = redis.NewClient(opts)
		defer rdb.Close()
		readyChecks = append(readyChecks, httpapi.Check{Name: "redis", Check: func(ctx context.Context) error { return rdb.Ping(ctx).Err() }})
	}
	limiter, readLimiter := limiters(rdb, clk, metrics, logger)
	keyUsage := auth.NewKeyUsage()
	realtime, err := realtimeIssuer(cfg, clk, logger)
	if err != nil {
		return err
	}
	guideHandler := guideapi.New(guideapi.Config{
		Catalog:         guideStore,
		Accounts:        guideStore,
		Profiles:        guideStore,
		Bookings:        guideStore,
		Actions:         guideStore,
		Closure:         guideStore,
		ActionTTL:       cfg.PendingActionTTL,
		Conversations:   guideStore,
		Avatars:         avatarStore(cfg),
		CatalogCacheTTL: cfg.CatalogCacheTTL,
		Realtime:        realtime,
		Tokens:          tokens,
		IdpA:            identityProvider("idp-a", cfg.IdpA, clk),
		IdpB:            identityProvider("idp-b", cfg.IdpB, clk),
		KeyUsage:        keyUsage,
		Clock:           clk,
		Limiter:         limiter,
		ReadLimiter:     readLimiter,
		Metrics:         metrics,
		Gatherer:        reg,
		ReadyChecks:     readyChecks,
		PublicLimit:     ratelimit.PerMinute(cfg.PublicRateLimit),
		AuthLimit:       ratelimit.Limit{Rate: cfg.AuthRateLimit, Period: 15 * time.Minute},
		TrustedProxies:  cfg.TrustedProxies,
		Logger:          logger,
		OpenAPI:         openAPI,
	})
	// The property platform API arrives with its own issue; until then its
	// address answers every request with the 404 envelope.
	propertyHandler := (&httpapi.Outer{Logger: logger, TrustedProxies: cfg.TrustedProxies}).Wrap(httpapi.NewRouter())

	var workers sync.WaitGroup
	workers.Go(func() {
		worker.Every(ctx, "api key usage", 10*time.Second, func(ctx context.Context) error {
			return guideStore.TouchAPIKeys(ctx, keyUsage.Take())
		})
	})
	defer workers.Wait()

	servers := []*http.Server{newServer(cfg.GuideAddr, guideHandler), newServer(cfg.PropertyAddr, propertyHandler)}
	errc := make(chan error, len(servers))
	for _, srv := range servers {
		go func() {
			logger.Info("listening", "addr", srv.Addr)
			if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("listen on %s: %w", srv.Addr, err)
			}
		}()
	}
	select {
	case err := <-errc:
		stop()
		shutdown(servers, logger)
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: finishing in-flight requests")
	shutdown(servers, logger)
	logger.Info("stopped")
	return nil
}

func loadGuideSample(ctx context.Context, cfg *config.Config, db *store.DB, g *store.Guide, logger *slog.Logger) error {
	if cfg.SampleData {
		empty, err := store.GuideIsEmpty(ctx, db)
		if err != nil {
			return err
		}
		if empty {
			start := time.Now()
			if err := store.LoadGuideSample(ctx, db, sample.Generate()); err != nil {
				return fmt.Errorf("load sample data: %w", err)
			}
			logger.Info("loaded guide sample data", "duration", time.Since(start))
		}
	}
	hash := ""
	if cfg.DemoPassword != "" {
		var err error
		if hash, err = auth.HashPassword(cfg.DemoPassword); err != nil {
			return err
		}
	}
	return g.SetDemoPasswords(ctx, hash)
}

// limiters returns the strict limiter (login, registration, key writes:
// refused when it fails) and the read limiter (falls back to a count in
// this process). With Redis both count there, shared by every replica.
func limiters(rdb *redis.Client, clk clock.Clock, m *httpapi.Metrics, logger *slog.Logger) (strict, read ratelimit.Limiter) {
	local := ratelimit.NewMemory(clk)
	if rdb == nil {
		return local, local
	}
	shared := ratelimit.NewRedis(rdb, "rl:")
	return shared, &ratelimit.Fallback{Primary: shared, Local: local, OnFallback: func(err error) {
		m.LimiterDecision("fallback")
		logger.Warn("Redis unreachable: counting this read locally", "err", err)
	}}
}

// jwtSecret returns JWT_SECRET, or else the secret kept in the database,
// generated on first start so that tokens survive restarts and replicas
// agree.
func jwtSecret(ctx context.Context, cfg *config.Config, g *store.Guide, logger *slog.Logger) ([]byte, error) {
	if cfg.JWTSecret != "" {
		return []byte(cfg.JWTSecret), nil
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	fresh := hex.EncodeToString(b[:])
	secret, err := g.Setting(ctx, "jwt_secret", fresh)
	if err != nil {
		return nil, err
	}
	if secret == fresh {
		logger.Warn("JWT_SECRET is not set: generated a secret and stored it in the database; set JWT_SECRET to manage it yourself")
	}
	return []byte(secret), nil
}

// realtimeIssuer signs realtime channel credentials with REALTIME_SECRET,
// or with a random secret for this process when none is set.
func realtimeIssuer(cfg *config.Config, clk clock.Clock, logger *slog.Logger) (*auth.Realtime, error) {
	secret := []byte(cfg.RealtimeSecret)
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, err
		}
		logger.Warn("REALTIME_SECRET is not set: realtime credentials are signed with a random secret that changes at every start; set it to share one with the realtime service")
	}
	return auth.NewRealtime(cfg.RealtimeAppID, secret, clk), nil
}

// avatarStore keeps avatars in the S3-compatible bucket when one is
// configured, else in AVATAR_DIR.
func avatarStore(cfg *config.Config) blob.Store {
	if s := cfg.S3; s != nil {
		return &blob.S3{Endpoint: s.Endpoint, Region: s.Region, Bucket: s.Bucket, AccessKey: s.AccessKey,
			SecretKey: s.SecretKey, PathStyle: s.PathStyle, Client: &http.Client{Timeout: 30 * time.Second}}
	}
	return &blob.Local{Dir: cfg.AvatarDir}
}

func identityProvider(name string, p *config.IdentityProvider, c clock.Clock) *auth.IdentityProvider {
	if p == nil {
		return nil
	}
	return auth.NewIdentityProvider(name, p.Issuer, p.Audiences, p.JWKSURL, c)
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

func shutdown(servers []*http.Server, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(ctx); err != nil {
			logger.Error("shutdown", "addr", srv.Addr, "err", err)
		}
	}
}
