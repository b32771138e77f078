package guidehttp_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// mcpSession connects the SDK's own client to the guide API's /mcp over
// HTTP with key as the bearer token.
func mcpSession(t *testing.T, e *env, key string) *mcp.ClientSession {
	t.Helper()
	ts := httptest.NewServer(e.srv)
	t.Cleanup(ts.Close)
	return mcptest.Connect(t, ts.URL+"/mcp", "Authorization", "Bearer "+key)
}

// toolError returns the REST error envelope a failed tool call carries.
func toolError(t *testing.T, res *mcp.CallToolResult) (code string, details map[string]any) {
	t.Helper()
	return mcptest.Error(t, res, publicURL)
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		got := map[string]bool{
			"inputSchema": tool.InputSchema != nil, "outputSchema": tool.OutputSchema != nil,
			"annotations": tool.Annotations != nil, "description": tool.Description != "",
		}
		want := map[string]bool{"inputSchema": true, "outputSchema": true, "annotations": true, "description": true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: schema, annotations or description missing (-want +got):\n%s", tool.Name, diff)
		}
		// MCP requires object schemas; clients refuse a tool list with others.
		for _, schema := range []any{tool.InputSchema, tool.OutputSchema} {
			if m, ok := schema.(map[string]any); !ok || m["type"] != "object" {
				t.Errorf("%s: schema %v is not of type object", tool.Name, schema)
			}
		}
	}
	slices.Sort(names)
	return names
}

func TestMCPToolsFollowScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "agent-owner@example.com", "TOURIST")
	for _, tc := range []struct {
		scopes []string
		want   []string
	}{
		{[]string{"bookings:read"}, []string{"get_booking", "get_pending_action", "list_my_bookings"}},
		{[]string{"experts:read"}, []string{"get_expert", "get_pending_action", "search_experts"}},
		{[]string{"bookings:read", "bookings:write"}, []string{"cancel_booking", "create_booking", "get_booking", "get_pending_action", "list_my_bookings"}},
		{[]string{"profile:read", "profile:write"}, []string{"close_account", "get_my_profile", "get_pending_action", "update_my_profile"}},
		{[]string{"experts:read", "packages:read", "travelogues:read", "bookings:read", "bookings:write", "profile:read", "profile:write"}, []string{
			"cancel_booking", "close_account", "create_booking", "get_booking", "get_expert", "get_my_profile", "get_package",
			"get_pending_action", "get_travelogue", "list_my_bookings", "list_travelogues", "search_experts", "search_packages", "update_my_profile"}},
	} {
		cs := mcpSession(t, e, e.apiKey(t, u, tc.scopes...))
		if got := toolNames(t, cs); !slices.Equal(got, tc.want) {
			t.Errorf("scopes %v: tools %v, want %v", tc.scopes, got, tc.want)
		}
	}
	// The annotations say what a tool does.
	cs := mcpSession(t, e, e.apiKey(t, u, "bookings:read", "bookings:write"))
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		destructive := a.DestructiveHint != nil && *a.DestructiveHint
		switch tool.Name {
		case "list_my_bookings", "get_booking", "get_pending_action":
			if !a.ReadOnlyHint {
				t.Errorf("%s is not read-only", tool.Name)
			}
		case "cancel_booking":
			if a.ReadOnlyHint || !destructive {
				t.Errorf("%s: %+v", tool.Name, a)
			}
		case "create_booking":
			if a.ReadOnlyHint || destructive || a.IdempotentHint {
				t.Errorf("%s: %+v", tool.Name, a)
			}
		}
	}
}

func TestMCPAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "mcp-auth@example.com", "TOURIST")
	ts := httptest.NewServer(e.srv)
	defer ts.Close()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for name, authz := range map[string]string{
		"no credentials": "",
		"unknown key":    "Bearer pk_live_" + strings.Repeat("a", 40),
		"user token":     "Bearer " + u.token,
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 401 || !strings.Contains(string(body), `"code":"UNAUTHORIZED"`) {
			t.Errorf("%s: %d %s", name, res.StatusCode, body)
		}
		want := `Bearer resource_metadata="` + publicURL + `/.well-known/oauth-protected-resource", ` +
			`scope="bookings:read bookings:write experts:read packages:read profile:read profile:write travelogues:read"`
		if authz != "" {
			want += `, error="invalid_token"`
		}
		if got := res.Header.Get("WWW-Authenticate"); got != want {
			t.Errorf("%s: WWW-Authenticate %q, want %q", name, got, want)
		}
	}

	// The metadata names the resource on the configured URL, whatever the Host.
	req, _ := http.NewRequest("GET", ts.URL+"/.well-known/oauth-protected-resource", nil)
	req.Host = "evil.example"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource        string   `json:"resource"`
		ScopesSupported []string `json:"scopes_supported"`
		BearerMethods   []string `json:"bearer_methods_supported"`
	}
	json.NewDecoder(res.Body).Decode(&meta)
	res.Body.Close()
	gotMeta := map[string]any{
		"status": res.StatusCode, "resource": meta.Resource,
		"bookingsWrite": slices.Contains(meta.ScopesSupported, "bookings:write"), "bearerMethods": meta.BearerMethods,
	}
	wantMeta := map[string]any{
		"status": 200, "resource": publicURL + "/mcp", "bookingsWrite": true, "bearerMethods": []string{"header"},
	}
	if diff := cmp.Diff(wantMeta, gotMeta); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}

	// A tool outside the key's scopes is not listed, and calling it answers
	// the REST API's INSUFFICIENT_SCOPE.
	cs := mcpSession(t, e, e.apiKey(t, u, "bookings:read"))
	for tool, c := range map[string]struct {
		scope string
		args  map[string]any
	}{
		"create_booking": {"bookings:write", map[string]any{"scheduledDate": "2027-01-15T09:00:00Z"}},
		"search_experts": {"experts:read", map[string]any{}},
		"close_account":  {"profile:write", map[string]any{}},
	} {
		scope := c.scope
		code, details := toolError(t, mcptest.Call(t, cs, tool, c.args, nil))
		if code != "INSUFFICIENT_SCOPE" || details["requiredScope"] != scope {
			t.Errorf("%s: %s %v", tool, code, details)
		}
	}
	// Another user's booking is forbidden, as over REST.
	other := e.register(t, "mcp-other@example.com", "TOURIST")
	var pkg string
	if err := e.db.QueryRow(`SELECT id FROM packages WHERE is_active = TRUE ORDER BY id LIMIT 1`).Scan(&pkg); err != nil {
		t.Fatal(err)
	}
	var created struct{ Data struct{ ID string } }
	e.Do("POST", "/api/v1/bookings", map[string]any{"packageId": pkg, "scheduledDate": e.clock.Now().Add(72 * time.Hour).Format(time.RFC3339)},
		bearer(other.token)...).Expect(201).Decode(&created)
	if code, _ := toolError(t, mcptest.Call(t, cs, "get_booking", map[string]any{"id": created.Data.ID}, nil)); code != "FORBIDDEN" {
		t.Errorf("another's booking: %s", code)
	}
}

func TestMCPBookingFlow(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			mcpBookingFlow(t, engine)
		})
	}
}

