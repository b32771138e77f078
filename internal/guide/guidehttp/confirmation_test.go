package guidehttp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// createdKey is the answer to POST /api/v1/auth/api-keys.
type createdKey struct {
	Data struct{ ID, Key, Confirmation string }
}

// pendingAnswer is a 202 PendingActionAccepted.
type pendingAnswer struct {
	ActionID, ConfirmURL, Message string
	ExpiresIn                     int
}

// actionRow is a pending action as stored.
func actionRow(t *testing.T, b *bookingEnv, id string) (status string, personOnly bool) {
	t.Helper()
	if err := b.db.QueryRow(`SELECT status, person_only FROM pending_actions WHERE id = $1`, id).Scan(&status, &personOnly); err != nil {
		t.Fatalf("action %s: %v", id, err)
	}
	return status, personOnly
}

// TestPersonConfirmationKey: a key created with "confirmation": "person"
// asks for high-risk actions that no key confirms, the one that asked
// included; its owner confirms them with a user token. The key list shows
// each key's confirmation; plain keys keep the specification's default.
func TestPersonConfirmationKey(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			var person, plain createdKey
			b.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "careful agent", "scopes": []string{"bookings:read", "bookings:write", "profile:write"},
				"confirmation": "person"}, bearer(b.tourist.token)...).Expect(201).Decode(&person)
			b.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "plain agent", "scopes": []string{"bookings:write"}},
				bearer(b.tourist.token)...).Expect(201).Decode(&plain)
			if person.Data.Confirmation != "person" || plain.Data.Confirmation != "actor" {
				t.Fatalf("created: person %+v, plain %+v", person.Data, plain.Data)
			}
			res := b.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "x", "scopes": []string{"bookings:write"}, "confirmation": "anyone"},
				bearer(b.tourist.token)...).Expect(400)
			if res.ErrorCode() != "VALIDATION_ERROR" || !strings.Contains(string(res.Body), `"confirmation"`) {
				t.Errorf("unknown confirmation: %s", res.Body)
			}
			var list struct{ Data []guide.APIKey }
			b.Get("/api/v1/auth/api-keys", bearer(b.tourist.token)...).Expect(200).Decode(&list)
			shown := map[string]string{}
			for _, k := range list.Data {
				shown[k.ID] = k.Confirmation
			}
			if len(shown) != 2 || shown[person.Data.ID] != "person" || shown[plain.Data.ID] != "actor" {
				t.Fatalf("key list: %+v", list.Data)
			}

			// Cancel: 202 and a person-only action; the booking stays.
			id := b.book(t, b.tourist, nil)
			var pending pendingAnswer
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(person.Data.Key)...).Expect(202).Decode(&pending)
			if !strings.Contains(pending.Message, "no API key can confirm it") {
				t.Errorf("202 message: %s", pending.Message)
			}
			if status, personOnly := actionRow(t, b, pending.ActionID); status != "pending" || !personOnly {
				t.Fatalf("stored action: %s, person only %v", status, personOnly)
			}
			// The key that asked cannot confirm it: 403, nothing changes.
			res = b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(person.Data.Key)...).Expect(403)
			if res.ErrorCode() != "PERSON_CONFIRMATION_REQUIRED" || !strings.Contains(string(res.Body), "Only the person confirms this action") {
				t.Fatalf("key confirms its person-only action: %s", res.Body)
			}
			if status, _ := actionRow(t, b, pending.ActionID); status != "pending" || b.status(t, id) != "PENDING" {
				t.Fatalf("after the key's attempt: action %s, booking %s", status, b.status(t, id))
			}
			// Another key of the owner does not even see it.
			b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(plain.Data.Key)...).Expect(404)
			// The person confirms with their user token: done.
			var conf struct{ Data struct{ Status string } }
			b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(b.tourist.token)...).Expect(200).Decode(&conf)
			if status, _ := actionRow(t, b, pending.ActionID); conf.Data.Status != "confirmed" || status != "confirmed" || b.status(t, id) != "CANCELLED" {
				t.Fatalf("after the person's confirmation: %+v, action %s, booking %s", conf.Data, status, b.status(t, id))
			}

			// Every high-risk action: closing the account too.
			b.Do("POST", "/api/v1/profile/delete", map[string]any{"confirmation": "DELETE"}, bearer(person.Data.Key)...).Expect(202).Decode(&pending)
			if res := b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(person.Data.Key)...).Expect(403); res.ErrorCode() != "PERSON_CONFIRMATION_REQUIRED" {
				t.Fatalf("key confirms its account closure: %s", res.Body)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM users WHERE id = $1 AND deleted_at IS NULL`, b.tourist.id); n != 1 {
				t.Fatal("the key closed the account")
			}

			// A plain key keeps the specification's rule: it confirms its own.
			id = b.book(t, b.tourist, nil)
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(plain.Data.Key)...).Expect(202).Decode(&pending)
			if _, personOnly := actionRow(t, b, pending.ActionID); personOnly {
				t.Fatal("a plain key's action is person only")
			}
			b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(plain.Data.Key)...).Expect(200)
			if s := b.status(t, id); s != "CANCELLED" {
				t.Fatalf("plain key's confirmed cancel: booking %s", s)
			}
		})
	}
}

// TestAskAgainKeepsTheKind: an ask through MCP gets or makes a person-only
// action, never the key-confirmable one the same key asked for over REST,
// and a REST ask never gets the MCP one; asking again the same way returns
// the same action. No key confirms the MCP one.
func TestAskAgainKeepsTheKind(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			key := b.apiKey(t, b.tourist, "bookings:read", "bookings:write")
			id := b.book(t, b.tourist, nil)

			var rest pendingAnswer
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(key)...).Expect(202).Decode(&rest)
			cs := mcpSession(t, b.env, key)
			var viaMCP struct{ ActionID, Status, Message string }
			if res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": id}, &viaMCP); res.IsError {
				t.Fatalf("cancel_booking: %+v", res)
			}
			if viaMCP.ActionID == rest.ActionID || viaMCP.Status != "pending" || strings.Contains(viaMCP.Message, "already asked") {
				t.Fatalf("MCP got the REST action back: %+v (REST %s)", viaMCP, rest.ActionID)
			}
			if _, personOnly := actionRow(t, b, viaMCP.ActionID); !personOnly {
				t.Fatal("the MCP action is key-confirmable")
			}
			// Asking again, each way, returns that way's action.
			var again struct{ ActionID, Message string }
			mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": id}, &again)
			if again.ActionID != viaMCP.ActionID || !strings.Contains(again.Message, "already asked") {
				t.Fatalf("MCP ask again: %+v, want %s", again, viaMCP.ActionID)
			}
			var restAgain pendingAnswer
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(key)...).Expect(202).Decode(&restAgain)
			if restAgain.ActionID != rest.ActionID || !strings.Contains(restAgain.Message, "already asked") {
				t.Fatalf("REST ask again: %+v, want %s", restAgain, rest.ActionID)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM pending_actions WHERE target_id = $1`, id); n != 2 {
				t.Fatalf("%d actions, want one of each kind", n)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM events WHERE type = 'action.pending'`); n != 2 {
				t.Errorf("%d action.pending events, want 2: asking again notifies no one", n)
			}

			// No key confirms the MCP action: the one that asked gets 403,
			// a person-confirmation key and another plain key of the owner 404.
			if res := b.Do("POST", "/api/v1/actions/"+viaMCP.ActionID+"/confirm", nil, bearer(key)...).Expect(403); res.ErrorCode() != "PERSON_CONFIRMATION_REQUIRED" {
				t.Fatalf("the asking key confirms the MCP action: %s", res.Body)
			}
			var careful createdKey
			b.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "careful", "scopes": []string{"bookings:write"}, "confirmation": "person"},
				bearer(b.tourist.token)...).Expect(201).Decode(&careful)
			for _, other := range []string{careful.Data.Key, b.apiKey(t, b.tourist, "bookings:write")} {
				b.Do("POST", "/api/v1/actions/"+viaMCP.ActionID+"/confirm", nil, bearer(other)...).Expect(404)
			}
			if status, _ := actionRow(t, b, viaMCP.ActionID); status != "pending" || b.status(t, id) != "PENDING" {
				t.Fatalf("after the keys' attempts: action %s, booking %s", status, b.status(t, id))
			}
			b.Do("POST", "/api/v1/actions/"+viaMCP.ActionID+"/confirm", nil, bearer(b.tourist.token)...).Expect(200)
			if b.status(t, id) != "CANCELLED" {
				t.Fatal("the person's confirmation did not cancel")
			}

			// Once an action expires, asking again makes a new one.
			id = b.book(t, b.tourist, nil)
			var first, second pendingAnswer
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(key)...).Expect(202).Decode(&first)
			b.clock.Advance(10*time.Minute + time.Second)
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(key)...).Expect(202).Decode(&second)
			if second.ActionID == first.ActionID || second.ExpiresIn != 600 {
				t.Fatalf("ask after expiry: %+v, first %s", second, first.ActionID)
			}
			var a struct{ Data guide.PendingAction }
			b.Get("/api/v1/actions/"+first.ActionID, bearer(key)...).Expect(200).Decode(&a)
			if a.Data.Status != "expired" {
				t.Errorf("the expired action reads %s", a.Data.Status)
			}
			b.Do("POST", "/api/v1/actions/"+first.ActionID+"/confirm", nil, bearer(key)...).Expect(422)
		})
	}
}

// TestConcurrentAsksMakeOneAction: asks of one key for one operation and
// target racing each other, over REST and through MCP, make one action of
// each kind, held by the database's unique index, not by a read first.
func TestConcurrentAsksMakeOneAction(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			key := b.apiKey(t, b.tourist, "bookings:read", "bookings:write", "profile:write")
			id := b.book(t, b.tourist, nil)
			cs := mcpSession(t, b.env, key)

			const n = 8
			ids := make([]string, 2*n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() {
					<-start
					var p pendingAnswer
					res := b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(key)...)
					if res.Status != http.StatusAccepted || json.Unmarshal(res.Body, &p) != nil {
						t.Errorf("REST ask: %d %s", res.Status, res.Body)
					}
					ids[i] = p.ActionID
				})
				wg.Go(func() {
					<-start
					res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "cancel_booking", Arguments: map[string]any{"id": id}})
					if err != nil || res.IsError {
						t.Errorf("MCP ask: %v %+v", err, res)
						return
					}
					b, _ := json.Marshal(res.StructuredContent)
					var out struct{ ActionID string }
					if err := json.Unmarshal(b, &out); err != nil {
						t.Error(err)
					}
					ids[n+i] = out.ActionID
				})
			}
			close(start)
			wg.Wait()
			for i := range n {
				if ids[i] != ids[0] || ids[n+i] != ids[n] {
					t.Fatalf("concurrent asks got different actions: %v", ids)
				}
			}
			if ids[0] == ids[n] {
				t.Fatal("REST and MCP asks share an action")
			}
			if got := b.count(t, `SELECT COUNT(*) FROM pending_actions WHERE target_id = $1 AND person_only = FALSE`, id); got != 1 {
				t.Errorf("%d key-confirmable actions, want 1", got)
			}
			if got := b.count(t, `SELECT COUNT(*) FROM pending_actions WHERE target_id = $1 AND person_only = TRUE`, id); got != 1 {
				t.Errorf("%d person-only actions, want 1", got)
			}
			if got := b.count(t, `SELECT COUNT(*) FROM events WHERE type = 'action.pending'`); got != 2 {
				t.Errorf("%d action.pending events, want 2", got)
			}

			// The rule is the schema's: a second open action of the same
			// kind cannot be stored, whatever code writes it.
			_, err := b.db.Exec(`INSERT INTO pending_actions (id, user_id, api_key_id, action, target_id, payload, status, expires_at, created_at, person_only)
				SELECT '00000000-0000-7000-8000-0000000000aa', user_id, api_key_id, action, target_id, payload, status, expires_at, created_at, person_only
				FROM pending_actions WHERE id = $1`, ids[0])
			if err == nil {
				t.Fatal("a second open action for the same key, operation, target and kind was stored")
			}
		})
	}
}
