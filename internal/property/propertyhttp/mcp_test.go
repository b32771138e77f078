package propertyhttp_test

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

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
)

// mcpSession connects the SDK's own client to the property API's /mcp,
// sending key in the header named (X-API-KEY, or Authorization as a
// bearer token).
func mcpSession(t *testing.T, e *env, header, key string) *mcp.ClientSession {
	t.Helper()
	ts := httptest.NewServer(e.srv)
	t.Cleanup(ts.Close)
	if header == "Authorization" {
		key = "Bearer " + key
	}
	return mcptest.Connect(t, ts.URL+"/mcp", header, key)
}

// toolErrorCode returns the REST error code a failed tool call carries.
func toolErrorCode(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	code, _ := mcptest.Error(t, res, publicURL)
	return code
}

func TestMCPPropertyTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	d := e.signup(t)
	for _, tc := range []struct {
		scopes []string
		want   []string
	}{
		{[]string{"properties:read"}, []string{"get_availability", "get_property", "search_properties"}},
		{[]string{"bookings:read"}, []string{"get_booking", "list_bookings"}},
		{[]string{"bookings:write"}, []string{"book", "cancel_booking", "create_quote"}},
		{[]string{"calendar:write"}, []string{"update_calendar"}},
		{[]string{"properties:write", "events:read"}, nil},
	} {
		cs := mcpSession(t, e, "X-API-KEY", e.key(t, d, "test", tc.scopes...))
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if tool.OutputSchema == nil || tool.Annotations == nil {
				t.Errorf("%s: no output schema or annotations", tool.Name)
			}
			// MCP requires object schemas; clients refuse a tool list with others.
			for _, schema := range []any{tool.InputSchema, tool.OutputSchema} {
				if m, ok := schema.(map[string]any); !ok || m["type"] != "object" {
					t.Errorf("%s: schema %v is not of type object", tool.Name, schema)
				}
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, tc.want) {
			t.Errorf("scopes %v: %v, want %v", tc.scopes, names, tc.want)
		}
	}
	cs := mcpSession(t, e, "Authorization", e.key(t, d, "test", "properties:read"))
	if code := toolErrorCode(t, mcptest.Call(t, cs, "list_bookings", map[string]any{}, nil)); code != "INSUFFICIENT_SCOPE" {
		t.Errorf("out of scope: %s", code)
	}

	// No key, or an unknown one: 401 with the challenge.
	ts := httptest.NewServer(e.srv)
	defer ts.Close()
	for _, key := range []string{"", "pk_test_" + strings.Repeat("0", 40)} {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("X-API-KEY", key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		challenge := `Bearer resource_metadata="` + publicURL + `/.well-known/oauth-protected-resource", scope="bookings:read bookings:write calendar:write properties:read"`
		if key != "" {
			challenge += `, error="invalid_token"`
		}
		got := map[string]any{
			"status":         res.StatusCode,
			"unauthorized":   strings.Contains(string(body), `"code":"UNAUTHORIZED"`),
			"challenge":      res.Header.Get("WWW-Authenticate"),
			"rate limit set": res.Header.Get("X-RateLimit-Limit") != "",
		}
		want := map[string]any{"status": 401, "unauthorized": true, "challenge": challenge, "rate limit set": true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("key %q (-want +got):\n%s\n%s", key, diff, body)
		}
	}
	var meta struct{ Resource string }
	e.Get("/.well-known/oauth-protected-resource").Expect(200).Decode(&meta)
	if meta.Resource != publicURL+"/mcp" {
		t.Errorf("metadata resource %q", meta.Resource)
	}
}

