package guidejobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidejobs"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// jobRow is a job as the queue stores it.
type jobRow struct {
	attempts int
	done     bool
	leased   bool
	err      *string
}

func (e *env) job(kind string) jobRow {
	e.t.Helper()
	var r jobRow
	var lastErr *string
	if err := e.db.QueryRowContext(e.t.Context(), `SELECT attempts, done_at IS NOT NULL, locked_until IS NOT NULL, last_error
		FROM jobs WHERE kind = $1 ORDER BY created_at DESC, id DESC LIMIT 1`, kind).Scan(&r.attempts, &r.done, &r.leased, &lastErr); err != nil {
		e.t.Fatal(err)
	}
	r.err = lastErr
	return r
}

// eventually waits (in real time) for cond, which the runner under test
// makes true from its own goroutines.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *publisher) count(channel string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.sent[channel])
}

// claimCounter counts the jobs a runner claims, by kind.
type claimCounter struct {
	*store.Jobs
	mu      sync.Mutex
	claimed map[string]int
}

func (q *claimCounter) Claim(ctx context.Context, kinds []string, limit int, lease time.Duration) ([]store.Job, error) {
	jobs, err := q.Jobs.Claim(ctx, kinds, limit, lease)
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, j := range jobs {
		q.claimed[j.Kind]++
	}
	return jobs, err
}

func (q *claimCounter) count(kind string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.claimed[kind]
}

// TestLaneTakesRealtimeJobs: with the runner as the process's lane, a sent
// message is published once its transaction commits, without a claim (one
// attempt) and without waiting for a poll; its push job, not the lane's,
// wakes the runner to claim it.
func TestLaneTakesRealtimeJobs(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
			c := e.fixture()
			e.device(c.expertUserID, "tok-expert", "en", "UTC")
			pub := &publisher{}
			r := e.runner(nil, withChat(pub))
			claims := &claimCounter{Jobs: e.q, claimed: map[string]int{}}
			r.Jobs, r.PollInterval = claims, time.Hour // no poll within the test
			e.q.SetHandoff(r.Handoff())
			t.Cleanup(func() { e.q.SetHandoff(store.Handoff{}) })
			ctx, stop := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			wg.Go(func() { r.Run(ctx) })
			t.Cleanup(func() { stop(); wg.Wait() })

			name := fixtureTouristName
			m, created, err := e.g.SendMessage(t.Context(), &guide.User{ID: c.touristID, Name: &name}, c.id,
				guide.NewMessage{Content: "Is the temple walk on tomorrow?", MessageType: guide.MessageText}, false)
			if err != nil || !created {
				t.Fatal(m, created, err)
			}
			eventually(t, "the message's publication", func() bool { return pub.count("conversation:"+c.id) == 1 })
			var ev guidejobs.MessageEvent
			pub.mu.Lock()
			err = json.Unmarshal(pub.sent["conversation:"+c.id][0], &ev)
			pub.mu.Unlock()
			if err != nil || ev.Message.ID != m.ID || *ev.Message.Content != "Is the temple walk on tomorrow?" {
				t.Fatalf("published %+v (%v)", ev, err)
			}
			eventually(t, "the recipient's unread count", func() bool { return pub.count("user:"+c.expertUserID) == 1 })
			eventually(t, "the lane's completion", func() bool { return e.job(guide.JobRealtimeMessage).done })
			if j := e.job(guide.JobRealtimeMessage); j.attempts != 1 || j.leased || j.err != nil {
				t.Fatalf("realtime job %+v; want done at its first attempt, its lease released", j)
			}
			if n := claims.count(guide.JobRealtimeMessage); n != 0 {
				t.Fatalf("the realtime job was claimed %d times; want none (the lane has it)", n)
			}
			// The push job is claimed by the woken runner, and its
			// delivery job after it.
			eventually(t, "the push notification", func() bool { return len(e.gw.delivered()["tok-expert"]) == 1 })
			if j := e.job(guide.JobPushMessage); !j.done || j.attempts != 1 || claims.count(guide.JobPushMessage) != 1 {
				t.Fatalf("push job %+v; want done, claimed once", j)
			}
			if pub.count("conversation:"+c.id) != 1 {
				t.Fatal("the message was published again")
			}
		})
	}
}

// TestLaneLeaseRunsOut: a lane job whose process died before its
// publication (here: a lane that is never run) is withheld from the other
// runners for store.DirectLease, then claimed and published as any job.
func TestLaneLeaseRunsOut(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
			c := e.fixture()
			dead := e.runner(nil) // takes the job and never runs
			e.q.SetHandoff(dead.Handoff())
			name := fixtureTouristName
			if _, _, err := e.g.SendMessage(t.Context(), &guide.User{ID: c.touristID, Name: &name}, c.id,
				guide.NewMessage{Content: "Hello?", MessageType: guide.MessageText}, false); err != nil {
				t.Fatal(err)
			}
			e.q.SetHandoff(store.Handoff{})
			pub := &publisher{}
			other := e.runner(nil, withChat(pub))
			if n := drain(t, other); n != 0 {
				t.Fatalf("another runner claimed %d jobs within the lane's lease", n)
			}
			e.clk.Advance(store.DirectLease + time.Second)
			if n := drain(t, other); n != 1 {
				t.Fatalf("after the lease, %d jobs claimed; want the realtime job", n)
			}
			if pub.count("conversation:"+c.id) != 1 {
				t.Fatalf("published %v", pub.sent)
			}
			if j := e.job(guide.JobRealtimeMessage); !j.done || j.attempts != 2 {
				t.Fatalf("realtime job %+v; want done at its second attempt", j)
			}
		})
	}
}

// failingPublisher refuses every publication.
type failingPublisher struct{ publisher }

func (*failingPublisher) Publish(context.Context, string, []byte, string) error {
	return errors.New("broker unreachable")
}

// TestLaneFailureRetries: a lane attempt that fails is recorded as any
// failed attempt: released, with its error, to be claimed after the
// backoff.
func TestLaneFailureRetries(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
			c := e.fixture()
			r := e.runner(nil, withChat(&failingPublisher{}))
			r.PollInterval = time.Hour
			e.q.SetHandoff(r.Handoff())
			t.Cleanup(func() { e.q.SetHandoff(store.Handoff{}) })
			ctx, stop := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			wg.Go(func() { r.Run(ctx) })
			name := fixtureTouristName
			if _, _, err := e.g.SendMessage(t.Context(), &guide.User{ID: c.touristID, Name: &name}, c.id,
				guide.NewMessage{Content: "Hello?", MessageType: guide.MessageText}, false); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the failed attempt", func() bool { return e.job(guide.JobRealtimeMessage).err != nil })
			stop()
			wg.Wait()
			j := e.job(guide.JobRealtimeMessage)
			got := map[string]any{"done": j.done, "leased": j.leased, "attempts": j.attempts, "err": j.err}
			want := map[string]any{"done": false, "leased": false, "attempts": 1, "err": new("broker unreachable")}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("realtime job, want released after one failed attempt (-want +got):\n%s", diff)
			}
			e.q.SetHandoff(store.Handoff{})
			pub := &publisher{}
			other := e.runner(nil, withChat(pub))
			e.clk.Advance(jobs.Backoff(1))
			if n := drain(t, other); n != 1 || pub.count("conversation:"+c.id) != 1 {
				t.Fatalf("after the backoff: %d jobs, published %v", n, pub.sent)
			}
		})
	}
}
