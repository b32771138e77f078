package propertydb_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestIdempotentEffectRollsBackWhenTakenOver: a request whose claim a retry
// took over cannot commit its effect, so the operation happens once.
func TestIdempotentEffectRollsBackWhenTakenOver(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			f := newPropertyFixture(t, engine)
			keys := idempotency.NewKeys(f.db, f.clk, time.Minute)
			ctx := context.Background()
			token, _, err := keys.Begin(ctx, f.live.DeveloperID, "q1", "h")
			if err != nil {
				t.Fatal(err)
			}
			claim := func(token string) context.Context {
				return idempotency.NewContext(ctx, &idempotency.Claim{Account: f.live.DeveloperID, Key: "q1", Token: token, Status: 201, Render: json.Marshal})
			}
			f.clk.Advance(time.Minute)
			token2, _, err := keys.Begin(ctx, f.live.DeveloperID, "q1", "h")
			if err != nil {
				t.Fatal(err)
			}
			in := f.stay(f.lastNight.AddDays(-3), 2)
			if _, err := f.s.CreateQuote(claim(token), f.live, in, 15*time.Minute); apperr.Code(err) != apperr.IdempotencyInProgress {
				t.Fatalf("late first request: %v", err)
			}
			q, err := f.s.CreateQuote(claim(token2), f.live, in, 15*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := f.db.QueryRow(`SELECT COUNT(*) FROM quotes`).Scan(&n); err != nil || n != 1 {
				t.Errorf("%d quotes, want 1 (%v)", n, err)
			}
			_, r, err := keys.Begin(ctx, f.live.DeveloperID, "q1", "h")
			if err != nil || r == nil || r.Status != 201 {
				t.Fatalf("replay: %+v %v", r, err)
			}
			var recorded struct{ ID string }
			if err := json.Unmarshal(r.Body, &recorded); err != nil || recorded.ID != q.ID {
				t.Errorf("recorded %s, want quote %s", r.Body, q.ID)
			}
		})
	}
}
