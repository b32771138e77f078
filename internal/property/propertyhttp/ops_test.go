package propertyhttp_test

import (
	"strings"
	"testing"
)

func TestOps(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	e.Get("/healthz").Expect(200)
	if res := e.Get("/readyz").Expect(200); res.JSON()["status"] != "ready" {
		t.Errorf("readyz: %s", res.Body)
	}
	// Probes are not counted against the per-IP budget.
	if res := e.Get("/healthz"); res.Header.Get("X-RateLimit-Limit") != "" {
		t.Errorf("a probe was rate limited: %v", res.Header)
	}
	if m := string(e.Get("/metrics").Expect(200).Body); !strings.Contains(m, "# HELP") && m != "" {
		t.Errorf("metrics: %q", m[:min(len(m), 200)])
	}
}
