package guidejobs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

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
	if err := e.db.QueryRowContext(t.Context(), `SELECT attempts, done_at FROM jobs WHERE kind = $1`, guide.JobAIReply).Scan(&attempts, &doneAt); err != nil {
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

// TestPushNotHeldByWebhooks: push notifications have slots of their own:
// with webhook endpoints hanging (until the test ends), a message's
// notification is sent while every one of them still hangs.
func TestPushNotHeldByWebhooks(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, engine, noonTokyo)
			c := e.fixture()
			e.device(c.touristID, "tok-busy", "en", "")
			e.gw.arrived = make(chan string, 10)
			var hanging atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hanging.Add(1)
				defer hanging.Add(-1)
				select {
				case <-r.Context().Done():
				case <-t.Context().Done():
				}
			}))
			t.Cleanup(srv.Close)
			hooks := changes.NewEndpoints(e.db, e.clk)
			const slow = 2 * jobs.DefaultConcurrency // more than a round of the old runner took
			for i := range slow {
				secret, _ := changes.NewSecret()
				ep := &changes.Endpoint{Owner: fmt.Sprintf("user:%d", i), Audience: fmt.Sprintf("user:%d", i), URL: srv.URL}
				if err := hooks.Create(t.Context(), ep, secret); err != nil {
					t.Fatal(err)
				}
				if _, err := hooks.Ping(t.Context(), ep.Owner, ep.ID); err != nil {
					t.Fatal(err)
				}
			}
			r := e.runner(nil)
			r.PollInterval = time.Hour
			(&changes.Sender{Store: hooks, Client: changes.NewClientTimeout(changes.Policy{AllowHosts: []string{"127.0.0.1"}}, 10*time.Second)}).Register(r)
			ctx, stop := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { r.Run(ctx) })
			t.Cleanup(func() { stop(); wg.Wait() })
			r.Wake()
			eventually(t, "every endpoint's attempt", func() bool { return hanging.Load() == slow })

			e.post(c, c.expertUserID, "TEXT", "See you at nine", false)
			r.Wake()
			select {
			case tok := <-e.gw.arrived:
				if n := hanging.Load(); tok != "tok-busy" || n != slow {
					t.Errorf("notification to %q with %d webhook attempts hanging, want tok-busy with %d", tok, n, slow)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the notification never arrived")
			}
		})
	}
}
