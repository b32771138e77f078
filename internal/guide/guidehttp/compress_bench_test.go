package guidehttp_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/guidehttp"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// BenchmarkCatalogList measures the package list (20 packages, as the load
// benchmark asks for it) through the whole handler, from the catalogue
// cache (hit) and rendered afresh (miss: no cache), with and without
// Accept-Encoding: gzip. BENCHMARKS.md quotes it.
func BenchmarkCatalogList(b *testing.B) {
	db := storetest.MustOpenSample(b, store.SQLite, guidedb.Schema, loadSample)
	clk := clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	for _, c := range []struct {
		name string
		ttl  time.Duration
	}{{"hit", time.Hour}, {"miss", 0}} {
		srv := guidehttp.New(guidehttp.Config{
			Service: &guide.Service{PublicURL: publicURL, Catalog: guidedb.New(db, clk), Clock: clk,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, CatalogCacheTTL: c.ttl,
			Limiter: ratelimit.NewMemory(clk), PublicLimit: ratelimit.PerMinute(1 << 30), OAuth: oauth.New(oauth.Config{}),
		})
		for _, enc := range []string{"identity", "gzip"} {
			b.Run(c.name+"/"+enc, func(b *testing.B) {
				var bytes int
				for b.Loop() {
					req := httptest.NewRequest(http.MethodGet, "/api/v1/packages?country=JP&locale=en&pageSize=20", nil)
					req.Header.Set("Accept-Encoding", enc)
					rec := httptest.NewRecorder()
					srv.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("status %d", rec.Code)
					}
					bytes = rec.Body.Len()
				}
				b.ReportMetric(float64(bytes), "body-bytes")
			})
		}
	}
}
