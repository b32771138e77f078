package realtime_test

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

// TestDrainHandsOverToAnotherReplica: a replica that drains closes its
// connections with the advice to reconnect and refuses new ones the same
// way; the client reconnects to another replica and recovers, from the
// shared history, what was published meanwhile.
func TestDrainHandsOverToAnotherReplica(t *testing.T) {
	t.Parallel()
	url := redisURL(t)
	prefix := uniquePrefix(t, url)
	a := newNode(t, store.SQLite, nodeOptions{redisURL: url, redisPrefix: prefix})
	b := newNode(t, store.SQLite, nodeOptions{db: a.db, clock: a.clock, redisURL: url, redisPrefix: prefix})
	traveller := a.register("drain@example.com")
	expert := a.sampleUser("expert@example.com")
	id := a.openConversation(traveller)
	ch := "conversation:" + id
	send := func(content string) string {
		var m struct{ Data struct{ ID string } }
		b.rest("POST", "/api/v1/conversations/"+id+"/messages", traveller, map[string]any{"content": content}, 201, &m)
		b.work()
		return m.Data.ID
	}

	ec := a.dial()
	if err := ec.connect(a.realtimeToken(expert)); err != nil {
		t.Fatal(err)
	}
	sub := ec.subscribe(ch, nil)
	if sub.Error != nil || sub.Subscribe.Epoch == "" {
		t.Fatalf("subscribe: %s", sub.Raw)
	}
	send("Before the release")
	pos := *sub.Subscribe
	pos.Offset = ec.publication(ch).Offset

	a.engine.Drain()
	if ce := ec.closeError(); ce.Code != 3001 {
		t.Fatalf("drained connection closed with %d %q, want 3001 (shutdown: reconnect)", ce.Code, ce.Text)
	}
	// A new connection is closed, not answered: one that was accepted
	// would stay open and closeError fail.
	late := a.dial()
	late.send(map[string]any{"connect": map[string]any{"token": a.realtimeToken(expert), "name": "go-test"}})
	if ce := late.closeError(); ce.Code != 3001 {
		t.Fatalf("new connection on a draining replica closed with %d %q, want 3001", ce.Code, ce.Text)
	}

	missed := send("During the release")
	ec = b.dial()
	if err := ec.connect(b.realtimeToken(expert)); err != nil {
		t.Fatal(err)
	}
	f := ec.subscribe(ch, &pos)
	if f.Error != nil || !f.Subscribe.Recovered || len(f.Subscribe.Publications) != 1 {
		t.Fatalf("recovery on the other replica: %s", f.Raw)
	}
	if got := event(t, f.Subscribe.Publications[0])["message"].(map[string]any)["id"]; got != missed {
		t.Errorf("recovered %v, want %s", got, missed)
	}
}
