package main_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestMetricsAddr: with METRICS_ADDR, /metrics moves to its own listener
// and the public ports answer 404 for it; GET / sends browsers to the
// pages people start from.
func TestMetricsAddr(t *testing.T) {
	t.Parallel()
	p := newProcess(t, build(t))
	metricsAddr := freePort(t)
	p.env = append(p.env, "METRICS_ADDR="+metricsAddr, "SAMPLE_DATA=off")
	p.start()
	defer func() { p.cmd.Process.Kill(); p.cmd.Wait() }()

	res, err := http.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "http_requests_total") && !strings.Contains(string(body), "go_goroutines") {
		t.Fatalf("metrics listener: %d %.200s", res.StatusCode, body)
	}
	if res, err := http.Get(p.base + "/metrics"); err != nil || res.StatusCode != 404 {
		t.Fatalf("public port still serves /metrics: %v %v", res, err)
	}

	// GET / redirects to the reference (guide).
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = noFollow.Get(p.base + "/")
	if err != nil || res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/docs/" {
		t.Fatalf("GET /: %v %v", res, err)
	}
}
