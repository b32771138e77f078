package guideapi_test

import (
	"io"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/api"
	"github.com/wayfarer-asia/platform/internal/clock"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/httpapi/apitest"
	"github.com/wayfarer-asia/platform/internal/httpapi/guideapi"
	"github.com/wayfarer-asia/platform/internal/ratelimit"
	"github.com/wayfarer-asia/platform/internal/store"
	"github.com/wayfarer-asia/platform/internal/store/storetest"
)

// env is one test's server: the real router on a fresh database.
type env struct {
	*apitest.Client
	db    *store.DB
	clock *clock.Fake
}

type options struct {
	publicLimit    int
	trustedProxies []netip.Prefix
	noSample       bool
}

// newEnv starts the guide API on a fresh SQLite database (or the engine
// named) loaded with the sample data.
func newEnv(t *testing.T, opts options, engine ...store.Engine) *env {
	t.Helper()
	eng := store.SQLite
	if len(engine) > 0 {
		eng = engine[0]
	}
	db := storetest.MustOpenDB(t, eng, "guide")
	if !opts.noSample {
		if err := store.LoadGuideSample(t.Context(), db, sample.Generate()); err != nil {
			t.Fatalf("load sample: %v", err)
		}
	}
	if opts.publicLimit == 0 {
		opts.publicLimit = 1000
	}
	clk := clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	doc, err := api.LoadGuide()
	if err != nil {
		t.Fatalf("openapi: %v", err)
	}
	openAPI, err := api.GuideJSON()
	if err != nil {
		t.Fatal(err)
	}
	srv := guideapi.New(guideapi.Config{
		Catalog:        store.NewGuide(db, clk),
		Limiter:        ratelimit.NewMemory(clk),
		PublicLimit:    ratelimit.PerMinute(opts.publicLimit),
		TrustedProxies: opts.trustedProxies,
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		OpenAPI:        openAPI,
	})
	return &env{Client: apitest.New(t, srv, doc), db: db, clock: clk}
}

// count runs a COUNT query.
func (e *env) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := e.db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
