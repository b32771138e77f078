package propertyhttp_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/mcpx"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestMCPPropertyMetersEveryMessage: each JSON-RPC message counts against
// the key's budget, alone or in a batch, and every answer carries the
// X-RateLimit-* headers; a batch over mcpx.MaxBatch is refused whole
// with a JSON-RPC error and counts as one.
func TestMCPPropertyMetersEveryMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{keyLimit: 5})
	d := e.signup(t)
	ts := httptest.NewServer(e.srv)
	defer ts.Close()
	post := func(key, body string) (int, string, string) {
		res, b := mcptest.Post(t, ts.URL+"/mcp", body, "X-API-KEY", key)
		return res.StatusCode, res.Header.Get("X-RateLimit-Remaining"), string(b)
	}

	batched := e.key(t, d, "test", "properties:read")
	status, remaining, body := post(batched, mcptest.Batch(5, "tools/list"))
	var answers []json.RawMessage
	err := json.Unmarshal([]byte(body), &answers)
	got := map[string]any{"status": status, "decodes": err == nil, "answers": len(answers), "remaining": remaining}
	want := map[string]any{"status": 200, "decodes": true, "answers": 5, "remaining": "0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("batch of 5 (-want +got):\n%s\n%v %.300s", diff, err, body)
	}
	if status, _, body := post(batched, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 429 || !strings.Contains(body, `"code":"RATE_LIMITED"`) {
		t.Errorf("notification after the batch: %d %s", status, body)
	}

	single := e.key(t, d, "test", "properties:read")
	for i, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_properties","arguments":{}}}`,
	} {
		status, remaining, body := post(single, msg)
		if (status != 200 && status != 202) || remaining != fmt.Sprint(4-i) {
			t.Fatalf("message %d: %d remaining %q %.300s", i, status, remaining, body)
		}
	}
	if status, _, body := post(single, `{"jsonrpc":"2.0","id":5,"method":"ping"}`); status != 429 || !strings.Contains(body, `"code":"RATE_LIMITED"`) {
		t.Errorf("sixth message: %d %s", status, body)
	}

	bounded := e.key(t, d, "test", "properties:read")
	res, b := mcptest.Post(t, ts.URL+"/mcp", mcptest.Batch(mcpx.MaxBatch+1, "tools/list"), "X-API-KEY", bounded)
	if rpc := mcptest.DecodeRPCError(t, res, b); res.StatusCode != 400 || rpc.Error.Code != -32600 || res.Header.Get("X-RateLimit-Remaining") != "4" {
		t.Errorf("batch of %d: %d %q %s", mcpx.MaxBatch+1, res.StatusCode, res.Header.Get("X-RateLimit-Remaining"), b)
	}
}

// TestMCPPropertyTransportAnswers: an unknown method is -32601 in JSON, a
// notification 202 with the X-RateLimit-* headers, a foreign Origin 403.
func TestMCPPropertyTransportAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	key := e.key(t, e.signup(t), "test", "properties:read")
	ts := httptest.NewServer(e.srv)
	defer ts.Close()

	res, body := mcptest.Post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":"a","method":"prompts/list"}`, "X-API-KEY", key)
	rpc := mcptest.DecodeRPCError(t, res, body)
	got := map[string]any{"status": res.StatusCode, "rpc code": rpc.Error.Code, "id": rpc.ID, "rate limit set": res.Header.Get("X-RateLimit-Limit") != ""}
	want := map[string]any{"status": 200, "rpc code": -32601, "id": "a", "rate limit set": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unknown method (-want +got):\n%s\n%s", diff, body)
	}
	res, body = mcptest.Post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "X-API-KEY", key)
	if res.StatusCode != 202 || len(body) != 0 || res.Header.Get("X-RateLimit-Limit") == "" {
		t.Errorf("notification: %d %q %v", res.StatusCode, body, res.Header)
	}
	res, body = mcptest.Post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"`, "X-API-KEY", key)
	if rpc := mcptest.DecodeRPCError(t, res, body); res.StatusCode != 400 || rpc.Error.Code != -32700 {
		t.Errorf("malformed: %d %s", res.StatusCode, body)
	}
	res, body = mcptest.Post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "X-API-KEY", key, "Origin", "https://evil.example")
	if rpc := mcptest.DecodeRPCError(t, res, body); res.StatusCode != 403 || rpc.ID != nil || res.Header.Get("X-RateLimit-Limit") == "" {
		t.Errorf("foreign origin: %d %s", res.StatusCode, body)
	}
	if res, body = mcptest.Post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "X-API-KEY", key, "Origin", publicURL); res.StatusCode != 200 {
		t.Errorf("our origin: %d %s", res.StatusCode, body)
	}
}

