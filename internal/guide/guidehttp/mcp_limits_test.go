package guidehttp_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/mcpx"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// limitedKey makes a key of u with scopes and a rate limit of limit a
// minute.
func (e *env) limitedKey(t *testing.T, u user, limit int, scopes ...string) string {
	t.Helper()
	var res struct{ Data struct{ Key string } }
	e.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "agent", "scopes": scopes, "rateLimit": limit},
		bearer(u.token)...).Expect(201).Decode(&res)
	return res.Data.Key
}

// TestMCPMetersEveryMessage: each JSON-RPC message counts against the
// key's budget, whatever its method, alone or in a batch; once the budget
// is spent the request is refused with 429 and nothing is answered.
func TestMCPMetersEveryMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "mcp-meter@example.com", "TOURIST")
	ts := httptest.NewServer(e.srv)
	defer ts.Close()
	post := func(key, body string) (int, string, string) {
		res, b := mcptest.Post(t, ts.URL+"/mcp", body, "Authorization", "Bearer "+key)
		return res.StatusCode, res.Header.Get("X-RateLimit-Remaining"), string(b)
	}

	// A batch of five tools/list spends a budget of five.
	batched := e.limitedKey(t, u, 5, "experts:read")
	status, remaining, body := post(batched, mcptest.Batch(5, "tools/list"))
	var answers []struct {
		ID     int
		Result struct{ Tools []any }
	}
	err := json.Unmarshal([]byte(body), &answers)
	got := map[string]any{"status": status, "decoded": err == nil, "answers": len(answers), "remaining": remaining}
	if len(answers) == 5 {
		got["lastHasTools"] = len(answers[4].Result.Tools) != 0
	}
	want := map[string]any{"status": 200, "decoded": true, "answers": 5, "remaining": "0", "lastHasTools": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("batch of 5 (-want +got):\n%s\n%.300s", diff, body)
	}
	status, _, body = post(batched, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if status != 429 || !strings.Contains(body, `"code":"RATE_LIMITED"`) {
		t.Errorf("ping after the batch: %d %s", status, body)
	}

	// Sent one by one, every kind of message counts, the notification too.
	single := e.limitedKey(t, u, 5, "experts:read")
	for i, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_experts","arguments":{}}}`,
	} {
		status, remaining, body := post(single, msg)
		if (status != 200 && status != 202) || remaining != fmt.Sprint(4-i) {
			t.Fatalf("message %d: %d remaining %q %.300s", i, status, remaining, body)
		}
	}
	if status, _, body := post(single, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`); status != 429 || !strings.Contains(body, `"code":"RATE_LIMITED"`) {
		t.Errorf("sixth message: %d %s", status, body)
	}

	// A batch larger than what is left is refused whole.
	short := e.limitedKey(t, u, 5, "experts:read")
	status, _, body = post(short, mcptest.Batch(6, "tools/list"))
	if status != 429 || !strings.Contains(body, `"code":"RATE_LIMITED"`) || strings.Contains(body, "search_experts") {
		t.Errorf("batch of 6 on a budget of 5: %d %.300s", status, body)
	}
}

// TestMCPBatchBounded: a batch carries at most mcpx.MaxBatch messages;
// a larger one is refused with a JSON-RPC error, no message of it is
// handled and it counts as one; a body over the limit is a 413.
func TestMCPBatchBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "mcp-batch@example.com", "TOURIST")
	key := e.limitedKey(t, u, 100, "experts:read")
	ts := httptest.NewServer(e.srv)
	defer ts.Close()

	res, body := mcptest.Post(t, ts.URL+"/mcp", mcptest.Batch(mcpx.MaxBatch+1, "tools/list"), "Authorization", "Bearer "+key)
	if rpc := mcptest.DecodeRPCError(t, res, body); res.StatusCode != 400 || rpc.Error.Code != -32600 || rpc.ID != nil {
		t.Errorf("batch of %d: %d %s", mcpx.MaxBatch+1, res.StatusCode, body)
	}
	if got := res.Header.Get("X-RateLimit-Remaining"); got != "99" {
		t.Errorf("the refused batch left %q of 100", got)
	}
	res, body = mcptest.Post(t, ts.URL+"/mcp", mcptest.Batch(mcpx.MaxBatch, "tools/list"), "Authorization", "Bearer "+key)
	var answers []json.RawMessage
	if err := json.Unmarshal(body, &answers); res.StatusCode != 200 || err != nil || len(answers) != mcpx.MaxBatch {
		t.Errorf("batch of %d: %d %.300s", mcpx.MaxBatch, res.StatusCode, body)
	}
	if got := res.Header.Get("X-RateLimit-Remaining"); got != fmt.Sprint(99-mcpx.MaxBatch) {
		t.Errorf("after a batch of %d: %q left", mcpx.MaxBatch, got)
	}

	// The amplifying request of the report: thousands of tools/list.
	res, body = mcptest.Post(t, ts.URL+"/mcp", mcptest.Batch(9300, "tools/list"), "Authorization", "Bearer "+key)
	if res.StatusCode != 413 || !strings.Contains(string(body), `"code":"PAYLOAD_TOO_LARGE"`) {
		t.Errorf("9300 messages: %d %.300s", res.StatusCode, body)
	}
}

// TestMCPTransportAnswers: what the MCP layer answers is JSON (JSON-RPC
// errors where the transport allows) and carries the X-RateLimit-*
// headers; an unknown method is -32601; a foreign Origin is refused with
// 403 before anything runs.
func TestMCPTransportAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "mcp-transport@example.com", "TOURIST")
	key := e.apiKey(t, u, "experts:read")
	ts := httptest.NewServer(e.srv)
	defer ts.Close()
	post := func(body string, header ...string) (int, string, []byte, string) {
		res, b := mcptest.Post(t, ts.URL+"/mcp", body, append([]string{"Authorization", "Bearer " + key}, header...)...)
		if res.Header.Get("X-RateLimit-Limit") == "" {
			t.Errorf("%.80s: no X-RateLimit-Limit", body)
		}
		return res.StatusCode, res.Header.Get("Content-Type"), b, res.Header.Get("X-RateLimit-Remaining")
	}

	if status, _, body, _ := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 202 || len(body) != 0 {
		t.Errorf("notification: %d %q", status, body)
	}
	status, ctype, body, _ := post(`{"jsonrpc":"2.0","id":7,"method":"resources/list"}`)
	var rpc mcptest.RPCError
	if err := json.Unmarshal(body, &rpc); err != nil {
		t.Fatalf("unknown method: %v: %s", err, body)
	}
	if diff := cmp.Diff(map[string]any{"status": 200, "type": "application/json", "code": -32601, "id": float64(7)},
		map[string]any{"status": status, "type": ctype, "code": rpc.Error.Code, "id": rpc.ID}); diff != "" {
		t.Errorf("unknown method (-want +got):\n%s", diff)
	}
	status, _, body, _ = post(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"no/such"},{"jsonrpc":"2.0","method":"notifications/no-such"}]`)
	var mixed []struct {
		ID     int
		Result *json.RawMessage
		Error  *struct{ Code int }
	}
	if err := json.Unmarshal(body, &mixed); status != 200 || err != nil || len(mixed) != 2 {
		t.Fatalf("mixed batch: %d %s", status, body)
	}
	for _, a := range mixed {
		if (a.ID == 1) != (a.Result != nil) || (a.ID == 2) != (a.Error != nil && a.Error.Code == -32601) {
			t.Errorf("mixed batch: %s", body)
		}
	}

	for name, c := range map[string]struct {
		body   string
		header []string
		status int
		code   int
	}{
		"malformed JSON":       {`{"jsonrpc":"2.0","id":1,"method":"ping"`, nil, 400, -32700},
		"not JSON-RPC":         {`{"id":1,"method":"ping"}`, nil, 400, -32600},
		"empty batch":          {`[]`, nil, 400, -32600},
		"wrong Accept":         {`{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", "text/html"}, 400, -32600},
		"batch on 2025-06-18":  {mcptest.Batch(2, "ping"), []string{"Mcp-Protocol-Version", "2025-06-18"}, 400, -32600},
		"unsupported protocol": {`{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Mcp-Protocol-Version", "1999-01-01"}, 400, -32600},
	} {
		res, body := mcptest.Post(t, ts.URL+"/mcp", c.body, append([]string{"Authorization", "Bearer " + key}, c.header...)...)
		rpc := mcptest.DecodeRPCError(t, res, body)
		if res.StatusCode != c.status || rpc.Error.Code != c.code || res.Header.Get("X-RateLimit-Limit") == "" {
			t.Errorf("%s: %d %s", name, res.StatusCode, body)
		}
	}

	// Origin: ours is served, another is refused before the key is used.
	if status, _, body, _ := post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Origin", publicURL); status != 200 {
		t.Errorf("our origin: %d %s", status, body)
	}
	_, _, _, before := post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	for _, origin := range []string{"https://evil.example", "null", publicURL + ".evil.example", "http://guide.api.test"} {
		res, body := mcptest.Post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_experts","arguments":{}}}`,
			"Authorization", "Bearer "+key, "Origin", origin)
		if rpc := mcptest.DecodeRPCError(t, res, body); res.StatusCode != 403 || rpc.ID != nil || strings.Contains(string(body), "result") {
			t.Errorf("Origin %s: %d %s", origin, res.StatusCode, body)
		}
	}
	if _, _, _, after := post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); after != fmt.Sprint(atoi(t, before)-1) {
		t.Errorf("refused origins spent the key's budget: %s then %s", before, after)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}

