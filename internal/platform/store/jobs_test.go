package store_test

import (
	"net/url"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
)

var jobsEpoch = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// Two job kinds; the queue does not know what they mean.
const (
	jobPush = "push.message"
	jobAI   = "ai.reply"
)

// secondHandle opens another connection pool on the same database as db,
// as a second worker process would.
func secondHandle(t *testing.T, db *store.DB) *store.DB {
	t.Helper()
	ctx := t.Context()
	var dsn string
	switch db.Engine {
	case store.SQLite:
		var seq int
		var name, file string
		if err := db.QueryRowContext(ctx, `PRAGMA database_list`).Scan(&seq, &name, &file); err != nil {
			t.Fatal(err)
		}
		dsn = file
	case store.Postgres:
		var schema string
		if err := db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(os.Getenv("TEST_POSTGRES_URL"))
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		dsn = u.String()
	}
	other, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return other
}

func enqueue(t *testing.T, db *store.DB, kind string, payload any, runAt, now time.Time) {
	t.Helper()
	if err := store.NewJobs(db, clock.NewFake(now)).Enqueue(t.Context(), db, kind, payload, runAt); err != nil {
		t.Fatal(err)
	}
}

type jobRow struct {
	attempts    int
	locked      bool
	done        bool
	lastError   *string
	runAt       time.Time
	payloadText string
}

func readJob(t *testing.T, db *store.DB, id string) jobRow {
	t.Helper()
	var r jobRow
	var locked, done *time.Time
	if err := db.QueryRowContext(t.Context(), `SELECT attempts, locked_until, done_at, last_error, run_at, payload FROM jobs WHERE id = $1`, id).Scan(
		&r.attempts, &locked, &done, &r.lastError, &r.runAt, &r.payloadText); err != nil {
		t.Fatal(err)
	}
	r.locked, r.done, r.runAt = locked != nil, done != nil, r.runAt.UTC()
	return r
}

