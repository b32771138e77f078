package guidehttp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

func TestOps(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	if res := e.Get("/healthz").Expect(200); res.JSON()["status"] != "ok" {
		t.Errorf("healthz: %s", res.Body)
	}
	if res := e.Get("/readyz").Expect(200); res.JSON()["status"] != "ready" {
		t.Errorf("readyz: %s", res.Body)
	}
	e.Get("/api/v1/experts").Expect(200)
	e.Get("/api/v1/experts/nobody").Expect(404)
	e.Get("/no/such/route").Expect(404)
	m := string(e.Get("/metrics").Expect(200).Body)
	for _, want := range []string{
		`http_requests_total{method="GET",route="GET /api/v1/experts",server="guide",status="200"} 1`,
		`http_requests_total{method="GET",route="GET /api/v1/experts/{handle}",server="guide",status="404"} 1`,
		`route="unmatched"`,
		`http_request_duration_seconds_bucket{route="GET /api/v1/experts",server="guide"`,
		`rate_limiter_decisions_total{decision="allowed"}`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}

	down := newEnv(t, options{noSample: true, readyChecks: []httpx.Check{
		{Name: "database", Check: func(context.Context) error { return nil }},
		{Name: "redis", Check: func(context.Context) error { return errors.New("dial tcp: connection refused") }},
	}})
	res := down.Get("/readyz").Expect(503)
	if checks := res.JSON()["checks"].(map[string]any); checks["redis"] != "failing" || checks["database"] != "ok" || strings.Contains(string(res.Body), "refused") {
		t.Errorf("readyz with Redis down: %s", res.Body)
	}
	down.Get("/healthz").Expect(200)
}