// TestMCPOutputsMatchSchemas: every read tool's structured output, on the
// sample data, validates against the output schema it declares (an
// expert with social links among them), on both engines.
func TestMCPOutputsMatchSchemas(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			u := e.register(t, "mcp-schemas@example.com", "TOURIST")
			var handle, pkg, slug string
			if err := e.db.QueryRow(`SELECT u.handle FROM experts e JOIN users u ON u.id = e.user_id
				WHERE e.social_links IS NOT NULL AND e.social_links <> '{}' AND e.verified_at IS NOT NULL ORDER BY u.handle LIMIT 1`).Scan(&handle); err != nil {
				t.Fatal(err)
			}
			if err := e.db.QueryRow(`SELECT id FROM packages WHERE is_active = TRUE ORDER BY id LIMIT 1`).Scan(&pkg); err != nil {
				t.Fatal(err)
			}
			if err := e.db.QueryRow(`SELECT slug FROM travelogues WHERE status = 'published' ORDER BY slug LIMIT 1`).Scan(&slug); err != nil {
				t.Fatal(err)
			}
			var created struct{ Data struct{ ID string } }
			e.Do("POST", "/api/v1/bookings", map[string]any{"packageId": pkg, "scheduledDate": e.clock.Now().Add(72 * time.Hour).Format(time.RFC3339)},
				bearer(u.token)...).Expect(201).Decode(&created)
			cs := mcpSession(t, e, e.apiKey(t, u, "experts:read", "packages:read", "travelogues:read", "bookings:read", "bookings:write", "profile:read"))
			var action struct{ ActionID string }
			if res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": created.Data.ID}, &action); res.IsError || action.ActionID == "" {
				t.Fatalf("cancel_booking: %+v", res)
			}

			mcptest.CheckOutputs(t, cs, true,
				mcptest.Check{Name: "search_experts"},
				mcptest.Check{Name: "get_expert", Args: map[string]any{"handle": handle}},
				mcptest.Check{Name: "search_packages"},
				mcptest.Check{Name: "get_package", Args: map[string]any{"id": pkg}},
				mcptest.Check{Name: "list_travelogues"},
				mcptest.Check{Name: "get_travelogue", Args: map[string]any{"slug": slug}},
				mcptest.Check{Name: "list_my_bookings"},
				mcptest.Check{Name: "get_booking", Args: map[string]any{"id": created.Data.ID}},
				mcptest.Check{Name: "get_my_profile"},
				mcptest.Check{Name: "get_pending_action", Args: map[string]any{"id": action.ActionID}})
		})
	}
}