func mcpBookingFlow(t *testing.T, engine store.Engine) {
	{
		e := newEnv(t, options{}, engine)
		u := e.register(t, "mcp-traveller@example.com", "TOURIST")
		key := e.apiKey(t, u, "packages:read", "experts:read", "bookings:read", "bookings:write")
		cs := mcpSession(t, e, key)

		var pkgs struct {
			Data []struct{ ID, Title string }
			Meta struct{ Total int }
		}
		res := mcptest.Call(t, cs, "search_packages", map[string]any{"pageSize": 3}, &pkgs)
		if res.IsError || len(pkgs.Data) != 3 || pkgs.Meta.Total < 3 {
			t.Fatalf("search_packages: %+v %+v", res, pkgs)
		}
		// Text written by people comes back as delimited data.
		text := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(text, "\n<api-data>\n{") || !strings.HasSuffix(text, "}\n</api-data>") || !strings.Contains(text, pkgs.Data[0].ID) {
			t.Errorf("text content: %.300s", text)
		}

		args := map[string]any{"packageId": pkgs.Data[0].ID, "participants": 2,
			"scheduledDate": e.clock.Now().Add(96 * time.Hour).Format(time.RFC3339), "idempotencyKey": "mcp-book-1"}
		var booked struct{ Data struct{ ID, Status string } }
		if res := mcptest.Call(t, cs, "create_booking", args, &booked); res.IsError || booked.Data.Status != "PENDING" || res.Meta["idempotentReplayed"] != nil {
			t.Fatalf("create_booking: %+v %+v", res, booked)
		}
		// A retry with the same key answers the first booking again.
		var again struct{ Data struct{ ID string } }
		if res := mcptest.Call(t, cs, "create_booking", args, &again); res.IsError || again.Data.ID != booked.Data.ID || res.Meta["idempotentReplayed"] != true {
			t.Fatalf("retry: %+v %+v", res, again)
		}
		args["participants"] = 3
		if code, _ := toolError(t, mcptest.Call(t, cs, "create_booking", args, nil)); code != "IDEMPOTENCY_KEY_REUSED" {
			t.Errorf("same key, other arguments: %s", code)
		}
		if n := e.count(t, `SELECT COUNT(*) FROM bookings WHERE tourist_id = $1`, u.id); n != 1 {
			t.Fatalf("%d bookings, want 1", n)
		}

		// Cancelling only asks; the booking stays as it is.
		var pending struct {
			ActionID, Action, Status, ConfirmURL, Message string
			ExpiresAt                                     time.Time
		}
		if res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": booked.Data.ID}, &pending); res.IsError {
			t.Fatalf("cancel_booking: %+v", res)
		}
		gotPending := map[string]any{
			"status": pending.Status, "action": pending.Action, "confirmURL": pending.ConfirmURL, "expiresAt": pending.ExpiresAt,
		}
		wantPending := map[string]any{
			"status": "pending", "action": "booking.cancel",
			"confirmURL": publicURL + "/api/v1/actions/" + pending.ActionID + "/confirm", "expiresAt": e.clock.Now().Add(10 * time.Minute),
		}
		if diff := cmp.Diff(wantPending, gotPending); diff != "" {
			t.Fatalf("pending (-want +got):\n%s", diff)
		}
		var status string
		if err := e.db.QueryRow(`SELECT status FROM bookings WHERE id = $1`, booked.Data.ID).Scan(&status); err != nil || status != "PENDING" {
			t.Fatalf("booking %s before confirmation (%v)", status, err)
		}
		var polled struct{ Status string }
		if mcptest.Call(t, cs, "get_pending_action", map[string]any{"id": pending.ActionID}, &polled); polled.Status != "pending" {
			t.Fatalf("poll: %+v", polled)
		}

		// The agent's key cannot approve what it asked for through MCP,
		// not even over REST: the action and the booking stay as they are.
		res403 := e.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, "Authorization", "Bearer "+key).Expect(403)
		if code := res403.ErrorCode(); code != "PERSON_CONFIRMATION_REQUIRED" {
			t.Fatalf("key confirms an MCP action: %s", code)
		}
		var actionStatus string
		if err := e.db.QueryRow(`SELECT status FROM pending_actions WHERE id = $1`, pending.ActionID).Scan(&actionStatus); err != nil || actionStatus != "pending" {
			t.Fatalf("action %s after the key's attempt (%v)", actionStatus, err)
		}
		if err := e.db.QueryRow(`SELECT status FROM bookings WHERE id = $1`, booked.Data.ID).Scan(&status); err != nil || status != "PENDING" {
			t.Fatalf("booking %s after the key's attempt (%v)", status, err)
		}

		// The person confirms over REST with their own token; the agent sees it.
		e.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(u.token)...).Expect(200)
		var done struct {
			Status string
			Result struct{ ID, Status string }
		}
		res = mcptest.Call(t, cs, "get_pending_action", map[string]any{"id": pending.ActionID}, &done)
		gotDone := map[string]any{
			"isError": res.IsError, "status": done.Status, "resultID": done.Result.ID, "resultStatus": done.Result.Status,
		}
		wantDone := map[string]any{"isError": false, "status": "confirmed", "resultID": booked.Data.ID, "resultStatus": "CANCELLED"}
		if diff := cmp.Diff(wantDone, gotDone); diff != "" {
			t.Fatalf("after confirmation (-want +got):\n%s", diff)
		}
		var detail struct{ Data struct{ Status string } }
		if mcptest.Call(t, cs, "get_booking", map[string]any{"id": booked.Data.ID}, &detail); detail.Data.Status != "CANCELLED" {
			t.Errorf("booking after confirmation: %+v", detail)
		}

		// An unknown action, and one of another key, are not found.
		other := mcpSession(t, e, e.apiKey(t, u, "bookings:read"))
		if code, _ := toolError(t, mcptest.Call(t, other, "get_pending_action", map[string]any{"id": pending.ActionID}, nil)); code != "NOT_FOUND" {
			t.Errorf("another key's action: %s", code)
		}

		// Every call was counted by tool and outcome.
		metrics := string(e.Get("/metrics").Expect(200).Body)
		for _, want := range []string{
			`mcp_tool_calls_total{outcome="ok",server="guide",tool="create_booking"} 2`,
			`mcp_tool_calls_total{outcome="IDEMPOTENCY_KEY_REUSED",server="guide",tool="create_booking"} 1`,
			`mcp_tool_calls_total{outcome="ok",server="guide",tool="cancel_booking"} 1`,
			`mcp_tool_calls_total{outcome="NOT_FOUND",server="guide",tool="get_pending_action"} 1`,
		} {
			if !strings.Contains(metrics, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
	}
}

