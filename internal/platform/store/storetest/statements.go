package storetest

import (
	"crypto/rand"
	"encoding/hex"
	"sort"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// Statements returns the text of every SQL statement that do ran under a
// trace of its own, in the order they started: do sends its request(s)
// with the traceparent header it is given. On PostgreSQL the list holds
// the transaction's begin and commit, each a round trip; on SQLite it
// holds neither (the writer goroutine begins and commits a batch on its
// own), nor the savepoints of a batch.
//
// Tracing is on for the whole process while do runs: a test that calls
// Statements must not run in parallel with another that turns tracing on
// or off.
func Statements(tb testing.TB, do func(traceparent string)) []string {
	tb.Helper()
	rec := tracetest.NewSpanRecorder()
	off := telemetry.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	var id [16]byte
	rand.Read(id[:])
	traceID := hex.EncodeToString(id[:])
	do("00-" + traceID + "-00f067aa0ba902b7-01")
	off()
	spans := rec.Ended()
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].StartTime().Before(spans[j].StartTime()) })
	var out []string
	for _, s := range spans {
		if s.SpanContext().TraceID().String() != traceID {
			continue
		}
		if q, ok := attr(s.Attributes(), "db.query.text"); ok {
			out = append(out, q)
		}
	}
	return out
}

func attr(kvs []attribute.KeyValue, key attribute.Key) (string, bool) {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value.AsString(), true
		}
	}
	return "", false
}