// TestMCPCatalogueSpendsOnlyTheKey: a catalogue tool call is metered
// against the key, not again against the client's public budget, so an
// agent's reads neither run out early nor starve the client's own.
func TestMCPCatalogueSpendsOnlyTheKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{publicLimit: 2})
	u := e.register(t, "mcp-public@example.com", "TOURIST")
	cs := mcpSession(t, e, e.limitedKey(t, u, 100, "experts:read"))
	for i := range 4 {
		if res := mcptest.Call(t, cs, "search_experts", map[string]any{"pageSize": 1}, nil); res.IsError {
			t.Fatalf("call %d: %+v", i, res.Content)
		}
	}
	ts := httptest.NewServer(e.srv)
	defer ts.Close()
	res, err := ts.Client().Get(ts.URL + "/api/v1/experts?pageSize=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Errorf("the client's public read after the tool calls: %d, %q left of 2", res.StatusCode, res.Header.Get("X-RateLimit-Remaining"))
	}
}

// TestMCPAnswersMatchDocument: the transport's answers (200, 202, the
// JSON-RPC 400 and 403, 429) pass the document's validation.
func TestMCPAnswersMatchDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "mcp-document@example.com", "TOURIST")
	key := e.limitedKey(t, u, 6, "experts:read")
	h := []string{"Authorization", "Bearer " + key, "Accept", "application/json, text/event-stream"}
	e.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, h...).Expect(200)
	e.Do("POST", "/mcp", mcptest.Batch(2, "tools/list"), h...).Expect(200)
	e.Do("POST", "/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h...).Expect(202)
	e.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":"x","method":"no/such"}`, h...).Expect(200)
	e.Do("POST", "/mcp", mcptest.Batch(mcpx.MaxBatch+1, "ping"), h...).Expect(400)
	e.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, append(h, "Origin", "https://evil.example")...).Expect(403)
	e.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, h...).Expect(429)
}

// TestMCPOrigins: the endpoint serves and refuses Host and Origin pairs
// as mcptest.Origins says.
func TestMCPOrigins(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "mcp-origins@example.com", "TOURIST")
	key := e.apiKey(t, u, "experts:read")
	got, want := map[string]int{}, map[string]int{}
	for _, c := range mcptest.Origins(publicURL) {
		res := e.Do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Host", c.Host, "Origin", c.Origin,
			"Authorization", "Bearer "+key, "Accept", "application/json, text/event-stream")
		got[c.Host+" "+c.Origin], want[c.Host+" "+c.Origin] = res.Status, c.Status
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses by Host and Origin (-want +got):\n%s", diff)
	}
}