func TestMCPCloseAccountNeedsConfirmation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "mcp-closer@example.com", "TOURIST")
	cs := mcpSession(t, e, e.apiKey(t, u, "profile:read", "profile:write"))
	var pending struct{ ActionID, Action, Status string }
	if res := mcptest.Call(t, cs, "close_account", map[string]any{}, &pending); res.IsError || pending.Action != "account.delete" || pending.Status != "pending" {
		t.Fatalf("close_account: %+v %+v", res, pending)
	}
	if n := e.count(t, `SELECT COUNT(*) FROM users WHERE id = $1 AND deleted_at IS NULL`, u.id); n != 1 {
		t.Fatal("the account was closed without confirmation")
	}
	// The pending action expires unconfirmed; nothing happens.
	e.clock.Advance(11 * time.Minute)
	var expired struct{ Status string }
	if mcptest.Call(t, cs, "get_pending_action", map[string]any{"id": pending.ActionID}, &expired); expired.Status != "expired" {
		t.Errorf("after expiry: %+v", expired)
	}
	var profile struct{ Data struct{ ID string } }
	if res := mcptest.Call(t, cs, "get_my_profile", nil, &profile); res.IsError || profile.Data.ID != u.id {
		t.Errorf("profile: %+v", res)
	}
}

// TestMCPKeyRateLimit: every message counts against the key's budget
// (the message the client connects with too), a catalogue tool
// call as well (public over REST, where only client IPs count).
func TestMCPKeyRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "mcp-limited@example.com", "TOURIST")
	var res struct{ Data struct{ Key string } }
	e.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "slow agent", "scopes": []string{"experts:read", "bookings:read"}, "rateLimit": 4},
		bearer(u.token)...).Expect(201).Decode(&res)
	cs := mcpSession(t, e, res.Data.Key)
	for _, tool := range []string{"search_experts", "list_my_bookings", "search_experts"} {
		if r := mcptest.Call(t, cs, tool, map[string]any{}, nil); r.IsError {
			t.Fatalf("%s: %+v", tool, r.Content[0])
		}
	}
	// Over the budget, the request itself is refused (HTTP 429).
	for _, tool := range []string{"search_experts", "list_my_bookings"} {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
			t.Errorf("%s over the budget: %v", tool, err)
		}
	}
}