// TestClaimJobsLifecycle runs on both products' databases: each has its
// jobs table.
func TestClaimJobsLifecycle(t *testing.T) {
	for _, engine := range storetest.Engines() {
		for _, schema := range []store.Schema{guidedb.Schema, propertydb.Schema} {
			t.Run(string(engine)+"/"+schema.Name, func(t *testing.T) {
				ctx := t.Context()
				db := storetest.MustOpenDB(t, engine, schema)
				clk := clock.NewFake(jobsEpoch)
				g := store.NewJobs(db, clk)
				now := clk.Now()
				enqueue(t, db, jobPush, map[string]string{"messageId": "m1"}, now, now)
				enqueue(t, db, jobAI, map[string]string{"conversationId": "c1", "messageId": "m1"}, now.Add(-time.Minute), now)
				enqueue(t, db, jobPush, map[string]string{"messageId": "later"}, now.Add(time.Hour), now)

				if n, err := g.CountPending(ctx); err != nil || n != 3 {
					t.Fatalf("pending = %d, %v; want 3", n, err)
				}
				// Only the push job of the due ones is of the asked kind.
				jobs, err := g.Claim(ctx, []string{jobPush}, 10, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				if len(jobs) != 1 || jobs[0].Kind != jobPush || jobs[0].Attempts != 1 {
					t.Fatalf("claimed %+v; want the due push job on its first attempt", jobs)
				}
				if string(jobs[0].Payload) != `{"messageId":"m1"}` && string(jobs[0].Payload) != `{"messageId": "m1"}` {
					t.Errorf("payload = %s", jobs[0].Payload)
				}
				if !jobs[0].RunAt.Equal(now) || jobs[0].RunAt.Location() != time.UTC {
					t.Errorf("run_at = %v; want %v UTC", jobs[0].RunAt, now)
				}
				push := jobs[0].ID
				// Leased: no second claim, whatever the kinds.
				jobs, err = g.Claim(ctx, nil, 10, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				if len(jobs) != 1 || jobs[0].Kind != jobAI {
					t.Fatalf("claimed %+v; want only the AI job", jobs)
				}
				ai := jobs[0].ID
				if jobs, _ := g.Claim(ctx, nil, 10, time.Minute); len(jobs) != 0 {
					t.Fatalf("claimed leased jobs %+v", jobs)
				}

				// A worker that dies loses its lease when it expires.
				clk.Advance(time.Minute + time.Second)
				jobs, err = g.Claim(ctx, []string{jobPush}, 10, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				if len(jobs) != 1 || jobs[0].ID != push || jobs[0].Attempts != 2 {
					t.Fatalf("reclaimed %+v; want the push job on attempt 2", jobs)
				}

				// Retry: released, run later, error kept.
				retryAt := clk.Now().Add(30 * time.Second)
				if err := g.Retry(ctx, push, retryAt, "gateway: 503"); err != nil {
					t.Fatal(err)
				}
				r := readJob(t, db, push)
				gotRetry := map[string]any{"locked": r.locked, "done": r.done, "attempts": r.attempts, "lastError": r.lastError, "runAt": r.runAt}
				wantRetry := map[string]any{"locked": false, "done": false, "attempts": 2, "lastError": new("gateway: 503"), "runAt": retryAt}
				if diff := cmp.Diff(wantRetry, gotRetry); diff != "" {
					t.Fatalf("after retry (-want +got):\n%s", diff)
				}
				if jobs, _ := g.Claim(ctx, []string{jobPush}, 10, time.Minute); len(jobs) != 0 {
					t.Fatalf("claimed before run_at: %+v", jobs)
				}
				clk.Advance(30 * time.Second)
				jobs, _ = g.Claim(ctx, []string{jobPush}, 10, time.Minute)
				if len(jobs) != 1 || jobs[0].Attempts != 3 || jobs[0].LastError == nil {
					t.Fatalf("claimed %+v; want attempt 3 with the last error", jobs)
				}

				// Defer: does not count the attempt.
				deferTo := clk.Now().Add(8 * time.Hour)
				if err := g.Defer(ctx, push, deferTo); err != nil {
					t.Fatal(err)
				}
				if r := readJob(t, db, push); r.locked || r.attempts != 2 || !r.runAt.Equal(deferTo) {
					t.Fatalf("after defer: %+v", r)
				}

				// Complete and fail are final.
				if err := g.Complete(ctx, ai); err != nil {
					t.Fatal(err)
				}
				if err := g.Fail(ctx, push, "gave up"); err != nil {
					t.Fatal(err)
				}
				r = readJob(t, db, push)
				gotFail := map[string]any{"done": r.done, "locked": r.locked, "lastError": r.lastError}
				wantFail := map[string]any{"done": true, "locked": false, "lastError": new("gave up")}
				if diff := cmp.Diff(wantFail, gotFail); diff != "" {
					t.Fatalf("after fail (-want +got):\n%s", diff)
				}
				if err := g.Retry(ctx, ai, clk.Now(), "late"); err != nil {
					t.Fatal(err)
				}
				if r := readJob(t, db, ai); !r.done || r.lastError != nil {
					t.Fatalf("a finished job changed: %+v", r)
				}
				clk.Advance(24 * time.Hour)
				jobs, _ = g.Claim(ctx, nil, 10, time.Minute)
				if len(jobs) != 1 || jobs[0].Kind != jobPush || string(jobs[0].Payload) == "" {
					t.Fatalf("claimed %+v; want only the later job", jobs)
				}
				if n, err := g.CountPending(ctx); err != nil || n != 1 {
					t.Fatalf("pending = %d, %v; want 1", n, err)
				}
				if jobs, err := g.Claim(ctx, nil, 0, time.Minute); err != nil || len(jobs) != 0 {
					t.Fatalf("limit 0: %v, %v", jobs, err)
				}
			})
		}
	}
}

// TestClaimJobsRace claims 200 jobs from several goroutines on two handles
// of one database, each completing its batches in one statement while the
// others claim: every job is claimed exactly once and ends done.
func TestClaimJobsRace(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := t.Context()
			db := storetest.MustOpenDB(t, engine, guidedb.Schema)
			clk := clock.NewFake(jobsEpoch)
			now := clk.Now()
			const total = 200
			want := make([]string, 0, total)
			for i := range total {
				enqueue(t, db, jobPush, map[string]int{"n": i}, now.Add(-time.Duration(i%7)*time.Second), now)
			}
			rows, err := db.QueryContext(ctx, `SELECT id FROM jobs`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				want = append(want, id)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			rows.Close()

			guides := []*store.Jobs{store.NewJobs(db, clk), store.NewJobs(secondHandle(t, db), clk)}
			const workers = 6
			claimed := make([][]string, workers)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					g := guides[w%len(guides)]
					<-start
					for {
						jobs, err := g.Claim(ctx, []string{jobPush}, 1+w%5, time.Hour)
						if err != nil {
							t.Errorf("worker %d: %v", w, err)
							return
						}
						if len(jobs) == 0 {
							return
						}
						ids := make([]string, len(jobs))
						for i, j := range jobs {
							if j.Attempts != 1 {
								t.Errorf("worker %d: job %s on attempt %d", w, j.ID, j.Attempts)
								return
							}
							claimed[w] = append(claimed[w], j.ID)
							ids[i] = j.ID
						}
						if err := g.Complete(ctx, ids...); err != nil {
							t.Errorf("worker %d: %v", w, err)
							return
						}
					}
				})
			}
			close(start)
			wg.Wait()
			var all []string
			busy := 0
			for _, c := range claimed {
				all = append(all, c...)
				if len(c) > 0 {
					busy++
				}
			}
			slices.Sort(all)
			slices.Sort(want)
			if len(all) != total || !slices.Equal(slices.Compact(slices.Clone(all)), all) || !slices.Equal(all, want) {
				t.Fatalf("claimed %d jobs (%d distinct); want each of the %d exactly once", len(all), len(slices.Compact(slices.Clone(all))), total)
			}
			t.Logf("%d of %d workers claimed jobs", busy, workers)
			var attempts int
			if err := db.QueryRowContext(ctx, `SELECT SUM(attempts) FROM jobs`).Scan(&attempts); err != nil || attempts != total {
				t.Fatalf("attempts = %d, %v; want %d", attempts, err, total)
			}
			if n, err := guides[0].CountPending(ctx); err != nil || n != 0 {
				t.Fatalf("pending = %d, %v; want every job done", n, err)
			}
		})
	}
}

