package guidedb

import (
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/store"
	"github.com/wayfarer-asia/platform/internal/store/storetest"
)

// TestUnreadCountPlan fails when the unread count stops starting from the
// user's conversations: then it reads every message stored, once per
// message sent (the realtime job counts the recipient's unread).
func TestUnreadCountPlan(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenDB(t, engine, "guide")
			tx, err := db.BeginTx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			// Empty tables are cheapest to scan; with scans priced out the
			// plan shows whether the messages can be reached by their
			// conversation.
			want := []string{"SEARCH m USING COVERING INDEX messages_unread (conversation_id=? AND is_read=?)"}
			if engine == store.Postgres {
				if _, err := tx.ExecContext(t.Context(), "SET LOCAL enable_seqscan = off"); err != nil {
					t.Fatal(err)
				}
				// The user's conversations by their indexes, and each
				// one's unread messages by messages_unread.
				want = []string{"Index Cond: (tourist_id = 'user'::text)", "conversations_expert", "Index Cond: (expert_id = e.id)",
					"using messages_unread on messages m", "Index Cond: ((conversation_id = conversations.id) AND (is_read = false))"}
			}
			plan := storetest.Plan(t, tx, engine, unreadCountSQL, "user")
			for _, w := range want {
				if !strings.Contains(plan, w) {
					t.Errorf("no %q in the plan:\n%s", w, plan)
				}
			}
		})
	}
}
