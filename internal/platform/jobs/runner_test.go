package jobs_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	for attempt, want := range map[int]time.Duration{
		0: 30 * time.Second, 1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 4: 4 * time.Minute,
		7: 32 * time.Minute, 8: time.Hour, 9: time.Hour, 64: time.Hour,
	} {
		if got := jobs.Backoff(attempt); got != want {
			t.Errorf("Backoff(%d) = %v; want %v", attempt, got, want)
		}
	}
}

// TestRegisteredKinds: a runner handles the kinds registered on it, each
// in its pool; with its Handoff set, a job enqueued in a committed
// transaction reaches it at once (a direct kind without a claim, the
// others by waking their pool), although its poll interval is an hour.
func TestRegisteredKinds(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenDB(t, engine, propertydb.Schema)
			clk := clock.System{}
			q := store.NewJobs(db, clk)
			r := jobs.NewRunner(q, clk)
			r.PollInterval = time.Hour
			handled := make(chan store.Job, 2)
			handle := func(_ context.Context, j store.Job) error { handled <- j; return nil }
			r.Register(jobs.Kind{Name: "test.direct", Handle: handle, Direct: true},
				jobs.Kind{Name: "test.pooled", Handle: handle, Pool: &jobs.Pool{Name: "test", Slots: 1}})
			q.SetHandoff(r.Handoff())
			ctx, stop := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			wg.Go(func() { r.Run(ctx) })
			t.Cleanup(func() { stop(); wg.Wait() })

			if err := db.InTx(t.Context(), func(tx *sql.Tx) error {
				return errors.Join(q.Enqueue(t.Context(), tx, "test.direct", map[string]int{"n": 1}, clk.Now()),
					q.Enqueue(t.Context(), tx, "test.pooled", map[string]int{"n": 2}, clk.Now()))
			}); err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for range 2 {
				select {
				case j := <-handled:
					got[j.Kind] = true
					if j.Attempts != 1 {
						t.Errorf("%s handled at attempt %d; want 1", j.Kind, j.Attempts)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("handled %v; want both kinds without a poll", got)
				}
			}
			deadline := time.Now().Add(10 * time.Second)
			for n := pending(t, q); n != 0; n = pending(t, q) {
				if time.Now().After(deadline) {
					t.Fatalf("%d jobs pending; want both completed", n)
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}

func pending(t *testing.T, q *store.Jobs) int {
	t.Helper()
	n, err := q.CountPending(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}
