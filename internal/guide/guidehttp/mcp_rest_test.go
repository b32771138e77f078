package guidehttp_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
)

// sameAnswer checks that a tool answered what the REST route did: its
// structured content is the REST body, or both refused alike.
func sameAnswer(t *testing.T, what string, res *mcp.CallToolResult, status int, body []byte) {
	t.Helper()
	if status >= 400 {
		sameRefusal(t, what, res, body)
		return
	}
	if got, want := structured(t, res), restJSON(t, body); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: tool %v\nREST %v", what, got, want)
	}
}

// TestMCPCatalogToolsAnswerAsREST: each catalogue tool answers what the
// REST routes answer the same key with the same arguments.
func TestMCPCatalogToolsAnswerAsREST(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, "sqlite")
	key := b.apiKey(t, b.tourist, "experts:read", "packages:read", "travelogues:read")
	cs, auth := mcpSession(t, b.env, key), bearer(key)
	call := func(tool string, args map[string]any, path string, status int) []byte {
		t.Helper()
		rest := b.Get(path, auth...).Expect(status)
		sameAnswer(t, tool+" "+path, mcptest.Call(t, cs, tool, args, nil), rest.Status, rest.Body)
		return rest.Body
	}

	call("search_experts", map[string]any{}, "/api/v1/experts", 200)
	call("search_experts", map[string]any{"country": "jp", "sort": "reviewCount", "order": "asc", "page": 1, "pageSize": 2, "locale": "JA"},
		"/api/v1/experts?country=jp&sort=reviewCount&order=asc&page=1&pageSize=2&locale=JA", 200)
	call("search_experts", map[string]any{"city": " Tokyo ", "language": "ja", "specialty": "food"},
		"/api/v1/experts?city=+Tokyo+&language=ja&specialty=food", 200)
	call("search_experts", map[string]any{"sort": "bogus", "pageSize": 500, "page": -1, "country": "XX"},
		"/api/v1/experts?sort=bogus&pageSize=500&page=-1&country=XX", 400)

	{ // get_expert: the expert and the first page of reviews
		var x struct{ Expert, Reviews any }
		mcptest.Call(t, cs, "get_expert", map[string]any{"handle": "demo-expert", "locale": "ja"}, &x)
		if want := restJSON(t, b.Get("/api/v1/experts/demo-expert?locale=ja").Expect(200).Body).(map[string]any)["data"]; !reflect.DeepEqual(x.Expert, want) {
			t.Errorf("get_expert: tool %v\nREST %v", x.Expert, want)
		}
		if want := restJSON(t, b.Get("/api/v1/experts/demo-expert/reviews").Expect(200).Body); !reflect.DeepEqual(x.Reviews, want) {
			t.Errorf("get_expert reviews: tool %v\nREST %v", x.Reviews, want)
		}
		call("get_expert", map[string]any{"handle": "no-such-expert"}, "/api/v1/experts/no-such-expert", 404)
		call("get_expert", map[string]any{"handle": "demo-expert", "locale": "fr"}, "/api/v1/experts/demo-expert?locale=fr", 400)
	}

	body := call("search_packages", map[string]any{}, "/api/v1/packages", 200)
	call("search_packages", map[string]any{"country": "JP", "sort": "price", "order": "asc", "pageSize": 3},
		"/api/v1/packages?country=JP&sort=price&order=asc&pageSize=3", 200)
	call("search_packages", map[string]any{"expertHandle": "demo-expert", "pageSize": 2, "sort": "ignored-here"},
		"/api/v1/experts/demo-expert/packages?pageSize=2", 200)
	call("search_packages", map[string]any{"expertHandle": "no-such-expert"}, "/api/v1/experts/no-such-expert/packages", 404)
	call("search_packages", map[string]any{"sort": "cheapest", "category": strings.Repeat("c", 51)},
		"/api/v1/packages?sort=cheapest&category="+strings.Repeat("c", 51), 400)

	id := restJSON(t, body).(map[string]any)["data"].([]any)[0].(map[string]any)["id"].(string)
	call("get_package", map[string]any{"id": id, "locale": "zh-TW"}, "/api/v1/packages/"+id+"?locale=zh-TW", 200)
	call("get_package", map[string]any{"id": "0190f1a8-0000-7000-8000-000000000000"}, "/api/v1/packages/0190f1a8-0000-7000-8000-000000000000", 404)

	body = call("list_travelogues", map[string]any{}, "/api/v1/travelogues", 200)
	call("list_travelogues", map[string]any{"sort": "viewCount", "pageSize": 2, "page": 2, "locale": "ko"},
		"/api/v1/travelogues?sort=viewCount&pageSize=2&page=2&locale=ko", 200)
	call("list_travelogues", map[string]any{"locale": "fr", "order": "up"}, "/api/v1/travelogues?locale=fr&order=up", 400)

	slug := restJSON(t, body).(map[string]any)["data"].([]any)[0].(map[string]any)["slug"].(string)
	call("get_travelogue", map[string]any{"slug": slug}, "/api/v1/travelogues/"+slug, 200)
	call("get_travelogue", map[string]any{"slug": "no-such-story"}, "/api/v1/travelogues/no-such-story", 404)
}

