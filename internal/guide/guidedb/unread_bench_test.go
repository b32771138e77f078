package guidedb_test

import (
	"fmt"
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// BenchmarkUnreadCount counts an expert's unread messages with a backlog
// of 10, 100 and 1,000 messages not yet read in one conversation: the
// realtime job counts the recipient's unread for every message sent, so
// its cost should not follow the backlog.
func BenchmarkUnreadCount(b *testing.B) {
	for _, engine := range storetest.Engines() {
		for _, backlog := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("%s/backlog=%d", engine, backlog), func(b *testing.B) {
				db := storetest.MustOpenDB(b, engine, guidedb.Schema)
				if err := guidedb.LoadSample(b.Context(), db, sample.Generate()); err != nil {
					b.Fatal(err)
				}
				g := guidedb.New(db, clock.System{})
				convID, tourist, expertUser := firstConversation(b, db)
				expert := &guide.User{ID: expertUser}
				before, err := g.UnreadCount(b.Context(), expert)
				if err != nil {
					b.Fatal(err)
				}
				for i := range backlog {
					_, _, err := g.SendMessage(b.Context(), &guide.User{ID: tourist}, convID, guide.NewMessage{MessageType: guide.MessageText, Content: fmt.Sprint("message ", i)}, false)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				for b.Loop() {
					if n, err := g.UnreadCount(b.Context(), expert); err != nil || n != before+backlog {
						b.Fatalf("UnreadCount: %d, %v; want %d", n, err, before+backlog)
					}
				}
			})
		}
	}
}
