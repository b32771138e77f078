package telemetry

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// StartRequest starts the server span of request r under the trace of its
// traceparent header, when it has a valid one, and returns the context to
// serve it with; nil span when tracing is off. The span is named by the
// route once it is known (EndRequest): by the method alone until then.
func StartRequest(ctx context.Context, r *http.Request, requestID string) (context.Context, *Span) {
	t := tracer()
	if t == nil {
		return ctx, nil
	}
	ctx = propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	ctx, span := t.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("http.request.method", r.Method),
		attribute.String("url.path", r.URL.Path), // never the query: it may hold a token
		attribute.String("url.scheme", scheme),
		attribute.String("http.request.id", requestID),
	))
	return ctx, &Span{span}
}

// EndRequest names the server span by pattern, the route that served the
// request ("GET /api/v1/experts/{id}"; "" when none did), records the
// status and ends it. A 5xx marks the span failed.
func (s *Span) EndRequest(method, pattern string, status int) {
	if s == nil {
		return
	}
	if pattern != "" {
		route := pattern
		if m, rest, ok := strings.Cut(pattern, " "); ok {
			method, route = m, rest
		}
		s.SetName(method + " " + route)
		s.SetAttributes(attribute.String("http.route", route))
	}
	s.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		s.SetStatus(codes.Error, http.StatusText(status))
	}
	s.Span.End()
}

// Transport returns base (http.DefaultTransport when nil) with a client
// span around each request made under a trace, and the request's
// traceparent header set to that span, so that the service called
// continues the trace: webhook deliveries, push and AI calls.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{base: base}
}

type transport struct{ base http.RoundTripper }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	tr := tracer()
	if tr == nil || !trace.SpanContextFromContext(req.Context()).IsValid() {
		return t.base.RoundTrip(req)
	}
	port := req.URL.Port()
	if port == "" {
		port = "80"
		if req.URL.Scheme == "https" {
			port = "443"
		}
	}
	p, _ := strconv.Atoi(port)
	ctx, span := tr.Start(req.Context(), req.Method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("http.request.method", req.Method),
		attribute.String("server.address", req.URL.Hostname()),
		attribute.Int("server.port", p),
		// Scheme, host and path: no query or user info, which may hold
		// a secret.
		attribute.String("url.full", req.URL.Scheme+"://"+req.URL.Host+req.URL.EscapedPath()),
	))
	defer span.End()
	// A RoundTripper must not change the caller's request.
	req = req.Clone(ctx)
	propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return resp, err
	}
	span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	if resp.StatusCode >= 400 {
		span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
	}
	return resp, nil
}

// CloseIdleConnections passes the call on to base, as http.Client's does.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
