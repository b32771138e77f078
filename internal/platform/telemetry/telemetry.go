// Package telemetry traces the work of the server with OpenTelemetry:
// requests, database statements, Redis commands, jobs and outbound HTTP
// calls, with the W3C trace context carried in and out, and the trace id
// added to every log line written under a span. Metrics stay on
// Prometheus (httpx.Metrics).
//
// Tracing is off unless the standard OTEL_* variables ask for OTLP export
// (Setup). Off, every hook here returns after one atomic load, so that
// the instrumentation can stay in place on the hot paths: no span, no
// propagation, no exporter.
//
// Spans never record request or response bodies, headers (Authorization
// among them), query strings, or the arguments of SQL statements and Redis
// commands: a statement's span holds its text with $N placeholders only.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// instrumentation is the name of this code's tracer.
const instrumentation = "github.com/wayfarer-asia/platform"

// DefaultServiceName is the service.name of the spans when
// OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) does
// not say otherwise.
const DefaultServiceName = "wayfarer"

// active holds the tracer while tracing is on; nil while it is off. The
// hooks load it first and return at once when it is nil.
var active atomic.Pointer[tracerBox]

type tracerBox struct{ trace.Tracer }

// tracer returns the tracer, or nil when tracing is off.
func tracer() trace.Tracer {
	if b := active.Load(); b != nil {
		return b.Tracer
	}
	return nil
}

// Enabled reports whether tracing is on.
func Enabled() bool { return active.Load() != nil }

// propagator carries the W3C trace context and baggage in and out.
var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Use turns tracing on with tp (the tests' in-process recorder, or the
// provider Setup built) and makes it and the W3C propagators the global
// ones, for any library that asks otel for them. It returns the function
// that turns tracing off again.
func Use(tp trace.TracerProvider) (off func()) {
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagator)
	active.Store(&tracerBox{tp.Tracer(instrumentation)})
	return func() { active.Store(nil) }
}

// Exporting tells whether the environment turns tracing on, by the rule
// Setup applies:
//
//   - OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none: off;
//   - OTEL_TRACES_EXPORTER=otlp: on;
//   - OTEL_TRACES_EXPORTER unset: on when OTEL_EXPORTER_OTLP_ENDPOINT or
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, else off.
//
// Any other exporter, and any protocol but http/protobuf, is an error:
// this build exports OTLP over HTTP only.
func Exporting(getenv func(string) string) (bool, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	on := false
	switch exp := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exp {
	case "none":
		return false, nil
	case "otlp":
		on = true
	case "":
		on = getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	default:
		return false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: only otlp (or none) is supported", exp)
	}
	if !on {
		return false, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := strings.TrimSpace(getenv(name)); p != "" {
			if p != "http/protobuf" {
				return false, fmt.Errorf("%s=%s: only http/protobuf is supported", name, p)
			}
			break // the traces' own setting wins
		}
	}
	return true, nil
}

// Setup turns tracing on when the environment asks for it (Exporting):
// spans then go in batches to the OTLP/HTTP endpoint that the standard
// variables name (OTEL_EXPORTER_OTLP_ENDPOINT, _TRACES_ENDPOINT,
// _HEADERS, _TIMEOUT, _COMPRESSION, _CERTIFICATE...), sampled as
// OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG say (by default every
// trace, or as the caller's traceparent decided), batched as the
// OTEL_BSP_* variables say, and described by OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. The W3C propagators are set in any case.
//
// The returned function flushes the spans still buffered and stops the
// exporter; call it once the servers and jobs have stopped. When tracing
// is off it does nothing.
func Setup(ctx context.Context) (shutdown func(context.Context) error, err error) {
	otel.SetTextMapPropagator(propagator)
	on, err := Exporting(os.Getenv)
	if err != nil || !on {
		return func(context.Context) error { return nil }, err
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", DefaultServiceName)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
		resource.WithTelemetrySDK(),
		resource.WithHost(),
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	off := Use(tp)
	return func(ctx context.Context) error {
		off()
		return tp.Shutdown(ctx)
	}, nil
}

// Span is a span that this package started, or nil when it started none
// (tracing off, or nothing traced around): its methods accept nil.
type Span struct{ trace.Span }

// End ends the span, marking it failed when err is not nil.
func (s *Span) End(err error) {
	if s == nil {
		return
	}
	if err != nil {
		s.RecordError(err)
		s.SetStatus(codes.Error, err.Error())
	}
	s.Span.End()
}

// child starts a span under the one ctx carries, or none when ctx carries
// no span that records: a statement or command outside any request or
// job (a claim of jobs, SQLite's batch commits, a readiness ping) starts
// no trace of its own.
func child(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, *Span) {
	t := tracer()
	if t == nil || !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, nil
	}
	ctx, span := t.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, &Span{span}
}