// TestCompleteJobsBatch: one statement completes the jobs it names that
// are not done yet, leaves a job another worker finished as it was, and
// completes nothing when it names none.
func TestCompleteJobsBatch(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := t.Context()
			db := storetest.MustOpenDB(t, engine, guidedb.Schema)
			clk := clock.NewFake(jobsEpoch)
			for i := range 4 {
				enqueue(t, db, jobPush, map[string]int{"n": i}, clk.Now(), clk.Now())
			}
			q := store.NewJobs(db, clk)
			jobs, err := q.Claim(ctx, nil, 4, time.Minute)
			if err != nil || len(jobs) != 4 {
				t.Fatal(jobs, err)
			}
			if err := q.Complete(ctx); err != nil {
				t.Fatal(err)
			}
			if n, _ := q.CountPending(ctx); n != 4 {
				t.Fatalf("pending = %d after completing none", n)
			}
			// The first job's lease ran out; another worker failed it.
			if err := q.Fail(ctx, jobs[0].ID, "gave up"); err != nil {
				t.Fatal(err)
			}
			clk.Advance(time.Second)
			if err := q.Complete(ctx, jobs[0].ID, jobs[1].ID, jobs[2].ID); err != nil {
				t.Fatal(err)
			}
			if r := readJob(t, db, jobs[0].ID); !r.done || r.lastError == nil || *r.lastError != "gave up" {
				t.Fatalf("a job finished elsewhere changed: %+v", r)
			}
			for _, j := range jobs[1:3] {
				if r := readJob(t, db, j.ID); !r.done || r.locked || r.lastError != nil {
					t.Fatalf("job %s after completion: %+v", j.ID, r)
				}
			}
			if r := readJob(t, db, jobs[3].ID); r.done || !r.locked {
				t.Fatalf("a job not named changed: %+v", r)
			}
		})
	}
}