// TestMCPBookingToolsAnswerAsREST: each booking tool answers what the
// REST routes answer the same key with the same arguments, and an
// Idempotency-Key is one across the two doors.
func TestMCPBookingToolsAnswerAsREST(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, "sqlite")
	key := b.apiKey(t, b.tourist, "bookings:read", "bookings:write")
	cs, auth := mcpSession(t, b.env, key), bearer(key)
	when := b.clock.Now().Add(72 * time.Hour).Format(time.RFC3339)

	{ // create_booking: a key used on one door replays on the other
		args := map[string]any{"packageId": b.packageID, "scheduledDate": when}
		rest := b.Do("POST", "/api/v1/bookings", args, append(auth, "Idempotency-Key", "cross-door-1")...).Expect(201)
		res := mcptest.Call(t, cs, "create_booking", map[string]any{"packageId": b.packageID, "scheduledDate": when, "idempotencyKey": "cross-door-1"}, nil)
		sameAnswer(t, "create_booking replayed", res, rest.Status, rest.Body)
		if res.Meta["idempotentReplayed"] != true {
			t.Errorf("the tool's replay is not marked: %v", res.Meta)
		}

		args = map[string]any{"packageId": b.packageID, "scheduledDate": when, "participants": 2}
		res = mcptest.Call(t, cs, "create_booking", map[string]any{"packageId": b.packageID, "scheduledDate": when, "participants": 2, "idempotencyKey": "cross-door-2"}, nil)
		if res.IsError || res.Meta["idempotentReplayed"] != nil {
			t.Fatalf("create_booking: %+v", res)
		}
		// The tool's body, in the field order the tool sends.
		rest = b.Do("POST", "/api/v1/bookings", `{"packageId":"`+b.packageID+`","scheduledDate":"`+when+`","participants":2}`,
			append(auth, "Idempotency-Key", "cross-door-2")...).Expect(201)
		if rest.Header.Get("Idempotent-Replayed") != "true" {
			t.Error("REST did not replay the tool's booking")
		}
		sameAnswer(t, "create_booking first", res, rest.Status, rest.Body)
		if n := b.count(t, `SELECT COUNT(*) FROM bookings WHERE tourist_id = $1`, b.tourist.id); n != 2 {
			t.Errorf("%d bookings, want 2", n)
		}

		// A refusal is recorded and replayed alike.
		rest = b.Do("POST", "/api/v1/bookings", `{"scheduledDate":"tomorrow","participants":51}`, append(auth, "Idempotency-Key", "cross-door-3")...).Expect(400)
		bad := map[string]any{"scheduledDate": "tomorrow", "participants": 51, "idempotencyKey": "cross-door-3"}
		sameAnswer(t, "create_booking refusal replayed", mcptest.Call(t, cs, "create_booking", bad, nil), rest.Status, rest.Body)
		// The same arguments under another key: the other door's reuse.
		rest = b.Do("POST", "/api/v1/bookings", args, append(auth, "Idempotency-Key", "cross-door-3")...).Expect(422)
		sameRefusal(t, "key reused", mcptest.Call(t, cs, "create_booking",
			map[string]any{"packageId": b.packageID, "scheduledDate": when, "participants": 2, "idempotencyKey": "cross-door-3"}, nil), rest.Body)
		for _, bad := range []map[string]any{
			{"scheduledDate": when},
			{"scheduledDate": when, "expertId": "not-a-uuid", "customRequest": strings.Repeat("c", 2001)},
			{"scheduledDate": when, "packageId": "0190f1a8-0000-7000-8000-000000000000"},
		} {
			rest := b.Do("POST", "/api/v1/bookings", bad, auth...)
			sameAnswer(t, "create_booking refused", mcptest.Call(t, cs, "create_booking", bad, nil), rest.Status, rest.Body)
		}
	}

	call := func(tool string, args map[string]any, path string, status int) []byte {
		t.Helper()
		rest := b.Get(path, auth...).Expect(status)
		sameAnswer(t, tool+" "+path, mcptest.Call(t, cs, tool, args, nil), rest.Status, rest.Body)
		return rest.Body
	}
	body := call("list_my_bookings", map[string]any{}, "/api/v1/bookings", 200)
	call("list_my_bookings", map[string]any{"status": "pending", "sort": "scheduledDate", "order": "asc", "pageSize": 1},
		"/api/v1/bookings?status=pending&sort=scheduledDate&order=asc&pageSize=1", 200)
	call("list_my_bookings", map[string]any{"status": "NOPE", "page": 1_000_001}, "/api/v1/bookings?status=NOPE&page=1000001", 400)

	id := restJSON(t, body).(map[string]any)["data"].([]any)[0].(map[string]any)["id"].(string)
	call("get_booking", map[string]any{"id": id}, "/api/v1/bookings/"+id, 200)
	call("get_booking", map[string]any{"id": "not-an-id"}, "/api/v1/bookings/not-an-id", 404)
	call("get_booking", map[string]any{"id": "0190f1a8-0000-7000-8000-000000000000"}, "/api/v1/bookings/0190f1a8-0000-7000-8000-000000000000", 404)
	strangers := b.book(t, b.stranger, nil)
	call("get_booking", map[string]any{"id": strangers}, "/api/v1/bookings/"+strangers, 403)

	{ // cancel_booking: refused alike; allowed, both ask
		for _, id := range []string{"not-an-id", "0190f1a8-0000-7000-8000-000000000000", strangers} {
			rest := b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, auth...)
			sameAnswer(t, "cancel_booking "+id, mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": id}, nil), rest.Status, rest.Body)
		}
		b.Do("POST", "/api/v1/bookings/"+strangers+"/cancel", nil, bearer(b.stranger.token)...).Expect(200)
		rest := b.Do("POST", "/api/v1/bookings/"+strangers+"/cancel", nil, bearer(b.stranger.token)...).Expect(422)
		stranger := b.apiKey(t, b.stranger, "bookings:write")
		sameRefusal(t, "cancel_booking cancelled", mcptest.Call(t, mcpSession(t, b.env, stranger), "cancel_booking", map[string]any{"id": strangers}, nil), rest.Body)

		var asked struct{ ActionID, Action, Status string }
		if res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": id}, &asked); res.IsError || asked.Action != "booking.cancel" || asked.Status != "pending" {
			t.Fatalf("cancel_booking: %+v", res)
		}
		var read struct {
			Data struct{ ID, Action, Status, TargetID string }
		}
		b.Get("/api/v1/actions/"+asked.ActionID, auth...).Expect(200).Decode(&read)
		if read.Data.Action != "booking.cancel" || read.Data.TargetID != id || read.Data.Status != "pending" {
			t.Errorf("REST reads the tool's action as %+v", read.Data)
		}
		// REST asks for an action of its own kind; the booking stays.
		var accepted struct{ ActionID string }
		b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, auth...).Expect(202).Decode(&accepted)
		if accepted.ActionID == "" || accepted.ActionID == asked.ActionID || b.status(t, id) != "PENDING" {
			t.Errorf("REST asked %q after the tool's %q; booking %s", accepted.ActionID, asked.ActionID, b.status(t, id))
		}
	}
}
