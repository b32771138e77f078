package guidedb_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestUnreadCountsFollowMessages checks the unread counts kept on each
// conversation (migration 00014) against counting the unread messages,
// after the sample's load, messages from both sides, an AI reply, marking
// read, and sends racing marks on one conversation (on PostgreSQL a mark
// that zeroes the reader's side, instead of taking off what it marked,
// can lose a racing send's count).
func TestUnreadCountsFollowMessages(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			db := storetest.MustOpenSample(t, engine, guidedb.Schema, loadSample)
			g := guidedb.New(db, clock.System{})
			check := func(when string) {
				t.Helper()
				var drift int
				err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (
					SELECT c.tourist_unread, c.expert_unread,
						(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id AND m.is_read = FALSE AND m.sender_id <> c.tourist_id) AS t,
						(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id AND m.is_read = FALSE AND m.sender_id <> e.user_id) AS x
					FROM conversations c JOIN experts e ON e.id = c.expert_id) counts
					WHERE tourist_unread <> t OR expert_unread <> x`).Scan(&drift)
				if err != nil {
					t.Fatal(err)
				}
				if drift != 0 {
					t.Fatalf("after %s: %d conversations' unread counts drifted from their messages", when, drift)
				}
			}
			check("the sample's load")

			convID, tourist, expertUser := firstConversation(t, db)
			if _, err := db.ExecContext(ctx, `UPDATE experts SET ai_auto_reply = TRUE, messaging_enabled = TRUE WHERE user_id = $1`, expertUser); err != nil {
				t.Fatal(err)
			}
			tu, eu := &guide.User{ID: tourist}, &guide.User{ID: expertUser}
			send := func(u *guide.User, text string) *guide.Message {
				t.Helper()
				m, _, err := g.SendMessage(ctx, u, convID, guide.NewMessage{MessageType: guide.MessageText, Content: text}, false)
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			unreadOf := func(u *guide.User) int {
				t.Helper()
				n, err := g.UnreadCount(ctx, u)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			if _, err := g.MarkRead(ctx, tu, convID); err != nil {
				t.Fatal(err)
			}
			if _, err := g.MarkRead(ctx, eu, convID); err != nil {
				t.Fatal(err)
			}
			before := unreadOf(eu)
			for i := range 3 {
				send(tu, fmt.Sprint("question ", i))
			}
			last := send(tu, "one more")
			if got := unreadOf(eu); got != before+4 {
				t.Errorf("expert's unread after 4 messages: %d, want %d", got, before+4)
			}
			if got := unreadOf(tu); got != 0 {
				t.Errorf("traveller's unread after sending: %d, want 0", got)
			}
			if _, err := g.PostAIReply(ctx, convID, last.ID, "An answer"); err != nil {
				t.Fatal(err)
			}
			send(eu, "and mine")
			if got := unreadOf(tu); got != 2 {
				t.Errorf("traveller's unread after the AI's and the expert's reply: %d, want 2", got)
			}
			check("messages from both sides and the AI")
			if n, err := g.MarkRead(ctx, eu, convID); err != nil || n != 4 {
				t.Fatalf("expert marked %d read (%v), want 4", n, err)
			}
			if got := unreadOf(eu); got != before {
				t.Errorf("expert's unread after marking read: %d, want %d", got, before)
			}
			check("marking read")

			var wg sync.WaitGroup
			for w := range 6 {
				wg.Go(func() {
					u := []*guide.User{tu, eu}[w%2]
					for i := range 15 {
						var err error
						if w < 4 {
							_, _, err = g.SendMessage(ctx, u, convID, guide.NewMessage{MessageType: guide.MessageText, Content: fmt.Sprint(w, i)}, false)
						} else {
							_, err = g.MarkRead(ctx, u, convID)
						}
						if err != nil {
							t.Error(err)
						}
					}
				})
			}
			wg.Wait()
			check("sends racing marks")
		})
	}
}

// firstConversation returns a sample conversation with its traveller and
// its expert's user.
func firstConversation(tb testing.TB, db *store.DB) (id, tourist, expertUser string) {
	tb.Helper()
	err := db.QueryRowContext(tb.Context(), `SELECT c.id, c.tourist_id, e.user_id FROM conversations c JOIN experts e ON e.id = c.expert_id
		ORDER BY c.id LIMIT 1`).Scan(&id, &tourist, &expertUser)
	if err != nil {
		tb.Fatal(err)
	}
	return id, tourist, expertUser
}
