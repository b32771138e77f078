package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// TraceParent is the W3C traceparent of the span ctx carries, for work
// that goes on later elsewhere (a job enqueued by a request); "" when
// tracing is off or ctx carries no span.
func TraceParent(ctx context.Context) string {
	if active.Load() == nil || !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"]
}

// StartJob starts the span of an attempt at a job of kind, as a child of
// traceparent (the span that enqueued it, TraceParent) when it is valid,
// else as the root of a trace of its own; nil when tracing is off.
func StartJob(ctx context.Context, kind, id string, attempt int, traceparent string) (context.Context, *Span) {
	t := tracer()
	if t == nil {
		return ctx, nil
	}
	if traceparent != "" {
		ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": traceparent})
	}
	ctx, span := t.Start(ctx, "job "+kind, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
		attribute.String("job.kind", kind),
		attribute.String("job.id", id),
		attribute.Int("job.attempt", attempt),
	))
	return ctx, &Span{span}
}

// StartTask starts the span of a run of periodic work (purges, flushes),
// the root of a trace of its own; nil when tracing is off.
func StartTask(ctx context.Context, name string) (context.Context, *Span) {
	t := tracer()
	if t == nil {
		return ctx, nil
	}
	ctx, span := t.Start(ctx, "task "+name, trace.WithNewRoot(), trace.WithAttributes(attribute.String("task.name", name)))
	return ctx, &Span{span}
}
