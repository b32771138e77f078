package telemetry_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// The tests here turn tracing on and off for the whole process, so none
// runs in parallel.

func TestExporting(t *testing.T) {
	for _, c := range []struct {
		env     map[string]string
		on      bool
		wantErr string
	}{
		{env: nil, on: false},
		{env: map[string]string{"OTEL_SERVICE_NAME": "api"}, on: false},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, on: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, on: false},
		{env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, on: false},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, wantErr: "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, wantErr: "OTEL_TRACES_EXPORTER=zipkin"},
		// A protocol alone turns nothing on.
		{env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: false},
	} {
		on, err := telemetry.Exporting(func(k string) string { return c.env[k] })
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: err = %v, want %s", c.env, err, c.wantErr)
			}
			continue
		}
		if err != nil || on != c.on {
			t.Errorf("%v: on = %v, %v; want %v", c.env, on, err, c.on)
		}
	}
}

// TestSetup: with no OTEL_* variable, Setup turns nothing on and its
// shutdown does nothing; with an endpoint, spans go to it over OTLP/HTTP
// as the process shuts down, under OTEL_SERVICE_NAME.
func TestSetup(t *testing.T) {
	for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_SAMPLER"} {
		if _, ok := os.LookupEnv(k); ok {
			t.Setenv(k, "") // restored after the test
			os.Unsetenv(k)
		}
	}
	shutdown, err := telemetry.Setup(t.Context())
	if err != nil || telemetry.Enabled() {
		t.Fatalf("Setup without OTEL_* variables: enabled %v, %v", telemetry.Enabled(), err)
	}
	if err := shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ctx, span := telemetry.StartRequest(t.Context(), httptest.NewRequest("GET", "/", nil), "r1"); span != nil || trace.SpanContextFromContext(ctx).IsValid() {
		t.Fatal("a span while tracing is off")
	}

	var mu sync.Mutex
	var got []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type")+" "+string(body))
		mu.Unlock()
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SERVICE_NAME", "wayfarer-test")
	shutdown, err = telemetry.Setup(t.Context())
	if err != nil || !telemetry.Enabled() {
		t.Fatalf("Setup with an endpoint: enabled %v, %v", telemetry.Enabled(), err)
	}
	_, span := telemetry.StartRequest(t.Context(), httptest.NewRequest("GET", "/api/v1/experts/e1", nil), "r1")
	span.EndRequest("GET", "GET /api/v1/experts/{id}", 200)
	if err := shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if telemetry.Enabled() {
		t.Error("still enabled after shutdown")
	}
	mu.Lock()
	defer mu.Unlock()
	gotExport := map[string]any{"requests": len(got)}
	if len(got) > 0 {
		gotExport["otlpPost"], gotExport["service"], gotExport["route"] = strings.HasPrefix(got[0], "POST /v1/traces application/x-protobuf"),
			strings.Contains(got[0], "wayfarer-test"), strings.Contains(got[0], "GET /api/v1/experts/{id}")
	}
	wantExport := map[string]any{"requests": 1, "otlpPost": true, "service": true, "route": true}
	if diff := cmp.Diff(wantExport, gotExport); diff != "" {
		t.Errorf("the collector got %q (-want +got):\n%s", got, diff)
	}
}

func record(t *testing.T) *tracetest.SpanRecorder {
	rec := tracetest.NewSpanRecorder()
	t.Cleanup(telemetry.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))))
	return rec
}