// TestMCPIDsStayInTheirSegment: an argument shaped like a path cannot
// make a tool reach another route.
func TestMCPIDsStayInTheirSegment(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "mcp-paths@example.com", "TOURIST")
	cs := mcpSession(t, e, e.apiKey(t, u, "bookings:read", "packages:read"))
	for _, id := range []string{"../../experts", "..%2F..%2Fexperts", "x?page=2", "a/b"} {
		for _, tool := range []string{"get_booking", "get_package", "get_pending_action"} {
			res := mcptest.Call(t, cs, tool, map[string]any{"id": id}, nil)
			if code, _ := toolError(t, res); code != "VALIDATION_ERROR" && code != "NOT_FOUND" {
				t.Errorf("%s %q: %s", tool, id, code)
			}
		}
	}
}

// TestMCPWriteFailures: a write tool's refusal is its key's answer, as
// on REST; a server error is not recorded, so that a retry with the same
// key books once the database works again.
func TestMCPWriteFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "mcp-failures@example.com", "TOURIST")
	cs := mcpSession(t, e, e.apiKey(t, u, "packages:read", "bookings:write"))
	var pkgs struct{ Data []struct{ ID string } }
	if res := mcptest.Call(t, cs, "search_packages", map[string]any{"pageSize": 1}, &pkgs); res.IsError || len(pkgs.Data) != 1 {
		t.Fatalf("search_packages: %+v %+v", res, pkgs)
	}
	type outcome struct {
		Code     string // of the refusal
		Replayed bool
		Recorded int // the status recorded for the key, 0 for none
	}
	call := func(args map[string]any) outcome {
		t.Helper()
		res := mcptest.Call(t, cs, "create_booking", args, nil)
		var o outcome
		if res.IsError {
			o.Code, _ = toolError(t, res)
		}
		o.Replayed = res.Meta["idempotentReplayed"] == true
		var status sql.NullInt64
		err := e.db.QueryRowContext(t.Context(), `SELECT response_status FROM idempotency_keys WHERE key = $1`, args["idempotencyKey"]).Scan(&status)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		o.Recorded = int(status.Int64)
		return o
	}
	when := e.clock.Now().Add(96 * time.Hour).Format(time.RFC3339)

	tooMany := map[string]any{"packageId": pkgs.Data[0].ID, "scheduledDate": when, "participants": 51, "idempotencyKey": "b-refused"}
	if diff := cmp.Diff(outcome{Code: "VALIDATION_ERROR", Recorded: 400}, call(tooMany)); diff != "" {
		t.Errorf("refusal (-want +got):\n%s", diff)
	}

	if _, err := e.db.ExecContext(t.Context(), `CREATE TRIGGER bookings_down BEFORE INSERT ON bookings BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"packageId": pkgs.Data[0].ID, "scheduledDate": when, "idempotencyKey": "b-down"}
	if diff := cmp.Diff(outcome{Code: "INTERNAL_ERROR"}, call(args)); diff != "" {
		t.Errorf("server error (-want +got):\n%s", diff)
	}
	if _, err := e.db.ExecContext(t.Context(), `DROP TRIGGER bookings_down`); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(outcome{Recorded: 201}, call(args)); diff != "" {
		t.Errorf("retry after the server error (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(outcome{Replayed: true, Recorded: 201}, call(args)); diff != "" {
		t.Errorf("retry after the success (-want +got):\n%s", diff)
	}
	if n := e.count(t, `SELECT COUNT(*) FROM bookings WHERE tourist_id = $1`, u.id); n != 1 {
		t.Errorf("%d bookings, want 1", n)
	}
}
