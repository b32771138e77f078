package telemetry_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

type benchKey struct{}

// BenchmarkHooksOff is what tracing costs a request while it is off: the
// request's hooks and one statement's.
func BenchmarkHooksOff(b *testing.B) {
	req := httptest.NewRequest("GET", "/api/v1/experts/e1", nil)
	ctx := context.WithValue(context.Background(), benchKey{}, 1) // a request's context holds values

	b.ReportAllocs()
	for b.Loop() {
		rctx, span := telemetry.StartRequest(ctx, req, "r1")
		qctx, q := telemetry.StartQuery(rctx, "sqlite", "SELECT 1")
		q.End(nil)
		_ = telemetry.TraceParent(qctx)
		span.EndRequest("GET", "GET /api/v1/experts/{id}", 200)
	}
}