func TestMCPPropertyBookingFlow(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			r := e.tokyoDouble(t)
			d := e.signup(t)
			cs := mcpSession(t, e, "X-API-KEY", e.key(t, d, "test"))

			var found struct {
				Data []struct{ ID string }
			}
			if res := mcptest.Call(t, cs, "search_properties", map[string]any{"checkIn": day(10).String(), "checkOut": day(12).String(), "guests": 2, "city": "Tokyo"}, &found); res.IsError ||
				!slices.ContainsFunc(found.Data, func(p struct{ ID string }) bool { return p.ID == r.propertyID }) {
				t.Fatalf("search: %+v %+v", res, found)
			}
			var avail struct {
				RoomTypes []struct {
					Nights []struct{ AvailableUnits int }
				}
			}
			if res := mcptest.Call(t, cs, "get_availability", map[string]any{"id": r.propertyID, "from": day(10).String(), "to": day(12).String(), "roomTypeId": r.roomTypeID}, &avail); res.IsError ||
				len(avail.RoomTypes) != 1 || avail.RoomTypes[0].Nights[0].AvailableUnits != r.units {
				t.Fatalf("availability: %+v %+v", res, avail)
			}

			quoteArgs := mergeMaps(stay(r, day(10), 2, 2), map[string]any{"idempotencyKey": "q-1"})
			var quote, again struct{ ID, CheckIn string }
			if res := mcptest.Call(t, cs, "create_quote", quoteArgs, &quote); res.IsError || quote.CheckIn != day(10).String() {
				t.Fatalf("quote: %+v %+v", res, quote)
			}
			if res := mcptest.Call(t, cs, "create_quote", quoteArgs, &again); res.IsError || again.ID != quote.ID || res.Meta["idempotentReplayed"] != true {
				t.Fatalf("quote retry: %+v %+v", res, again)
			}
			if got := e.available(t, e.key(t, d, "test"), r, day(10)); got != r.units-1 {
				t.Errorf("units after a quote and its retry: %d, want %d", got, r.units-1)
			}

			bookArgs := map[string]any{"quoteId": quote.ID, "guest": guest, "idempotencyKey": "b-1"}
			var booking, rebooked struct{ ID, Status string }
			if res := mcptest.Call(t, cs, "book", bookArgs, &booking); res.IsError || booking.Status != "CONFIRMED" {
				t.Fatalf("book: %+v %+v", res, booking)
			}
			if res := mcptest.Call(t, cs, "book", bookArgs, &rebooked); res.IsError || rebooked.ID != booking.ID {
				t.Fatalf("book retry: %+v %+v", res, rebooked)
			}
			var n int
			if err := e.db.QueryRow(`SELECT COUNT(*) FROM bookings WHERE developer_id = $1`, d.id).Scan(&n); err != nil || n != 1 {
				t.Fatalf("%d bookings (%v), want 1", n, err)
			}

			var cancelled struct{ ID, Status string }
			if res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": booking.ID}, &cancelled); res.IsError || cancelled.Status != "CANCELLED" {
				t.Fatalf("cancel: %+v %+v", res, cancelled)
			}
			if code := toolErrorCode(t, mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": booking.ID}, nil)); code != "INVALID_STATE" {
				t.Errorf("second cancel: %s", code)
			}
			var listed struct {
				Data []struct{ ID, Status string }
				Meta struct{ Total int }
			}
			if mcptest.Call(t, cs, "list_bookings", map[string]any{"status": "CANCELLED"}, &listed); listed.Meta.Total != 1 || listed.Data[0].ID != booking.ID {
				t.Errorf("list: %+v", listed)
			}
		})
	}
}

// TestMCPPropertyRateLimit: each message is a request against the key's
// budget, as over REST: the message the client connects with,
// then each tool call.
func TestMCPPropertyRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{keyLimit: 4})
	r := e.tokyoDouble(t)
	cs := mcpSession(t, e, "X-API-KEY", e.key(t, e.signup(t), "test", "properties:read"))
	for i := range 3 {
		if res := mcptest.Call(t, cs, "get_property", map[string]any{"id": r.propertyID}, nil); res.IsError {
			t.Fatalf("call %d: %+v", i, res.Content[0])
		}
	}
	// Over the budget, the request itself is refused (HTTP 429).
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_property", Arguments: map[string]any{"id": r.propertyID}}); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Errorf("fourth call: %v", err)
	}
}