// TestMCPPropertyOutputsMatchSchemas: every tool's structured output, on
// the sample data and a booking made through the tools, validates against
// the output schema it declares, on both engines.
func TestMCPPropertyOutputsMatchSchemas(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			r := e.tokyoDouble(t)
			cs := mcpSession(t, e, "X-API-KEY", e.key(t, e.signup(t), "test"))
			out := mcptest.CheckOutputs(t, cs, false,
				mcptest.Check{Name: "create_quote", Args: stay(r, day(10), 2, 2)})
			var quote struct{ ID string }
			json.Unmarshal(out["create_quote"], &quote)
			out = mcptest.CheckOutputs(t, cs, false,
				mcptest.Check{Name: "book", Args: map[string]any{"quoteId": quote.ID, "guest": guest}})
			var booking struct{ ID string }
			json.Unmarshal(out["book"], &booking)
			mcptest.CheckOutputs(t, cs, true,
				mcptest.Check{Name: "search_properties", Args: map[string]any{"checkIn": day(10).String(), "checkOut": day(12).String(), "guests": 2}},
				mcptest.Check{Name: "search_properties"},
				mcptest.Check{Name: "get_property", Args: map[string]any{"id": r.propertyID}},
				mcptest.Check{Name: "get_availability", Args: map[string]any{"id": r.propertyID}},
				mcptest.Check{Name: "list_bookings"},
				mcptest.Check{Name: "get_booking", Args: map[string]any{"id": booking.ID}},
				mcptest.Check{Name: "cancel_booking", Args: map[string]any{"id": booking.ID}},
				mcptest.Check{Name: "list_bookings", Args: map[string]any{"status": "CANCELLED"}})
		})
	}
}

// TestMCPPropertyAnswersMatchDocument: the transport's answers (200, 202,
// the JSON-RPC 400 and 403, 429) pass the document's validation, with the
// X-RateLimit-* headers it requires.
func TestMCPPropertyAnswersMatchDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{keyLimit: 6})
	key := e.key(t, e.signup(t), "test", "properties:read")
	h := []string{"X-API-KEY", key, "Accept", "application/json, text/event-stream"}
	e.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, h...).Expect(200)
	e.Do("POST", "/mcp", mcptest.Batch(2, "tools/list"), h...).Expect(200)
	e.Do("POST", "/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h...).Expect(202)
	e.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":"x","method":"no/such"}`, h...).Expect(200)
	e.Do("POST", "/mcp", mcptest.Batch(mcpx.MaxBatch+1, "ping"), h...).Expect(400)
	e.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, append(h, "Origin", "https://evil.example")...).Expect(403)
	e.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, h...).Expect(429)
}

// TestMCPPropertyOrigins: the endpoint serves and refuses Host and Origin
// pairs as mcptest.Origins says.
func TestMCPPropertyOrigins(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	key := e.key(t, e.signup(t), "test", "properties:read")
	got, want := map[string]int{}, map[string]int{}
	for _, c := range mcptest.Origins(publicURL) {
		res := e.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Host", c.Host, "Origin", c.Origin,
			"X-API-KEY", key, "Accept", "application/json, text/event-stream")
		got[c.Host+" "+c.Origin], want[c.Host+" "+c.Origin] = res.Status, c.Status
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses by Host and Origin (-want +got):\n%s", diff)
	}
}
