package worker_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/store"
	"github.com/wayfarer-asia/platform/internal/store/guidedb"
	"github.com/wayfarer-asia/platform/internal/worker"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	for attempt, want := range map[int]time.Duration{
		0: 30 * time.Second, 1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 4: 4 * time.Minute,
		7: 32 * time.Minute, 8: time.Hour, 9: time.Hour, 64: time.Hour,
	} {
		if got := worker.Backoff(attempt); got != want {
			t.Errorf("Backoff(%d) = %v; want %v", attempt, got, want)
		}
	}
}

// TestRunWakesAndStops runs the loop for real: a woken runner delivers at
// once although its poll interval is an hour, and it returns when its
// context ends.
func TestRunWakesAndStops(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite, noonTokyo)
	c := e.fixture()
	e.device(c.touristID, "tok-run", "en", "")
	e.gw.arrived = make(chan string, 10)
	r := e.runner(nil)
	r.PollInterval = time.Hour
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()

	e.post(c, c.expertUserID, "TEXT", "hello", false)
	r.Wake()
	select {
	case tok := <-e.gw.arrived:
		if tok != "tok-run" {
			t.Fatalf("delivered to %q", tok)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a woken runner did not deliver")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if len(e.gw.delivered()["tok-run"]) != 1 {
		t.Errorf("delivered %v", e.gw.delivered())
	}
}

// TestRunShutdownInterruptsWithoutCountingTheAttempt: a job still running
// when the grace period after stopping ends is released to run again, the
// attempt not counted, and later answered once.
func TestRunShutdownInterruptsWithoutCountingTheAttempt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite, noonTokyo)
	c := e.fixture()
	m := newModel(t)
	thinking := make(chan struct{}, 1)
	m.respond = func(n int, w http.ResponseWriter, r *http.Request) bool {
		if n > 1 {
			return false
		}
		thinking <- struct{}{}
		<-r.Context().Done() // a slow model, cut off by the shutdown
		return true
	}
	r := e.runner(m.client())
	r.ShutdownGrace = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	e.post(c, c.touristID, "TEXT", "Still there?", true)
	r.Wake()
	select {
	case <-thinking:
	case <-time.After(10 * time.Second):
		t.Fatal("the model was not asked")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within the grace period")
	}
	var attempts int
	var doneAt *time.Time
	if err := e.db.QueryRowContext(t.Context(), `SELECT attempts, done_at FROM jobs WHERE kind = $1`, guidedb.JobAIReply).Scan(&attempts, &doneAt); err != nil {
		t.Fatal(err)
	}
	if attempts != 0 || doneAt != nil || len(e.aiReplies(c.id)) != 0 {
		t.Fatalf("after the interruption: attempts %d, done %v, %d replies; want 0, nil, 0", attempts, doneAt, len(e.aiReplies(c.id)))
	}
	drain(t, e.runner(m.client()))
	if n := len(e.aiReplies(c.id)); n != 1 {
		t.Fatalf("%d replies after the restart; want 1", n)
	}
}
