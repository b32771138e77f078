package propertyhttp_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// structured returns a successful tool call's structured content as
// generic JSON, to compare with a REST body.
func structured(t *testing.T, res *mcp.CallToolResult) any {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", res.Content[0].(*mcp.TextContent).Text)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// restJSON returns a REST body as generic JSON.
func restJSON(t *testing.T, body []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	return v
}

// sameAnswer checks that a tool answered what the REST route did.
func sameAnswer(t *testing.T, what string, res *mcp.CallToolResult, rest []byte) {
	t.Helper()
	if got, want := structured(t, res), restJSON(t, rest); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: tool %v\nREST %v", what, got, want)
	}
}

// sameRefusal checks that a tool and a REST call refused alike: the same
// error envelope but for the request id (each call has its own).
func sameRefusal(t *testing.T, what string, res *mcp.CallToolResult, rest []byte) {
	t.Helper()
	toolErrorCode(t, res) // the whole envelope
	var tool, want struct {
		Error any `json:"error"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &tool); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rest, &want); err != nil {
		t.Fatal(err)
	}
	if want.Error == nil || !reflect.DeepEqual(tool.Error, want.Error) {
		t.Errorf("%s: tool %v\nREST %v", what, tool.Error, want.Error)
	}
}

// TestMCPToolsAnswerAsREST: every tool answers what its REST route
// answers the same key with the same arguments: the same structured
// content as the REST body, or the same refusal.
func TestMCPToolsAnswerAsREST(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			r := e.tokyoDouble(t)
			d := e.signup(t)
			key := e.key(t, d, "test")
			cs := mcpSession(t, e, "X-API-KEY", key)
			auth := xkey(key)
			call := func(tool string, args map[string]any) *mcp.CallToolResult {
				t.Helper()
				return mcptest.Call(t, cs, tool, args, nil)
			}

			search := map[string]any{"checkIn": day(10).String(), "checkOut": day(12).String(), "guests": 2, "city": "Tokyo",
				"amenities": []string{"wifi"}, "minPrice": 1000, "sort": "price", "page": 1, "pageSize": 5}
			sameAnswer(t, "search_properties", call("search_properties", search),
				e.Get("/api/v1/properties?"+url.Values{"checkIn": {day(10).String()}, "checkOut": {day(12).String()}, "guests": {"2"},
					"city": {"Tokyo"}, "amenities": {"wifi"}, "minPrice": {"1000"}, "sort": {"price"}, "page": {"1"}, "pageSize": {"5"}}.Encode(), auth...).Expect(200).Body)
			sameRefusal(t, "search_properties", call("search_properties", map[string]any{"checkIn": day(10).String(), "guests": 30}),
				e.Get("/api/v1/properties?checkIn="+day(10).String()+"&guests=30", auth...).Expect(400).Body)

			sameAnswer(t, "get_property", call("get_property", map[string]any{"id": r.propertyID}),
				e.Get("/api/v1/properties/"+r.propertyID, auth...).Expect(200).Body)
			const nobody = "00000000-0000-4000-8000-000000000000"
			sameRefusal(t, "get_property", call("get_property", map[string]any{"id": nobody}),
				e.Get("/api/v1/properties/"+nobody, auth...).Expect(404).Body)

			sameAnswer(t, "get_availability", call("get_availability", map[string]any{"id": r.propertyID, "from": day(10).String(), "to": day(13).String(), "roomTypeId": r.roomTypeID}),
				e.Get("/api/v1/properties/"+r.propertyID+"/availability?from="+day(10).String()+"&to="+day(13).String()+"&roomTypeId="+r.roomTypeID, auth...).Expect(200).Body)
			sameRefusal(t, "get_availability", call("get_availability", map[string]any{"id": r.propertyID, "from": day(10).String(), "to": day(9).String()}),
				e.Get("/api/v1/properties/"+r.propertyID+"/availability?from="+day(10).String()+"&to="+day(9).String(), auth...).Expect(400).Body)

			// Without an idempotency key, each write acts anew: compare the
			// shapes through a second one over REST.
			q := call("create_quote", stay(r, day(10), 2, 2))
			restQuote := e.Do("POST", "/api/v1/quotes", stay(r, day(10), 2, 2), auth...).Expect(201)
			var tq, rq map[string]any
			tq = structured(t, q).(map[string]any)
			rq = restJSON(t, restQuote.Body).(map[string]any)
			delete(tq, "id")
			delete(rq, "id")
			if !reflect.DeepEqual(tq, rq) {
				t.Errorf("create_quote: tool %v\nREST %v", tq, rq)
			}
			sameRefusal(t, "create_quote", call("create_quote", stay(r, day(10), 0, 2)),
				e.Do("POST", "/api/v1/quotes", stay(r, day(10), 0, 2), auth...).Expect(400).Body)

			quoteID := structured(t, q).(map[string]any)["id"].(string)
			b := call("book", map[string]any{"quoteId": quoteID, "guest": guest})
			booking := structured(t, b).(map[string]any)
			bad := map[string]any{"firstName": "Mei", "lastName": "Tan", "email": "not an address"}
			sameRefusal(t, "book", call("book", map[string]any{"quoteId": quoteID, "guest": bad}),
				e.Do("POST", "/api/v1/bookings", map[string]any{"quoteId": quoteID, "guest": bad}, auth...).Expect(400).Body)

			id := booking["id"].(string)
			sameAnswer(t, "get_booking", call("get_booking", map[string]any{"id": id}), e.Get("/api/v1/bookings/"+id, auth...).Expect(200).Body)
			sameRefusal(t, "get_booking", call("get_booking", map[string]any{"id": nobody}), e.Get("/api/v1/bookings/"+nobody, auth...).Expect(404).Body)
			sameAnswer(t, "list_bookings", call("list_bookings", map[string]any{"status": "CONFIRMED", "sort": "checkIn", "order": "asc"}),
				e.Get("/api/v1/bookings?status=CONFIRMED&sort=checkIn&order=asc", auth...).Expect(200).Body)
			sameRefusal(t, "list_bookings", call("list_bookings", map[string]any{"checkInFrom": day(12).String(), "checkInTo": day(10).String()}),
				e.Get("/api/v1/bookings?checkInFrom="+day(12).String()+"&checkInTo="+day(10).String(), auth...).Expect(400).Body)

			cancelled := call("cancel_booking", map[string]any{"id": id})
			sameAnswer(t, "cancel_booking", cancelled, e.Get("/api/v1/bookings/"+id, auth...).Expect(200).Body)
			sameRefusal(t, "cancel_booking", call("cancel_booking", map[string]any{"id": id}),
				e.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, auth...).Expect(422).Body)

			host := e.key(t, d, "live")
			hr := e.hostRoom(t, host, 3)
			hs := mcpSession(t, e, "Authorization", host)
			update := []map[string]any{{"roomTypeId": hr.roomTypeID, "from": day(2).String(), "to": day(4).String(), "units": 2}}
			sameAnswer(t, "update_calendar", mcptest.Call(t, hs, "update_calendar", map[string]any{"propertyId": hr.propertyID, "updates": update}, nil),
				e.Do("PATCH", "/api/v1/properties/"+hr.propertyID+"/calendar", calendar(update...), xkey(host)...).Expect(200).Body)
			backwards := []map[string]any{{"roomTypeId": hr.roomTypeID, "from": day(4).String(), "to": day(2).String(), "units": 2}}
			sameRefusal(t, "update_calendar", mcptest.Call(t, hs, "update_calendar", map[string]any{"propertyId": hr.propertyID, "updates": backwards}, nil),
				e.Do("PATCH", "/api/v1/properties/"+hr.propertyID+"/calendar", calendar(backwards...), xkey(host)...).Expect(400).Body)
			sameRefusal(t, "update_calendar", mcptest.Call(t, cs, "update_calendar", map[string]any{"propertyId": hr.propertyID, "updates": update}, nil),
				e.Do("PATCH", "/api/v1/properties/"+hr.propertyID+"/calendar", calendar(update...), auth...).Expect(404).Body)
		})
	}
}

// TestMCPIdempotencyAcrossDoors: an idempotency key used by a tool and
// then by its REST route (or the other way round) with the same account,
// mode and body replays the first answer, success or refusal; the same
// key with other arguments is IDEMPOTENCY_KEY_REUSED through either door.
// The REST bodies are sent as the tools encode them, field for field.
func TestMCPIdempotencyAcrossDoors(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			r := e.tokyoDouble(t)
			d := e.signup(t)
			key := e.key(t, d, "test")
			cs := mcpSession(t, e, "X-API-KEY", key)
			with := func(idem string) []string { return append(xkey(key), "Idempotency-Key", idem) }
			replayed := func(what string, res *mcp.CallToolResult) {
				t.Helper()
				if res.Meta["idempotentReplayed"] != true {
					t.Errorf("%s: not marked replayed: %+v", what, res.Meta)
				}
			}
			stayBody := func(nights int) string {
				return `{"propertyId":"` + r.propertyID + `","roomTypeId":"` + r.roomTypeID + `","checkIn":"` + day(10).String() +
					`","checkOut":"` + day(10).AddDays(nights).String() + `","guests":2}`
			}
			withKey := func(args map[string]any, idem string) map[string]any {
				return mergeMaps(args, map[string]any{"idempotencyKey": idem})
			}

			// Tool first, then REST.
			q := mcptest.Call(t, cs, "create_quote", withKey(stay(r, day(10), 2, 2), "quote-1"), nil)
			rest := e.Do("POST", "/api/v1/quotes", stayBody(2), with("quote-1")...).Expect(201)
			if rest.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("REST after the tool was not replayed")
			}
			sameAnswer(t, "quote replayed over REST", q, rest.Body)
			if got := e.available(t, key, r, day(10)); got != r.units-1 {
				t.Errorf("units after one quote through two doors: %d, want %d", got, r.units-1)
			}
			quoteID := structured(t, q).(map[string]any)["id"].(string)

			// REST first, then the tool.
			bookBody := `{"quoteId":"` + quoteID + `","guest":{"firstName":"Mei","lastName":"Tan","email":"mei.tan@example.com","phone":"+65 6123 4567","country":"SG"}}`
			restBooking := e.Do("POST", "/api/v1/bookings", bookBody, with("book-1")...).Expect(201)
			b := mcptest.Call(t, cs, "book", map[string]any{"quoteId": quoteID, "guest": guest, "idempotencyKey": "book-1"}, nil)
			replayed("book after REST", b)
			sameAnswer(t, "book replayed through the tool", b, restBooking.Body)
			bookingID := structured(t, b).(map[string]any)["id"].(string)

			c := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": bookingID, "idempotencyKey": "cancel-1"}, nil)
			restCancel := e.Do("POST", "/api/v1/bookings/"+bookingID+"/cancel", nil, with("cancel-1")...).Expect(200)
			if restCancel.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("cancel over REST after the tool was not replayed")
			}
			sameAnswer(t, "cancel replayed over REST", c, restCancel.Body)

			// A refusal is recorded, and replayed through the other door
			// as it was sent.
			refused := mcptest.Call(t, cs, "create_quote", withKey(stay(r, day(10), 0, 2), "quote-bad"), nil)
			toolErrorCode(t, refused)
			again := e.Do("POST", "/api/v1/quotes", stayBody(0), with("quote-bad")...).Expect(400)
			if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != refused.Content[0].(*mcp.TextContent).Text {
				t.Errorf("refusal replay: %s\ntool: %s", again.Body, refused.Content[0].(*mcp.TextContent).Text)
			}

			// The same key with other arguments, through either door.
			if code := toolErrorCode(t, mcptest.Call(t, cs, "create_quote", withKey(stay(r, day(10), 3, 2), "quote-1"), nil)); code != "IDEMPOTENCY_KEY_REUSED" {
				t.Errorf("tool, other arguments: %s", code)
			}
			if code := e.Do("POST", "/api/v1/bookings", `{"quoteId":"`+quoteID+`"}`, with("book-1")...).Expect(422).ErrorCode(); code != "IDEMPOTENCY_KEY_REUSED" {
				t.Errorf("REST, other body: %s", code)
			}
			// A test key and a live key of the account are two key spaces'
			// worth of modes: the same key and body are two requests.
			live := mcpSession(t, e, "X-API-KEY", e.key(t, d, "live"))
			if code := toolErrorCode(t, mcptest.Call(t, live, "create_quote", withKey(stay(r, day(10), 2, 2), "quote-1"), nil)); code != "IDEMPOTENCY_KEY_REUSED" {
				t.Errorf("live key, test key's request: %s", code)
			}
			if code := toolErrorCode(t, mcptest.Call(t, cs, "create_quote", withKey(stay(r, day(10), 2, 2), "two words"), nil)); code != "VALIDATION_ERROR" {
				t.Errorf("unprintable key: %s", code)
			}

			// The calendar push.
			host := e.key(t, d, "live")
			hr := e.hostRoom(t, host, 3)
			hs := mcpSession(t, e, "X-API-KEY", host)
			cal := mcptest.Call(t, hs, "update_calendar", map[string]any{"propertyId": hr.propertyID, "idempotencyKey": "cal-1",
				"updates": []map[string]any{{"roomTypeId": hr.roomTypeID, "from": day(2).String(), "to": day(4).String(), "daysOfWeek": []string{"wed"}, "price": map[string]any{"amount": 9000}}}}, nil)
			calBody := `{"updates":[{"roomTypeId":"` + hr.roomTypeID + `","from":"` + day(2).String() + `","to":"` + day(4).String() + `","daysOfWeek":["wed"],"price":{"amount":9000}}]}`
			restCal := e.Do("PATCH", "/api/v1/properties/"+hr.propertyID+"/calendar", calBody, "X-API-KEY", host, "Idempotency-Key", "cal-1").Expect(http.StatusOK)
			if restCal.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("calendar over REST after the tool was not replayed")
			}
			sameAnswer(t, "calendar replayed over REST", cal, restCal.Body)
		})
	}
}
