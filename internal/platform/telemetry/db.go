package telemetry

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// maxQueryText bounds the statement text a span keeps.
const maxQueryText = 2048

// StartQuery starts the span of an SQL statement run under ctx, named by
// its operation ("SELECT", "INSERT", ...), with system the database
// ("sqlite", "postgresql") and the statement's text, never its
// arguments. It starts none (nil) when ctx carries no recording span.
func StartQuery(ctx context.Context, system, query string) (context.Context, *Span) {
	if active.Load() == nil {
		return ctx, nil
	}
	op := operation(query)
	if len(query) > maxQueryText {
		query = query[:maxQueryText]
	}
	return child(ctx, op, trace.SpanKindClient,
		attribute.String("db.system.name", system),
		attribute.String("db.operation.name", op),
		attribute.String("db.query.text", query))
}

// operation is the first word of query, in capitals.
func operation(query string) string {
	query = strings.TrimLeft(query, " \t\r\n(")
	end := strings.IndexFunc(query, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == '(' || r == ';' })
	if end < 0 {
		end = len(query)
	}
	if end == 0 || end > 16 {
		return "query"
	}
	return strings.ToUpper(query[:end])
}
