package httpx_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// BenchmarkOuterTracing is a request through Outer and a Router to a
// handler that does nothing, with tracing off (the default: what the
// instrumentation costs every request) and on (spans made and dropped,
// no exporter).
func BenchmarkOuterTracing(b *testing.B) {
	rt := httpx.NewRouter()
	rt.Handle("GET /api/v1/experts/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	outer := &httpx.Outer{Logger: slog.New(telemetry.LogHandler(slog.NewJSONHandler(io.Discard, nil))), PublicURL: "https://api.test"}
	h := outer.Wrap(rt)
	req := httptest.NewRequest("GET", "/api/v1/experts/e1", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	run := func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.ServeHTTP(discard{}, req)
		}
	}
	b.Run("off", run)
	b.Run("on", func(b *testing.B) {
		defer telemetry.Use(sdktrace.NewTracerProvider())()
		run(b)
	})
}

type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}