// TestChildSpans: statements, Redis commands and outbound calls are traced
// only under a span (a claim or a ping starts no trace), keep no
// arguments, and an outbound call carries the traceparent of its span.
func TestChildSpans(t *testing.T) {
	rec := record(t)
	ctx := t.Context()
	if _, s := telemetry.StartQuery(ctx, "sqlite", "SELECT 1"); s != nil {
		t.Error("a statement outside any span started a trace")
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer rdb.Close()
	rdb.AddHook(telemetry.RedisHook{})
	rdb.Get(ctx, "rl:key-of-a-client")
	if n := len(rec.Ended()); n != 0 {
		t.Fatalf("%d spans outside any span", n)
	}

	ctx, job := telemetry.StartJob(ctx, "push.device", "j1", 2, "")
	qctx, q := telemetry.StartQuery(ctx, "postgresql", "\n\t  update jobs SET done_at = $2 WHERE id = $1")
	if trace.SpanFromContext(qctx).SpanContext().SpanID() == trace.SpanFromContext(ctx).SpanContext().SpanID() {
		t.Error("the statement's context does not carry its span")
	}
	q.End(errors.New("deadlock"))
	rdb.Get(ctx, "rl:key-of-a-client")
	var header string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header = r.Header.Get("traceparent")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	client := &http.Client{Transport: telemetry.Transport(nil)}
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/send?token=secret", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.Header.Get("traceparent") != "" {
		t.Error("the transport changed the caller's request")
	}
	_, rt := telemetry.StartRealtime(ctx, "publish")
	rt.End(nil)
	job.End(nil)

	spans := rec.Ended()
	if len(spans) != 5 {
		t.Fatalf("spans: %d", len(spans))
	}
	jobID := spans[4].SpanContext().SpanID()
	for _, s := range spans[:4] {
		if s.Parent().SpanID() != jobID {
			t.Errorf("%s: parent %v, want the job's span", s.Name(), s.Parent().SpanID())
		}
		for _, kv := range s.Attributes() {
			if v := kv.Value.String(); strings.Contains(v, "key-of-a-client") || strings.Contains(v, "secret") {
				t.Errorf("%s: %s = %s", s.Name(), kv.Key, v)
			}
		}
	}
	if s := spans[0]; s.Name() != "UPDATE" || s.Status().Code != codes.Error {
		t.Errorf("statement span %q, status %v", s.Name(), s.Status())
	}
	if s := spans[1]; s.Name() != "get" || s.Status().Code != codes.Error {
		t.Errorf("Redis span %q, status %v", s.Name(), s.Status())
	}
	clientSpan := spans[2]
	gotClient := map[string]any{"name": clientSpan.Name(), "kind": clientSpan.SpanKind(), "status": clientSpan.Status().Code, "traceparent": header}
	wantClient := map[string]any{"name": "POST", "kind": trace.SpanKindClient, "status": codes.Error,
		"traceparent": "00-" + clientSpan.SpanContext().TraceID().String() + "-" + clientSpan.SpanContext().SpanID().String() + "-01"}
	if diff := cmp.Diff(wantClient, gotClient); diff != "" {
		t.Errorf("client span (-want +got):\n%s", diff)
	}
	if s := spans[3]; s.Name() != "realtime publish" || s.SpanKind() != trace.SpanKindClient || s.Status().Code != codes.Unset {
		t.Errorf("realtime span %q (%v, %v)", s.Name(), s.SpanKind(), s.Status())
	}
	if s := spans[4]; s.Name() != "job push.device" || s.SpanKind() != trace.SpanKindConsumer || s.Parent().IsValid() {
		t.Errorf("job span %q, parent %v", s.Name(), s.Parent())
	}
}

// TestJobTraceParent: a job enqueued under a span keeps its traceparent and
// runs as that span's child.
func TestJobTraceParent(t *testing.T) {
	rec := record(t)
	ctx, req := telemetry.StartRequest(t.Context(), httptest.NewRequest("POST", "/api/v1/bookings", nil), "r1")
	tp := telemetry.TraceParent(ctx)
	req.EndRequest("POST", "", 201)
	_, job := telemetry.StartJob(context.Background(), "webhook.deliver", "j1", 1, tp)
	job.End(nil)
	spans := rec.Ended()
	if len(spans) != 2 || spans[1].Parent().SpanID() != spans[0].SpanContext().SpanID() || spans[1].SpanContext().TraceID() != spans[0].SpanContext().TraceID() {
		t.Fatalf("job span not the request's child: %v", spans)
	}
	if spans[0].Name() != "POST" {
		t.Errorf("a request no route served is named %q", spans[0].Name())
	}

	// Periodic work starts a trace of its own, whatever ctx carries, and
	// the jobs it enqueues join it.
	tctx, task := telemetry.StartTask(ctx, "expired quote holds")
	if trace.SpanContextFromContext(tctx).TraceID() == spans[0].SpanContext().TraceID() || telemetry.TraceParent(tctx) == "" {
		t.Error("a task joined the trace around it, or gives its jobs no traceparent")
	}
	task.End(nil)
	if s := rec.Ended()[2]; s.Name() != "task expired quote holds" || s.Parent().IsValid() {
		t.Errorf("task span %q, parent %v", s.Name(), s.Parent())
	}
}

func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewJSONHandler(&buf, nil))).With("server", "guide")
	log.InfoContext(t.Context(), "off")
	record(t)
	ctx, span := telemetry.StartJob(t.Context(), "k", "j1", 1, "")
	log.InfoContext(ctx, "on")
	log.InfoContext(t.Context(), "no span")
	span.End(nil)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sc := trace.SpanContextFromContext(ctx)
	gotLines := map[string]any{"lines": len(lines)}
	if len(lines) == 3 {
		gotLines["offTraced"], gotLines["noSpanTraced"] = strings.Contains(lines[0], "trace_id"), strings.Contains(lines[2], "trace_id")
		gotLines["onTraced"] = strings.Contains(lines[1], `"trace_id":"`+sc.TraceID().String()+`","span_id":"`+sc.SpanID().String()+`"`)
	}
	wantLines := map[string]any{"lines": 3, "offTraced": false, "noSpanTraced": false, "onTraced": true}
	if diff := cmp.Diff(wantLines, gotLines); diff != "" {
		t.Errorf("log lines (-want +got):\n%s\n%s", diff, buf.String())
	}
}
