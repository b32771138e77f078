package httpx

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the HTTP and limiter measurements of one process.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	limiter  *prometheus.CounterVec
	tools    *prometheus.CounterVec
}

// NewMetrics registers the HTTP metrics in reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "http_requests_total", Help: "HTTP requests by server, route pattern, method and status.",
		}, []string{"server", "route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "http_request_duration_seconds", Help: "HTTP request latency by server and route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"server", "route"}),
		limiter: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rate_limiter_decisions_total", Help: "Rate limiter decisions: allowed, denied, fallback (shared limiter down, local count used) or error (refused with 503).",
		}, []string{"decision"}),
		tools: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_tool_calls_total", Help: "MCP tool calls by server, tool and outcome (ok or the error code).",
		}, []string{"server", "tool", "outcome"}),
	}
	reg.MustRegister(m.requests, m.latency, m.limiter, m.tools)
	return m
}

func (m *Metrics) observe(server, route, method string, status int, d time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(server, route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(server, route).Observe(d.Seconds())
}

// LimiterDecision counts one limiter decision.
func (m *Metrics) LimiterDecision(decision string) {
	if m != nil {
		m.limiter.WithLabelValues(decision).Inc()
	}
}

// ToolCall counts one MCP tool call.
func (m *Metrics) ToolCall(server, tool, outcome string) {
	if m != nil {
		m.tools.WithLabelValues(server, tool, outcome).Inc()
	}
}

// Check is a readiness check of a dependency.
type Check struct {
	Name  string
	Check func(context.Context) error
	// Degrades: the service still serves without the dependency (Redis:
	// rate limits count per replica), so its failure leaves the replica
	// ready and is reported as "degraded" instead; a load balancer must
	// not take every replica out for it.
	Degrades bool
}

// ErrDraining is the failure of the readiness check of a replica that is
// shutting down: it answers 503 so the load balancer stops sending to it
// while it finishes what it has.
var ErrDraining = errors.New("draining")

// HandleHealth answers liveness: the process serves requests.
func HandleHealth(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// HandleReady answers readiness: 200 when every dependency answers within
// two seconds (or only those that Degrades fail: "degraded"), else 503
// naming the ones that failed (without their error text, which is
// logged).
func HandleReady(checks []Check) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		status, state, results := http.StatusOK, "ready", map[string]string{}
		for _, c := range checks {
			err := c.Check(ctx)
			switch {
			case err == nil:
				results[c.Name] = "ok"
			case errors.Is(err, ErrDraining):
				status, state, results[c.Name] = http.StatusServiceUnavailable, "draining", "draining"
			case c.Degrades:
				results[c.Name] = "failing"
				if status == http.StatusOK {
					state = "degraded"
				}
				slog.WarnContext(r.Context(), "readiness check failed; serving degraded", "check", c.Name, "err", err)
			default:
				status, results[c.Name] = http.StatusServiceUnavailable, "failing"
				if state != "draining" {
					state = "not ready"
				}
				logError(r, "readiness check failed", "check", c.Name, "err", err)
			}
		}
		w.Header().Set("Cache-Control", "no-store")
		WriteJSON(w, status, map[string]any{"status": state, "checks": results})
		return nil
	}
}

// HandleMetrics serves the registry in the Prometheus text format.
func HandleMetrics(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{})
}
