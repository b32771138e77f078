package realtime_test

import (
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestSSEFallback: a client without WebSocket connects over the SSE
// fallback with the same token, subscribes through the emulation
// endpoint under the same rules, and receives the message sent over REST.
func TestSSEFallback(t *testing.T) {
	t.Parallel()
	n := newNode(t, storetest.Engines()[0], nodeOptions{})
	traveller := n.register("sse@example.com")
	expert := n.sampleUser("expert@example.com")
	id := n.openConversation(traveller)

	stranger := n.dialSSE()
	if err := stranger.connect(n.realtimeToken(n.register("sse-stranger@example.com"))); err != nil {
		t.Fatal(err)
	}
	if f := stranger.subscribe("conversation:"+id, nil); f.Error == nil {
		t.Fatalf("a stranger subscribed over SSE: %s", f.Raw)
	}

	bad := n.dialSSE()
	if err := bad.connect("not-a-token"); err == nil {
		t.Fatal("connected over SSE with a bad token")
	}

	ec := n.dialSSE()
	if err := ec.connect(n.realtimeToken(expert)); err != nil {
		t.Fatalf("connect: %+v", err)
	}
	if f := ec.subscribe("conversation:"+id, nil); f.Error != nil {
		t.Fatalf("subscribe: %s", f.Raw)
	}
	var sent struct{ Data struct{ ID string } }
	n.rest("POST", "/api/v1/conversations/"+id+"/messages", traveller, map[string]any{"content": "Over SSE?"}, 201, &sent)
	n.work()
	ev := event(t, ec.publication("conversation:"+id))
	if ev["type"] != "message" || ev["message"].(map[string]any)["id"] != sent.Data.ID {
		t.Fatalf("published %v, want message %s", ev, sent.Data.ID)
	}
}
