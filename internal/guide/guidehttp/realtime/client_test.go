package realtime_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestClientFirst: a participant publishes a draft, the channel gives it
// an id, and recording it through REST with realtimeMessageId is
// idempotent; presence, join/leave and typing signals reach the other side.
func TestClientFirst(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			n := newNode(t, engine, nodeOptions{})
			traveller := n.register("draft@example.com")
			expert := n.sampleUser("expert@example.com")
			id := n.openConversation(traveller)
			ch := "conversation:" + id

			tc := n.dial()
			if err := tc.connect(n.realtimeToken(traveller)); err != nil {
				t.Fatal(err)
			}
			if f := tc.subscribe(ch, nil); f.Error != nil {
				t.Fatal(string(f.Raw))
			}
			ec := n.dial()
			if err := ec.connect(n.realtimeToken(expert)); err != nil {
				t.Fatal(err)
			}
			if f := ec.subscribe(ch, nil); f.Error != nil {
				t.Fatal(string(f.Raw))
			}
			// Online: the traveller sees the expert join; presence lists both.
			if f := tc.next(func(f frame) bool {
				return f.Push == nil || f.Push.Join == nil || f.Push.Join.Info.User == traveller.id
			}); f.Push.Join.Info.User != expert.id {
				t.Errorf("join: %s", f.Raw)
			}
			p := tc.call(map[string]any{"presence": map[string]any{"channel": ch}})
			users := map[string]bool{}
			if p.Presence != nil {
				for _, c := range p.Presence.Presence {
					users[c.User] = true
				}
			}
			if !users[traveller.id] || !users[expert.id] || len(users) != 2 {
				t.Errorf("presence: %s", p.Raw)
			}

			// Typing: passed on, not kept.
			if f := tc.call(map[string]any{"publish": map[string]any{"channel": ch, "data": map[string]any{"type": "typing"}}}); f.Error != nil {
				t.Fatal(string(f.Raw))
			}
			if ev := event(t, ec.publication(ch)); ev["type"] != "typing" || ev["userId"] != traveller.id || ev["conversationId"] != id {
				t.Errorf("typing: %v", ev)
			}

			// Drafts are checked as REST checks a message.
			for _, bad := range []map[string]any{
				{"type": "draft", "content": "   "},
				{"type": "draft"},
				{"type": "draft", "content": strings.Repeat("x", 5001)},
				{"type": "draft", "content": "nul\x00"},
				{"type": "draft", "content": "not a url", "messageType": "IMAGE"},
				{"type": "draft", "content": "hi", "messageType": "VIDEO"},
				{"type": "message", "content": "forged"},
			} {
				if f := tc.call(map[string]any{"publish": map[string]any{"channel": ch, "data": bad}}); f.Error == nil || f.Error.Code != codeBadRequest {
					t.Errorf("publish %v: %s, want error %d", bad, f.Raw, codeBadRequest)
				}
			}

			if f := tc.call(map[string]any{"publish": map[string]any{"channel": ch, "data": map[string]any{
				"type": "draft", "content": "Can we meet at nine?", "ref": "r1",
			}}}); f.Error != nil {
				t.Fatal(string(f.Raw))
			}
			draft := event(t, ec.publication(ch))
			draftID, _ := draft["id"].(string)
			gotDraft := map[string]any{
				"type": draft["type"], "idSet": draftID != "", "senderId": draft["senderId"], "content": draft["content"],
				"ref": draft["ref"], "messageType": draft["messageType"],
			}
			wantDraft := map[string]any{
				"type": "draft", "idSet": true, "senderId": traveller.id, "content": "Can we meet at nine?",
				"ref": "r1", "messageType": "TEXT",
			}
			if diff := cmp.Diff(wantDraft, gotDraft); diff != "" {
				t.Fatalf("draft (-want +got):\n%s", diff)
			}
			own := event(t, tc.publication(ch))
			if own["type"] == "typing" { // its own typing signal came first
				own = event(t, tc.publication(ch))
			}
			if own["id"] != draftID {
				t.Errorf("the sender's copy of the draft: %v", own) // it learns the id from it
			}

			// Recorded with the draft's id: once, whatever the retries.
			var first, again struct {
				Data struct {
					ID      string
					Content string
				}
			}
			n.rest("POST", "/api/v1/conversations/"+id+"/messages", traveller, map[string]any{"content": "Can we meet at nine?", "realtimeMessageId": draftID}, 201, &first)
			n.rest("POST", "/api/v1/conversations/"+id+"/messages", traveller, map[string]any{"content": "Can we meet at nine?", "realtimeMessageId": draftID}, 200, &again)
			if again.Data.ID != first.Data.ID {
				t.Fatalf("second record answered message %s, want %s", again.Data.ID, first.Data.ID)
			}
			if k := n.count(`SELECT COUNT(*) FROM jobs WHERE kind = 'realtime.message'`); k != 1 {
				t.Errorf("%d publication jobs for one recorded draft", k)
			}
			n.work()
			ev := event(t, ec.publication(ch))
			if ev["type"] != "message" || ev["realtimeMessageId"] != draftID || ev["message"].(map[string]any)["id"] != first.Data.ID {
				t.Errorf("recorded draft: %v", ev)
			}

			// Offline: the expert's leave reaches the traveller.
			ec.close()
			if f := tc.next(func(f frame) bool { return f.Push == nil || f.Push.Leave == nil }); f.Push.Leave.Info.User != expert.id {
				t.Errorf("leave: %s", f.Raw)
			}
		})
	}
}

// TestRecovery: a client that reconnects within the recovery window gets
// the publications it missed.
func TestRecovery(t *testing.T) {
	t.Parallel()
	n := newNode(t, store.SQLite, nodeOptions{})
	traveller := n.register("recover@example.com")
	expert := n.sampleUser("expert@example.com")
	id := n.openConversation(traveller)
	ch := "conversation:" + id
	send := func(content string) string {
		var m struct{ Data struct{ ID string } }
		n.rest("POST", "/api/v1/conversations/"+id+"/messages", traveller, map[string]any{"content": content}, 201, &m)
		n.work()
		return m.Data.ID
	}

	ec := n.dial()
	if err := ec.connect(n.realtimeToken(expert)); err != nil {
		t.Fatal(err)
	}
	sub := ec.subscribe(ch, nil)
	if sub.Error != nil || sub.Subscribe.Epoch == "" {
		t.Fatalf("subscribe: %s", sub.Raw)
	}
	send("Before the tunnel")
	pos := *sub.Subscribe
	pos.Offset = ec.publication(ch).Offset
	ec.close()

	missed := []string{send("In the tunnel"), send("Still in it")}

	ec = n.dial()
	if err := ec.connect(n.realtimeToken(expert)); err != nil {
		t.Fatal(err)
	}
	f := ec.subscribe(ch, &pos)
	if f.Error != nil || !f.Subscribe.Recovered || len(f.Subscribe.Publications) != len(missed) {
		t.Fatalf("recovery: %s", f.Raw)
	}
	for i, p := range f.Subscribe.Publications {
		if got := event(t, p)["message"].(map[string]any)["id"]; got != missed[i] {
			t.Errorf("recovered %d: %v, want %s", i, got, missed[i])
		}
	}
}
