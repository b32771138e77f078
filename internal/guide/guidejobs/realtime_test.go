package guidejobs_test

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/guidejobs"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// publisher records what a runner publishes.
type publisher struct {
	mu   sync.Mutex
	sent map[string][][]byte // by channel
}

func (p *publisher) Publish(_ context.Context, channel string, data []byte, _ string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sent == nil {
		p.sent = map[string][][]byte{}
	}
	p.sent[channel] = append(p.sent[channel], data)
	return nil
}

func (p *publisher) Online(context.Context, string, string) (bool, error) { return false, nil }

// TestRealtimeMessageFromPayload: the realtime job of a sent message
// carries the message, and the runner publishes it as the database has it
// (as the job of an earlier version, which names the message only, still
// has it read back); the round's jobs are completed together.
func TestRealtimeMessageFromPayload(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
			c := e.fixture()
			ctx := t.Context()
			// As the API has the user: the fixture's traveller has no picture.
			name := fixtureTouristName
			tourist := &guide.User{ID: c.touristID, Name: &name}
			draft := "draft-1"
			m, created, err := e.g.SendMessage(ctx, tourist, c.id, guide.NewMessage{Content: "/media/messages/x.jpg",
				MessageType: guide.MessageImage, RealtimeMessageID: &draft}, false)
			if err != nil || !created {
				t.Fatal(m, created, err)
			}
			if err := e.q.Enqueue(ctx, e.db, guide.JobRealtimeMessage, map[string]string{"messageId": m.ID}, e.clk.Now()); err != nil {
				t.Fatal(err)
			}
			var raw []byte
			if err := e.db.QueryRowContext(ctx, `SELECT payload FROM jobs WHERE kind = $1 ORDER BY created_at, id LIMIT 1`,
				guide.JobRealtimeMessage).Scan(&raw); err != nil {
				t.Fatal(err)
			}
			var payload guidedb.RealtimeMessage
			if err := json.Unmarshal(raw, &payload); err != nil {
				t.Fatal(err)
			}
			stored, err := e.g.FindLiveMessage(ctx, m.ID)
			if err != nil || payload.Live == nil || !reflect.DeepEqual(*payload.Live, *stored) {
				t.Fatalf("job payload %+v\nstored %+v (%v)", payload.Live, stored, err)
			}

			reads := &countingGuide{Guide: e.g}
			pub := &publisher{}
			r := e.runner(nil, func(g *guidejobs.Jobs) { g.Store, g.Chat, g.PublicURL = reads, pub, "https://api.example.com" })
			if n, err := r.RunOnce(ctx); err != nil || n != 2 {
				t.Fatalf("RunOnce = %d, %v; want both jobs", n, err)
			}
			sent := pub.sent["conversation:"+c.id]
			if len(sent) != 2 || string(sent[0]) != string(sent[1]) {
				t.Fatalf("published %q; want the same event twice", sent)
			}
			var ev guidejobs.MessageEvent
			if err := json.Unmarshal(sent[0], &ev); err != nil {
				t.Fatal(err)
			}
			got := map[string]any{
				"id": ev.Message.ID, "imageURL": ev.Message.ImageURL, "senderName": ev.Message.Sender.Name,
				"realtimeMessageID": ev.RealtimeMessageID,
			}
			want := map[string]any{
				"id": m.ID, "imageURL": new("https://api.example.com/media/messages/x.jpg"), "senderName": new(name),
				"realtimeMessageID": new(draft),
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("published (-want +got):\n%s\n%s", diff, sent[0])
			}
			if got := len(pub.sent["user:"+c.expertUserID]); got != 2 {
				t.Fatalf("%d unread counts published to the recipient; want 2", got)
			}
			if reads.live.Load() != 1 {
				t.Fatalf("the message was read back %d times; want once, for the job that names it only", reads.live.Load())
			}
			if n := e.pending(); n != 0 {
				t.Fatalf("%d jobs pending", n)
			}
		})
	}
}

// countingGuide counts the runner's reads of live messages.
type countingGuide struct {
	*guidedb.Guide
	live atomic.Int32
}

func (g *countingGuide) FindLiveMessage(ctx context.Context, messageID string) (*guidedb.LiveMessage, error) {
	g.live.Add(1)
	return g.Guide.FindLiveMessage(ctx, messageID)
}