// TestCompleteJobsAsyncCommitIsLocal: the completion's asynchronous commit
// on PostgreSQL is its own; the connection's next transactions wait for
// their flush again.
func TestCompleteJobsAsyncCommitIsLocal(t *testing.T) {
	if !slices.Contains(storetest.Engines(), store.Postgres) {
		t.Skip("PostgreSQL only; set TEST_POSTGRES_URL")
	}
	ctx := t.Context()
	db := storetest.MustOpenDB(t, store.Postgres, guidedb.Schema)
	db.SetMaxOpenConns(1) // the completion's connection is the one asked next
	clk := clock.NewFake(jobsEpoch)
	enqueue(t, db, jobPush, nil, clk.Now(), clk.Now())
	q := store.NewJobs(db, clk)
	jobs, err := q.Claim(ctx, nil, 1, time.Minute)
	if err != nil || len(jobs) != 1 {
		t.Fatal(jobs, err)
	}
	if err := q.Complete(ctx, jobs[0].ID); err != nil {
		t.Fatal(err)
	}
	var setting string
	if err := db.QueryRowContext(ctx, `SHOW synchronous_commit`).Scan(&setting); err != nil || setting != "on" {
		t.Fatalf("synchronous_commit = %q, %v after a completion; want on", setting, err)
	}
	if n, _ := q.CountPending(ctx); n != 0 {
		t.Fatalf("pending = %d", n)
	}
}

// TestClaimOnePerKey: of the jobs that share a concurrency key one at a
// time is leased: a claim keeps the first of each key (the others are
// released, their attempts not counted) and passes over a key whose job
// is leased, until that job ends; jobs without a key are not held back.
func TestClaimOnePerKey(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := t.Context()
			db := storetest.MustOpenDB(t, engine, propertydb.Schema)
			clk := clock.NewFake(jobsEpoch)
			q := store.NewJobs(db, clk)
			for i, key := range []string{"webhook:a", "webhook:a", "webhook:a", "webhook:b", "", ""} {
				if err := q.EnqueueKeyed(ctx, db, "webhook.deliver", key, map[string]int{"n": i}, clk.Now()); err != nil {
					t.Fatal(err)
				}
				clk.Advance(time.Millisecond) // claimed in this order
			}
			claimKeys := func() []string {
				t.Helper()
				jobs, err := q.Claim(ctx, nil, 10, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				keys := []string{}
				for _, j := range jobs {
					keys = append(keys, j.Key)
				}
				return keys
			}
			first, err := q.Claim(ctx, nil, 10, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, j := range first {
				keys = append(keys, j.Key)
			}
			if !slices.Equal(keys, []string{"webhook:a", "webhook:b", "", ""}) {
				t.Fatalf("first claim: keys %q", keys)
			}
			var leased, attempts int
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(attempts), 0) FROM jobs WHERE concurrency_key = 'webhook:a' AND locked_until IS NOT NULL`).Scan(&leased, &attempts); err != nil {
				t.Fatal(err)
			}
			if leased != 1 || attempts != 1 {
				t.Fatalf("key a: %d leased, %d attempts; want 1 and 1", leased, attempts)
			}
			if got := claimKeys(); len(got) != 0 {
				t.Fatalf("claimed %q while key a's job is leased", got)
			}
			if err := q.Complete(ctx, first[0].ID); err != nil {
				t.Fatal(err)
			}
			if got := claimKeys(); !slices.Equal(got, []string{"webhook:a"}) {
				t.Fatalf("after key a's job ended: %q", got)
			}
			// A lease that ran out frees the key, as when its worker died.
			clk.Advance(time.Minute + time.Second)
			if got := claimKeys(); !slices.Equal(got, []string{"webhook:a", "webhook:b", "", ""}) {
				t.Fatalf("after the leases ran out: %q", got)
			}
		})
	}
}