// TestMCPCalendar: a host's agent pushes its calendar through
// update_calendar, which the availability then shows; a retry with the
// same idempotency key is replayed; a key without calendar:write gets
// INSUFFICIENT_SCOPE and changes nothing.
func TestMCPCalendar(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			host := e.signup(t)
			key := e.key(t, host, "live")
			r := e.hostRoom(t, key, 3)
			args := map[string]any{"propertyId": r.propertyID, "idempotencyKey": "cal-1", "updates": []map[string]any{
				{"roomTypeId": r.roomTypeID, "from": day(2).String(), "to": day(4).String(), "units": 1, "price": map[string]any{"amount": 18000}},
				{"roomTypeId": r.roomTypeID, "from": day(3).String(), "to": day(4).String(), "closed": true},
			}}

			readOnly := mcpSession(t, e, "X-API-KEY", e.key(t, host, "live", "properties:read", "properties:write"))
			if code := toolErrorCode(t, mcptest.Call(t, readOnly, "update_calendar", args, nil)); code != "INSUFFICIENT_SCOPE" {
				t.Errorf("without calendar:write: %s", code)
			}
			if ns := e.nights(t, key, r, day(2), day(4)); ns[0].AvailableUnits != 3 || ns[1].Closed {
				t.Fatalf("a refused call changed the calendar: %+v", ns)
			}

			cs := mcpSession(t, e, "Authorization", e.key(t, host, "live", "calendar:write"))
			var res, again struct{ UpdatedNights int }
			if out := mcptest.Call(t, cs, "update_calendar", args, &res); out.IsError || res.UpdatedNights != 2 {
				t.Fatalf("update: %+v %+v", out, res)
			}
			ns := e.nights(t, key, r, day(2), day(4))
			got := map[string]any{"first units": ns[0].AvailableUnits, "first price": ns[0].Price.Amount, "first closed": ns[0].Closed, "second closed": ns[1].Closed}
			want := map[string]any{"first units": 1, "first price": int64(18000), "first closed": false, "second closed": true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("nights after the push (-want +got):\n%s", diff)
			}
			if out := mcptest.Call(t, cs, "update_calendar", args, &again); out.IsError || out.Meta["idempotentReplayed"] != true || again != res {
				t.Errorf("retry: %+v %+v", out, again)
			}
			// The REST checks answer through the tool too.
			bad := map[string]any{"propertyId": r.propertyID, "updates": []map[string]any{{"roomTypeId": r.roomTypeID, "from": day(4).String(), "to": day(2).String(), "units": 1}}}
			if code := toolErrorCode(t, mcptest.Call(t, cs, "update_calendar", bad, nil)); code != "VALIDATION_ERROR" {
				t.Errorf("backwards range: %s", code)
			}
			other := mcpSession(t, e, "X-API-KEY", e.key(t, e.signup(t), "live", "calendar:write"))
			if code := toolErrorCode(t, mcptest.Call(t, other, "update_calendar", args, nil)); code != "NOT_FOUND" {
				t.Errorf("another account's property: %s", code)
			}
		})
	}
}

