package guidedb_test

import (
	"errors"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestFanOutPushMessageOnce: a job finished by another worker is not fanned
// out again.
func TestFanOutPushMessageOnce(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := t.Context()
			db := storetest.MustOpenDB(t, engine, guidedb.Schema)
			clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
			g := guidedb.New(db, clk)
			queue := store.NewJobs(db, clk)
			if err := queue.Enqueue(ctx, db, guide.JobPushMessage, map[string]string{"messageId": "missing"}, clk.Now()); err != nil {
				t.Fatal(err)
			}
			jobs, err := queue.Claim(ctx, nil, 1, time.Minute)
			if err != nil || len(jobs) != 1 {
				t.Fatal(jobs, err)
			}
			if n, err := g.FanOutPushMessage(ctx, jobs[0].ID, "missing"); err != nil || n != 0 {
				t.Fatalf("fan out of a missing message = %d, %v", n, err)
			}
			if _, err := g.FanOutPushMessage(ctx, jobs[0].ID, "missing"); !errors.Is(err, store.ErrJobDone) {
				t.Fatalf("second fan out: %v; want ErrJobDone", err)
			}
			if n, _ := queue.CountPending(ctx); n != 0 {
				t.Fatalf("pending = %d", n)
			}
		})
	}
}
