package guidedb

import (
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestUnreadCountPlan fails when the unread count stops reading the
// user's conversations by index: then it reads every conversation, once
// per message sent (the realtime job counts the recipient's unread).
func TestUnreadCountPlan(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenDB(t, engine, Schema)
			tx, err := db.BeginTx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			// The traveller's conversations by (tourist_id, expert_id), the
			// expert's by experts' user_id and conversations_expert.
			want := []string{"SEARCH conversations USING INDEX sqlite_autoindex_conversations_2 (tourist_id=?)",
				"SEARCH e USING INDEX sqlite_autoindex_experts_2 (user_id=?)", "SEARCH c USING INDEX conversations_expert (expert_id=?)"}
			if engine == store.Postgres {
				// Empty tables are cheapest to scan; with scans priced out
				// the plan shows whether the indexes serve.
				if _, err := tx.ExecContext(t.Context(), "SET LOCAL enable_seqscan = off"); err != nil {
					t.Fatal(err)
				}
				want = []string{"Index Cond: (tourist_id = 'user'::text)", "Index Cond: (user_id = 'user'::text)",
					"conversations_expert", "Index Cond: (expert_id = e.id)"}
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