// TestMCPCalendarBodyLimit: update_calendar takes what the REST calendar
// takes, 500 updates that set every field (over the 64 KiB other bodies
// get), and an MCP request over the calendar's limit and its envelope is
// a 413 that changes nothing.
func TestMCPCalendarBodyLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	host := e.signup(t)
	key := e.key(t, host, "live")
	r := e.hostRoom(t, key, 3)
	updates := make([]map[string]any, property.MaxCalendarUpdates)
	for i := range updates {
		night := day(1).AddDays(i)
		updates[i] = map[string]any{"roomTypeId": r.roomTypeID, "from": night.String(), "to": night.AddDays(1).String(),
			"daysOfWeek": []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}, "units": i % 3,
			"price": map[string]any{"amount": 20000 + i, "currency": "JPY"}, "minStay": 1 + i%3,
			"closed": false, "closedToArrival": i%2 == 0, "closedToDeparture": i%3 == 0}
	}
	args := map[string]any{"propertyId": r.propertyID, "idempotencyKey": "big-mcp-push", "updates": updates}
	if b, _ := json.Marshal(args); len(b) <= 64<<10 {
		t.Fatalf("the call is %d bytes: not over the general limit, so it proves nothing", len(b))
	}
	cs := mcpSession(t, e, "X-API-KEY", e.key(t, host, "live", "calendar:write"))
	var res struct{ UpdatedNights int }
	if out := mcptest.Call(t, cs, "update_calendar", args, &res); out.IsError || res.UpdatedNights != property.MaxCalendarUpdates {
		t.Fatalf("500 updates: %+v %+v", out, res)
	}
	ns := e.nights(t, key, r, day(1).AddDays(499), day(1).AddDays(500))
	if ns[0].Price.Amount != 20499 || ns[0].AvailableUnits != 499%3 || ns[0].MinStay != 1+499%3 {
		t.Fatalf("the last night: %+v", ns[0])
	}

	ts := httptest.NewServer(e.srv)
	defer ts.Close()
	huge := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_calendar","arguments":{"propertyId":"` + r.propertyID +
		`","updates":[` + strings.Repeat(" ", 528<<10) + `]}}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(huge))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-API-KEY", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || !strings.Contains(string(body), `"code":"PAYLOAD_TOO_LARGE"`) {
		t.Fatalf("over the limit: %d %s", resp.StatusCode, body)
	}
}

// TestMCPWriteFailures: a write tool's refusal is its key's answer, as
// on REST; a server error is not recorded, so that a retry with the same
// key quotes once the database works again.
func TestMCPWriteFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	r := e.tokyoDouble(t)
	d := e.signup(t)
	key := e.key(t, d, "test")
	cs := mcpSession(t, e, "X-API-KEY", key)
	type outcome struct {
		Code     string // of the refusal
		Replayed bool
		Recorded int // the status recorded for the key, 0 for none
	}
	call := func(args map[string]any) outcome {
		t.Helper()
		res := mcptest.Call(t, cs, "create_quote", args, nil)
		var o outcome
		if res.IsError {
			o.Code = toolErrorCode(t, res)
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

	tooMany := mergeMaps(stay(r, day(10), 2, 5), map[string]any{"idempotencyKey": "q-refused"})
	if diff := cmp.Diff(outcome{Code: "UNAVAILABLE", Recorded: 409}, call(tooMany)); diff != "" {
		t.Errorf("refusal (-want +got):\n%s", diff)
	}

	if _, err := e.db.ExecContext(t.Context(), `CREATE TRIGGER quotes_down BEFORE INSERT ON quotes BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`); err != nil {
		t.Fatal(err)
	}
	args := mergeMaps(stay(r, day(10), 2, 2), map[string]any{"idempotencyKey": "q-down"})
	if diff := cmp.Diff(outcome{Code: "INTERNAL_ERROR"}, call(args)); diff != "" {
		t.Errorf("server error (-want +got):\n%s", diff)
	}
	if _, err := e.db.ExecContext(t.Context(), `DROP TRIGGER quotes_down`); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(outcome{Recorded: 201}, call(args)); diff != "" {
		t.Errorf("retry after the server error (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(outcome{Replayed: true, Recorded: 201}, call(args)); diff != "" {
		t.Errorf("retry after the success (-want +got):\n%s", diff)
	}
	if got := e.available(t, key, r, day(10)); got != r.units-1 {
		t.Errorf("units after one quote: %d, want %d", got, r.units-1)
	}
}
