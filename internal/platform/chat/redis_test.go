package chat_test

import (
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// TestTwoNodesOnRedis: two replicas sharing one database and one Redis;
// a client connected to one receives what the other publishes, and
// presence is shared.
func TestTwoNodesOnRedis(t *testing.T) {
	t.Parallel()
	url := redisURL(t)
	prefix := uniquePrefix(t, url)
	a := newNode(t, store.SQLite, nodeOptions{redisURL: url, redisPrefix: prefix})
	b := newNode(t, store.SQLite, nodeOptions{db: a.db, clock: a.clock, redisURL: url, redisPrefix: prefix})
	traveller := a.register("replicas@example.com")
	expert := a.sampleUser("expert@example.com")
	id := a.openConversation(traveller)

	ec := a.dial()
	if err := ec.connect(a.realtimeToken(expert)); err != nil {
		t.Fatal(err)
	}
	if f := ec.subscribe("conversation:"+id, nil); f.Error != nil {
		t.Fatal(string(f.Raw))
	}
	// The message is recorded on B and published by B's runner.
	var sent struct{ Data struct{ ID string } }
	b.rest("POST", "/api/v1/conversations/"+id+"/messages", traveller, map[string]any{"content": "Across replicas"}, 201, &sent)
	b.work()
	if ev := event(t, ec.publication("conversation:"+id)); ev["message"].(map[string]any)["id"] != sent.Data.ID {
		t.Fatalf("on A: %v", ev)
	}
	// B sees A's subscriber as present (no push for a live recipient).
	deadline := time.Now().Add(10 * time.Second)
	for {
		online, err := b.engine.Online(t.Context(), "conversation:"+id, expert.id)
		if err != nil {
			t.Fatal(err)
		}
		if online {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("A's subscriber not present on B")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A client-side publication on B reaches the client on A.
	tc := b.dial()
	if err := tc.connect(b.realtimeToken(traveller)); err != nil {
		t.Fatal(err)
	}
	if f := tc.subscribe("conversation:"+id, nil); f.Error != nil {
		t.Fatal(string(f.Raw))
	}
	if f := tc.call(map[string]any{"publish": map[string]any{"channel": "conversation:" + id, "data": map[string]any{"type": "typing"}}}); f.Error != nil {
		t.Fatal(string(f.Raw))
	}
	if ev := event(t, ec.publication("conversation:"+id)); ev["type"] != "typing" || ev["userId"] != traveller.id {
		t.Fatalf("typing from B on A: %v", ev)
	}
}
