package realtime_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestNewConversation checks that opening a conversation publishes it,
// after the commit and once, on the expert's personal channel, with the
// JSON the expert's conversation list answers.
func TestNewConversation(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			n := newNode(t, engine, nodeOptions{})
			expert := n.sampleUser("expert@example.com")
			ec := n.dial()
			if err := ec.connect(n.realtimeToken(expert)); err != nil {
				t.Fatal(err)
			}
			if f := ec.subscribe("user:"+expert.id, nil); f.Error != nil {
				t.Fatal(string(f.Raw))
			}

			traveller := n.register("opener@example.com")
			var opened struct{ Data struct{ ID string } }
			n.rest("POST", "/api/v1/conversations", traveller, map[string]string{"expertHandle": "demo-expert"}, 201, &opened)
			id := opened.Data.ID
			// Opening it again changes nothing and publishes nothing.
			n.rest("POST", "/api/v1/conversations", traveller, map[string]string{"expertHandle": "demo-expert"}, 200, nil)
			if k := n.count(`SELECT COUNT(*) FROM jobs WHERE kind = 'realtime.conversation' AND done_at IS NULL`); k != 1 {
				t.Fatalf("%d conversation jobs committed with the conversation, want 1", k)
			}
			n.work()
			ev := event(t, ec.publication("user:"+expert.id))
			var list struct{ Data []json.RawMessage }
			n.rest("GET", "/api/v1/conversations", expert, nil, 200, &list)
			var want any
			for _, raw := range list.Data {
				var c map[string]any
				json.Unmarshal(raw, &c)
				if c["id"] == id {
					want = c
				}
			}
			if ev["type"] != "conversation" || want == nil || !reflect.DeepEqual(ev["conversation"], want) {
				t.Fatalf("published %v\nthe expert's list has %v", ev, want)
			}

			// A retried job (its completion lost) publishes nothing again:
			// the next publication is the next conversation.
			if _, err := n.db.Exec(`UPDATE jobs SET done_at = NULL, locked_until = NULL WHERE kind = 'realtime.conversation'`); err != nil {
				t.Fatal(err)
			}
			n.work()
			second := n.register("second-opener@example.com")
			secondID := n.openConversation(second)
			ev = event(t, ec.publication("user:"+expert.id))
			if c, _ := ev["conversation"].(map[string]any); ev["type"] != "conversation" || c["id"] != secondID {
				t.Fatalf("after a retried job: %v, want conversation %s", ev, secondID)
			}
		})
	}
}
