package main_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestMetricsOnAPIPorts: METRICS_ADDR=api serves /metrics on the public
// ports instead of a listener of its own (by default it has one: see
// TestGracefulShutdown); GET / sends browsers to the pages people start
// from.
func TestMetricsOnAPIPorts(t *testing.T) {
	t.Parallel()
	p := newProcess(t, build(t))
	p.env = append(p.env, "METRICS_ADDR=api", "SAMPLE_DATA=off")
	p.start()
	defer func() { p.cmd.Process.Kill(); p.cmd.Wait() }()

	res, err := http.Get(p.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "go_goroutines") {
		t.Fatalf("public /metrics: %d %.200s", res.StatusCode, body)
	}

	// GET / redirects to the reference (guide).
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = noFollow.Get(p.base + "/")
	if err != nil || res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/docs/" {
		t.Fatalf("GET /: %v %v", res, err)
	}
}
