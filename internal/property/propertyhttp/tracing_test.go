package propertyhttp_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// TestTracing follows one booking through its trace: the request's server
// span continues the caller's traceparent and is named by its route; its
// statements are child spans holding their SQL but none of the guest's
// data; the webhook delivery it enqueued runs in a job span of the same
// trace, whose outbound call is a client span, and the receiver gets that
// call's traceparent. The request's log line carries the trace id. Once
// tracing is off, nothing is recorded and no traceparent goes out.
//
// Tracing is on or off for the whole process: the engines take turns, and
// the other tests, running beside, only add spans of their own traces.
func TestTracing(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			off := telemetry.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
			defer off()
			var logs lockedBuffer
			e := newEnv(t, options{logger: slog.New(telemetry.LogHandler(slog.NewJSONHandler(&logs, nil)))}, engine)
			r := e.tokyoDouble(t)
			d := e.signup(t)
			live := e.key(t, d, "live")
			rc := apitest.NewReceiver(t)
			var ep struct{ Secret string }
			e.Do("POST", "/portal/api/webhooks", map[string]any{"url": rc.URL, "types": []string{"booking.created"}},
				bearer(d.token)...).Expect(201).Decode(&ep)
			rc.SetSecrets(ep.Secret)
			runner := &jobs.Runner{Jobs: store.NewJobs(e.db, e.clock), Clock: e.clock}
			(&changes.Sender{Store: e.hooks, Client: changes.NewClient(changes.Policy{AllowHosts: []string{"127.0.0.1"}})}).Register(runner)

			const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
			booking := map[string]any{"propertyId": r.propertyID, "roomTypeId": r.roomTypeID, "checkIn": day(10).String(),
				"checkOut": day(12).String(), "guests": 2, "guest": guest}
			res := e.Do("POST", "/api/v1/bookings", booking, append(xkey(live), "traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")...).Expect(201)
			if n, err := runner.RunOnce(t.Context()); err != nil || n != 1 {
				t.Fatalf("run: %d, %v", n, err)
			}

			var inTrace []sdktrace.ReadOnlySpan
			for _, s := range rec.Ended() {
				if s.SpanContext().TraceID().String() == callerTrace {
					inTrace = append(inTrace, s)
				}
			}
			find := func(name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
				t.Helper()
				for _, s := range inTrace {
					if s.Name() == name && s.SpanKind() == kind {
						return s
					}
				}
				t.Fatalf("no %s span %q in the trace; spans: %v", kind, name, names(inTrace))
				return nil
			}
			server := find("POST /api/v1/bookings", trace.SpanKindServer)
			if p := server.Parent(); !p.IsRemote() || p.SpanID().String() != callerSpan {
				t.Errorf("server span's parent = %v, want the caller's span", p)
			}
			if a := attrs(server); a["http.route"] != "/api/v1/bookings" || a["http.response.status_code"] != "201" ||
				a["http.request.id"] != res.Header.Get("X-Request-Id") {
				t.Errorf("server span attributes = %v", a)
			}
			job := find("job "+changes.JobDeliver, trace.SpanKindConsumer)
			if job.Parent().SpanID() != server.SpanContext().SpanID() {
				t.Errorf("job span's parent = %v, want the request's span", job.Parent().SpanID())
			}
			client := find("POST", trace.SpanKindClient)
			if client.Parent().SpanID() != job.SpanContext().SpanID() || attrs(client)["http.response.status_code"] != "200" {
				t.Errorf("client span: parent %v, attributes %v", client.Parent().SpanID(), attrs(client))
			}
			want := "00-" + callerTrace + "-" + client.SpanContext().SpanID().String() + "-01"
			if got := rc.Unique(); len(got) != 1 || got[0].TraceParent != want {
				t.Errorf("delivery traceparent = %+v, want %s", got, want)
			}

			// Statements: under the request and under the job, with their
			// text and never their arguments.
			system := map[store.Engine]string{store.SQLite: "sqlite", store.Postgres: "postgresql"}[engine]
			byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
			for _, s := range inTrace {
				byID[s.SpanContext().SpanID()] = s
			}
			under := map[trace.SpanID]int{}
			for _, s := range inTrace {
				a := attrs(s)
				for k, v := range a {
					for _, secret := range []string{"mei.tan@example.com", "6123 4567", live} {
						if strings.Contains(v, secret) {
							t.Errorf("span %q attribute %s holds %q", s.Name(), k, secret)
						}
					}
				}
				if a["db.system.name"] != system {
					continue
				}
				if a["db.query.text"] == "" || a["db.operation.name"] != s.Name() {
					t.Errorf("statement span %q: %v", s.Name(), a)
				}
				for p := s.Parent().SpanID(); p.IsValid(); p = byID[p].Parent().SpanID() {
					if p == server.SpanContext().SpanID() || p == job.SpanContext().SpanID() {
						under[p]++
						break
					}
					if byID[p] == nil {
						break
					}
				}
			}
			if under[server.SpanContext().SpanID()] == 0 || under[job.SpanContext().SpanID()] == 0 {
				t.Errorf("statement spans under the request: %d, under the job: %d; spans: %v",
					under[server.SpanContext().SpanID()], under[job.SpanContext().SpanID()], names(inTrace))
			}

			line := logs.line(t, `"path":"/api/v1/bookings"`)
			if line["trace_id"] != callerTrace || line["span_id"] != server.SpanContext().SpanID().String() {
				t.Errorf("request log line = %v", line)
			}

			// Off: the same work records nothing and sends no traceparent.
			off()
			offAt := time.Now()
			logs.reset()
			booking["checkIn"], booking["checkOut"] = day(20).String(), day(21).String()
			e.Do("POST", "/api/v1/bookings", booking, append(xkey(live), "traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")...).Expect(201)
			if n, err := runner.RunOnce(t.Context()); err != nil || n != 1 {
				t.Fatalf("run: %d, %v", n, err)
			}
			// A span may still start under one that started before: the
			// request of a test beside this one, in flight at the switch.
			started := map[trace.SpanID]time.Time{}
			for _, s := range rec.Started() {
				started[s.SpanContext().SpanID()] = s.StartTime()
			}
			for _, s := range rec.Ended() {
				parentStart, ok := started[s.Parent().SpanID()]
				if s.StartTime().After(offAt) && (!ok || parentStart.After(offAt)) {
					t.Errorf("span %q recorded with tracing off", s.Name())
				}
			}
			if got := rc.Unique(); len(got) != 2 || got[1].TraceParent != "" {
				t.Errorf("deliveries with tracing off: %+v", got)
			}
			if line := logs.line(t, `"path":"/api/v1/bookings"`); line["trace_id"] != nil {
				t.Errorf("log line with tracing off: %v", line)
			}
		})
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.SpanKind().String()+" "+s.Name())
	}
	return out
}

// attrs are a span's attributes as text.
func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// lockedBuffer collects JSON log lines written from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// line decodes the last log line that contains substr.
func (b *lockedBuffer) line(t *testing.T, substr string) map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(b.buf.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], substr) {
			var m map[string]any
			if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no log line with %s in:\n%s", substr, b.buf.String())
	return nil
}
