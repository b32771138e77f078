package guidehttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

type endpoint struct {
	ID                      string
	URL                     string
	Types                   []string
	Status                  string
	StatusReason            *string
	Secret                  string
	PreviousSecretExpiresAt *time.Time
}

type delivery struct {
	ID             string
	EventID        string
	EventType      string
	Status         string
	Attempts       int
	ResponseStatus *int
	LatencyMS      *int
	LastError      *string
	NextAttemptAt  *time.Time
}

// runner returns a runner of webhook deliveries on the env's database: a
// replica of the server, as many as a test likes.
func (e *env) runner() *jobs.Runner {
	return webhookRunner(store.NewJobs(e.db, e.clock), e.clock, &changes.Sender{Store: e.hooks, Client: changes.NewClient(changes.Policy{AllowHosts: []string{"127.0.0.1"}})})
}

// webhookRunner returns a runner of w's deliveries.
func webhookRunner(q *store.Jobs, clk clock.Clock, w *changes.Sender) *jobs.Runner {
	r := &jobs.Runner{Jobs: q, Clock: clk}
	w.Register(r)
	return r
}

// drain runs the runner until no delivery is due.
func drain(t *testing.T, r *jobs.Runner) {
	t.Helper()
	for range 50 {
		n, err := r.RunOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the runner never ran dry")
}

func (e *env) createEndpoint(t *testing.T, who user, url string, types ...string) endpoint {
	t.Helper()
	var res struct{ Data endpoint }
	body := map[string]any{"url": url}
	if types != nil {
		body["types"] = types
	}
	e.Do("POST", "/api/v1/webhooks", body, bearer(who.token)...).Expect(201).Decode(&res)
	if !strings.HasPrefix(res.Data.Secret, "whsec_") || res.Data.Status != "active" {
		t.Fatalf("created endpoint: %+v", res.Data)
	}
	return res.Data
}

func (e *env) deliveries(t *testing.T, who user, endpointID string) []delivery {
	t.Helper()
	var res struct{ Data []delivery }
	e.Get("/api/v1/webhooks/"+endpointID+"/deliveries", bearer(who.token)...).Expect(200).Decode(&res)
	return res.Data
}

func (e *env) endpoint(t *testing.T, who user, id string) endpoint {
	t.Helper()
	var res struct{ Data endpoint }
	e.Get("/api/v1/webhooks/"+id, bearer(who.token)...).Expect(200).Decode(&res)
	return res.Data
}

// TestWebhookDelivery: a booking's events reach the traveller's endpoint,
// signed as Standard Webhooks verifies, in order, once each; a
// redelivery repeats the webhook-id and the receiver drops it; the test
// ping and the deliveries list work; nobody else's endpoint is told.
func TestWebhookDelivery(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			rc, other := apitest.NewReceiver(t), apitest.NewReceiver(t)
			ep := b.createEndpoint(t, b.tourist, rc.URL)
			rc.SetSecrets(ep.Secret)
			// The stranger's endpoint hears nothing of the booking; the
			// expert's only what it subscribed to.
			other.SetSecrets(b.createEndpoint(t, b.stranger, other.URL).Secret)
			expertRC := apitest.NewReceiver(t)
			expertRC.SetSecrets(b.createEndpoint(t, b.expert, expertRC.URL, "booking.confirmed").Secret)

			var list struct{ Data []map[string]any }
			b.Get("/api/v1/webhooks", bearer(b.tourist.token)...).Expect(200).Decode(&list)
			if len(list.Data) != 1 || list.Data[0]["secret"] != nil {
				t.Fatalf("list = %v", list.Data)
			}

			id := b.book(t, b.tourist, nil)
			b.Do("POST", "/api/v1/bookings/"+id+"/accept", nil, bearer(b.expert.token)...).Expect(200)
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(b.tourist.token)...).Expect(200)
			drain(t, b.runner())

			// Deliveries go out in parallel and may arrive in any order;
			// sorted by webhook-id (UUIDv7) they are in the order of the
			// changes, as the feed.
			got := rc.Unique()
			slices.SortFunc(got, func(a, b apitest.Delivery) int { return strings.Compare(a.ID, b.ID) })
			if ts := typesOf(got); !slices.Equal(ts, []string{"booking.created", "booking.confirmed", "booking.cancelled"}) {
				t.Fatalf("received %v", ts)
			}
			feed := b.feed(t, b.tourist.token, "").Data
			for i, d := range got {
				// The webhook-id is the event's id, the body the event.
				got := map[string]any{"id": d.ID, "bodyId": d.Body["id"], "verified": len(d.Verified) > 0 && d.Verified[0], "timestamp": d.Timestamp}
				want := map[string]any{"id": feed[i].ID, "bodyId": feed[i].ID, "verified": true, "timestamp": "1795338000"}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("delivery %d (-want +got):\n%s", i, diff)
				}
			}
			if n := len(other.Deliveries()); n != 0 {
				t.Errorf("the stranger's endpoint got %d deliveries", n)
			}
			if ts := typesOf(expertRC.Unique()); !slices.Equal(ts, []string{"booking.confirmed"}) {
				t.Errorf("the expert's endpoint got %v", ts)
			}

			ds := b.deliveries(t, b.tourist, ep.ID)
			gotDs := map[string]any{"deliveries": len(ds)}
			if len(ds) > 0 {
				gotDs["eventType"], gotDs["status"], gotDs["attempts"] = ds[0].EventType, ds[0].Status, ds[0].Attempts
				gotDs["responseStatus"], gotDs["latencySet"], gotDs["nextAttemptSet"] = ds[0].ResponseStatus, ds[0].LatencyMS != nil, ds[0].NextAttemptAt != nil
			}
			wantDs := map[string]any{"deliveries": 3, "eventType": "booking.cancelled", "status": "succeeded", "attempts": 1,
				"responseStatus": new(200), "latencySet": true, "nextAttemptSet": false}
			if diff := cmp.Diff(wantDs, gotDs); diff != "" {
				t.Fatalf("deliveries (-want +got):\n%s", diff)
			}
			// Redelivery: the same webhook-id again, which the receiver
			// recognises as a duplicate.
			b.Do("POST", "/api/v1/webhooks/deliveries/"+ds[2].ID+"/redeliver", nil, bearer(b.tourist.token)...).Expect(202)
			drain(t, b.runner())
			all := rc.Deliveries()
			if last := all[len(all)-1]; last.ID != feed[0].ID || !last.Duplicate || len(rc.Unique()) != 3 {
				t.Errorf("redelivery: %+v", last)
			}
			// The ping.
			b.Do("POST", "/api/v1/webhooks/"+ep.ID+"/test", nil, bearer(b.tourist.token)...).Expect(202)
			drain(t, b.runner())
			all = rc.Deliveries()
			if last := all[len(all)-1]; last.Type != "webhook.test" || !last.Verified[0] {
				t.Errorf("ping: %+v", last)
			}
			// Another user's endpoint and deliveries are not found.
			b.Get("/api/v1/webhooks/"+ep.ID, bearer(b.stranger.token)...).Expect(404)
			b.Do("POST", "/api/v1/webhooks/deliveries/"+ds[0].ID+"/redeliver", nil, bearer(b.stranger.token)...).Expect(404)
			// Deleting the endpoint stops its deliveries.
			b.Do("DELETE", "/api/v1/webhooks/"+ep.ID, nil, bearer(b.tourist.token)...).Expect(200)
			b.book(t, b.tourist, nil)
			drain(t, b.runner())
			if n := len(rc.Deliveries()); n != len(all) {
				t.Errorf("a deleted endpoint got %d more deliveries", n-len(all))
			}
		})
	}
}

func typesOf(ds []apitest.Delivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Type
	}
	return out
}

// TestWebhookRetries: 500s are retried on the backoff schedule, a
// Retry-After is honoured, the retries span more than a day and then the
// endpoint is failing with the reason; a success makes it active again;
// a 410 disables it and nothing more is sent.
func TestWebhookRetries(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, store.SQLite)
	rc := apitest.NewReceiver(t)
	ep := b.createEndpoint(t, b.tourist, rc.URL)
	rc.SetSecrets(ep.Secret)
	r := b.runner()

	// Two 500s (the second asks for an hour), then success.
	rc.Script(apitest.Answer{Status: 500}, apitest.Answer{Status: 503, RetryAfter: "3600"})
	b.book(t, b.tourist, nil)
	drain(t, r)
	d := b.deliveries(t, b.tourist, ep.ID)[0]
	got := map[string]any{"status": d.Status, "attempts": d.Attempts, "responseStatus": d.ResponseStatus, "nextAttemptSet": d.NextAttemptAt != nil}
	want := map[string]any{"status": "pending", "attempts": 1, "responseStatus": new(500), "nextAttemptSet": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("after a 500 (-want +got):\n%s", diff)
	}
	if wait := d.NextAttemptAt.Sub(b.clock.Now()); wait < 5*time.Second || wait > 6*time.Second {
		t.Errorf("first retry in %s, want 5s plus jitter", wait)
	}
	b.clock.Advance(6 * time.Second)
	drain(t, r)
	d = b.deliveries(t, b.tourist, ep.ID)[0]
	if wait := d.NextAttemptAt.Sub(b.clock.Now()); d.Attempts != 2 || wait < time.Hour {
		t.Errorf("Retry-After: 3600 not honoured: retry in %s", wait)
	}
	drain(t, r) // not due yet
	if n := len(rc.Deliveries()); n != 2 {
		t.Errorf("%d attempts before the retry was due", n)
	}
	b.clock.Advance(time.Hour + time.Second)
	drain(t, r)
	if d = b.deliveries(t, b.tourist, ep.ID)[0]; d.Status != "succeeded" || d.Attempts != 3 || len(rc.Unique()) != 1 {
		t.Fatalf("after the retry: %+v", d)
	}

	// Failing every time: retried for more than 24 hours, then given up.
	for range len(changes.Schedule) + 1 {
		rc.Script(apitest.Answer{Status: 500})
	}
	b.book(t, b.tourist, nil)
	start := b.clock.Now()
	for i := 0; i <= len(changes.Schedule); i++ {
		drain(t, r)
		d = b.deliveries(t, b.tourist, ep.ID)[0]
		if d.NextAttemptAt == nil {
			break
		}
		b.clock.Advance(d.NextAttemptAt.Sub(b.clock.Now()))
	}
	if d.Status != "failed" || d.Attempts != len(changes.Schedule)+1 {
		t.Fatalf("given up: %+v", d)
	}
	if span := b.clock.Now().Sub(start); span < 24*time.Hour {
		t.Errorf("retries spanned %s, want at least 24h", span)
	}
	e := b.endpoint(t, b.tourist, ep.ID)
	if e.Status != "failing" || e.StatusReason == nil || !strings.Contains(*e.StatusReason, d.EventID) {
		t.Errorf("endpoint after giving up: %+v", e)
	}
	// Still sent new events; a success makes it active again.
	b.book(t, b.tourist, nil)
	drain(t, r)
	if e := b.endpoint(t, b.tourist, ep.ID); e.Status != "active" || e.StatusReason != nil {
		t.Errorf("after a success: %+v", e)
	}

	// 410 disables: no retry, and later events are not sent.
	rc.Script(apitest.Answer{Status: 410})
	b.book(t, b.tourist, nil)
	drain(t, r)
	if d = b.deliveries(t, b.tourist, ep.ID)[0]; d.Status != "failed" || d.NextAttemptAt != nil {
		t.Errorf("after 410: %+v", d)
	}
	e = b.endpoint(t, b.tourist, ep.ID)
	if e.Status != "disabled" || e.StatusReason == nil || !strings.Contains(*e.StatusReason, "410") {
		t.Errorf("endpoint after 410: %+v", e)
	}
	sent := len(rc.Deliveries())
	b.book(t, b.tourist, nil)
	b.clock.Advance(48 * time.Hour)
	drain(t, r)
	if n := len(rc.Deliveries()); n != sent {
		t.Errorf("a disabled endpoint got %d more deliveries", n-sent)
	}
	// Enabled again by its owner, it receives again.
	b.Do("PATCH", "/api/v1/webhooks/"+ep.ID, map[string]any{"enabled": true}, bearer(b.tourist.token)...).Expect(200)
	b.book(t, b.tourist, nil)
	drain(t, r)
	if n := len(rc.Deliveries()); n != sent+1 {
		t.Errorf("re-enabled endpoint: %d more deliveries, want 1", n-sent)
	}
}

// TestWebhookRotation: after a rotation deliveries carry a signature with
// each secret for 24 hours, then only the new one's.
func TestWebhookRotation(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, store.SQLite)
	rc := apitest.NewReceiver(t)
	ep := b.createEndpoint(t, b.tourist, rc.URL)
	var rotated struct{ Data endpoint }
	b.Do("POST", "/api/v1/webhooks/"+ep.ID+"/rotate-secret", nil, bearer(b.tourist.token)...).Expect(200).Decode(&rotated)
	gotRotated := map[string]any{"sameSecret": rotated.Data.Secret == ep.Secret, "prefixed": strings.HasPrefix(rotated.Data.Secret, "whsec_"),
		"previousExpiresAt": rotated.Data.PreviousSecretExpiresAt}
	wantRotated := map[string]any{"sameSecret": false, "prefixed": true, "previousExpiresAt": new(b.clock.Now().Add(24 * time.Hour))}
	if diff := cmp.Diff(wantRotated, gotRotated); diff != "" {
		t.Fatalf("rotated (-want +got):\n%s", diff)
	}
	rc.SetSecrets(ep.Secret, rotated.Data.Secret)
	b.book(t, b.tourist, nil)
	drain(t, b.runner())
	d := rc.Deliveries()[0]
	if len(d.Signatures) != 2 || !d.Verified[0] || !d.Verified[1] {
		t.Errorf("during the grace: %+v", d)
	}
	b.clock.Advance(24*time.Hour + time.Second)
	b.book(t, b.tourist, nil)
	drain(t, b.runner())
	d = rc.Deliveries()[1]
	if len(d.Signatures) != 1 || d.Verified[0] || !d.Verified[1] {
		t.Errorf("after the grace: %+v", d)
	}
	// Finished deliveries are kept as long as the events.
	if n, err := b.hooks.PurgeDeliveries(t.Context()); err != nil || n != 0 {
		t.Errorf("purge at once: %d, %v", n, err)
	}
	b.clock.Advance(31 * 24 * time.Hour)
	if n, err := b.hooks.PurgeDeliveries(t.Context()); err != nil || n != 2 {
		t.Errorf("purge after 31 days: %d, %v", n, err)
	}
}

// TestWebhookSurvivesCrash: a replica that crashes after the commit (before
// sending), or after claiming the delivery, loses nothing: another runner
// on the same database delivers the event, once.
func TestWebhookSurvivesCrash(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			rc := apitest.NewReceiver(t)
			rc.SetSecrets(b.createEndpoint(t, b.tourist, rc.URL).Secret)
			// Committed while no runner runs: the replica died at once.
			b.book(t, b.tourist, nil)
			// Another replica claims it and dies before sending.
			jobs, err := store.NewJobs(b.db, b.clock).Claim(t.Context(), []string{changes.JobDeliver}, 10, time.Minute)
			if err != nil || len(jobs) != 1 {
				t.Fatalf("claim: %v, %v", jobs, err)
			}
			drain(t, b.runner()) // the lease holds
			if n := len(rc.Deliveries()); n != 0 {
				t.Fatalf("delivered %d under another replica's lease", n)
			}
			b.clock.Advance(time.Minute + time.Second)
			drain(t, b.runner()) // a new instance after the lease
			drain(t, b.runner())
			if got := rc.Deliveries(); len(got) != 1 || got[0].Type != "booking.created" || !got[0].Verified[0] {
				t.Fatalf("after the restart: %+v", got)
			}
		})
	}
}

// TestWebhookEndpointValidation: https only (http and private addresses
// only for WEBHOOK_ALLOW_HOSTS), known types, user tokens only.
func TestWebhookEndpointValidation(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, store.SQLite)
	for url, ok := range map[string]bool{
		"https://hooks.example.com/in":  true,
		"http://127.0.0.1:9/in":         true,
		"http://hooks.example.com/in":   false,
		"https://10.0.0.5/in":           false,
		"https://169.254.169.254/meta":  false,
		"https://[::1]/in":              false,
		"https://[64:ff9b::a9fe:a9fe]/": false,
		"https://[::a9fe:a9fe]/meta":    false,
		"https://user:pw@example.com/":  false,
		"ftp://example.com/":            false,
		"/relative":                     false,
	} {
		res := b.Do("POST", "/api/v1/webhooks", map[string]any{"url": url}, bearer(b.tourist.token)...)
		if ok {
			res.Expect(201)
		} else if res.Expect(400).ErrorDetails()["url"] == nil {
			t.Errorf("%s: no message for url", url)
		}
	}
	b.Do("POST", "/api/v1/webhooks", map[string]any{"url": "https://a.example.com", "types": []string{"booking.exploded"}},
		bearer(b.tourist.token)...).Expect(400)
	key := b.apiKey(t, b.tourist, "events:read")
	b.Do("POST", "/api/v1/webhooks", map[string]any{"url": "https://a.example.com"}, bearer(key)...).Expect(403)
	var ep struct{ Data endpoint }
	b.Do("POST", "/api/v1/webhooks", map[string]any{"url": "https://a.example.com", "types": []string{"review.created", "booking.created", "review.created"}},
		bearer(b.tourist.token)...).Expect(201).Decode(&ep)
	if !slices.Equal(ep.Data.Types, []string{"booking.created", "review.created"}) {
		t.Errorf("types = %v", ep.Data.Types)
	}
	b.Do("PATCH", "/api/v1/webhooks/"+ep.Data.ID, map[string]any{"url": "http://example.com"}, bearer(b.tourist.token)...).Expect(400)
	var upd struct{ Data endpoint }
	b.Do("PATCH", "/api/v1/webhooks/"+ep.Data.ID, map[string]any{"types": []string{}, "enabled": false}, bearer(b.tourist.token)...).Expect(200).Decode(&upd)
	if len(upd.Data.Types) != 0 || upd.Data.Status != "disabled" {
		t.Errorf("updated: %+v", upd.Data)
	}
	// Closing the account removes its endpoints.
	b.createEndpoint(t, b.stranger, "https://hooks.example.com/in")
	b.Do("POST", "/api/v1/profile/delete", map[string]any{"confirmation": "DELETE"}, bearer(b.stranger.token)...).Expect(200)
	if n := b.count(t, `SELECT COUNT(*) FROM webhook_endpoints WHERE owner = $1`, "user:"+b.stranger.id); n != 0 {
		t.Errorf("%d endpoints survive the account", n)
	}
}

// TestWebhookEndpointCapUnderRace: 30 creations at once leave exactly the
// 20 endpoints an account may have; the others are refused with 422.
func TestWebhookEndpointCapUnderRace(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			statuses := make([]int, 30)
			var wg sync.WaitGroup
			for i := range statuses {
				wg.Go(func() {
					res := b.Do("POST", "/api/v1/webhooks", map[string]any{"url": fmt.Sprintf("https://hooks%d.example.com/in", i)}, bearer(b.tourist.token)...)
					statuses[i] = res.Status
				})
			}
			wg.Wait()
			count := map[int]int{}
			for _, s := range statuses {
				count[s]++
			}
			if count[201] != changes.MaxEndpoints || count[422] != len(statuses)-changes.MaxEndpoints {
				t.Errorf("statuses: %v", count)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM webhook_endpoints WHERE owner = $1`, "user:"+b.tourist.id); n != changes.MaxEndpoints {
				t.Errorf("%d endpoints stored, want %d", n, changes.MaxEndpoints)
			}
		})
	}
}

// TestSlowEndpointsDelayNoOtherDelivery: with the runner running as
// cmd/server runs it, 20 endpoints of one account that hang (until the
// test ends) hold one attempt each, and another account's endpoint gets
// its ping while all 20 still hang; a hanging endpoint's second ping
// waits for its first. With fewer webhook slots than hanging endpoints
// (as when many accounts' endpoints hang), the hanging attempts step
// aside into the slow slots and the healthy ping still arrives.
func TestSlowEndpointsDelayNoOtherDelivery(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		for _, slots := range []int{0, 4} {
			t.Run(fmt.Sprintf("%s/slots=%d", engine, slots), func(t *testing.T) {
				t.Parallel()
				testSlowEndpoints(t, engine, slots)
			})
		}
	}
}

// testSlowEndpoints is TestSlowEndpointsDelayNoOtherDelivery with the
// given webhook slots (0: the default).
func testSlowEndpoints(t *testing.T, engine store.Engine, slots int) {
	b := newBookingEnv(t, engine)
	var hanging atomic.Int32
	hits := make([]atomic.Int32, changes.MaxEndpoints)
	slow := make([]endpoint, changes.MaxEndpoints)
	for i := range slow {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits[i].Add(1)
			hanging.Add(1)
			defer hanging.Add(-1)
			select {
			case <-r.Context().Done():
			case <-t.Context().Done():
			}
		}))
		t.Cleanup(srv.Close)
		slow[i] = b.createEndpoint(t, b.tourist, srv.URL)
	}
	arrived := make(chan int32, 1)
	healthySrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- hanging.Load():
		default:
		}
	}))
	t.Cleanup(healthySrv.Close)
	healthy := b.createEndpoint(t, b.stranger, healthySrv.URL)

	var slowAfter time.Duration // the default
	if slots > 0 {
		slowAfter = 10 * time.Millisecond
	}
	queue := store.NewJobs(b.db, b.clock)
	r := webhookRunner(queue, b.clock, &changes.Sender{Store: b.hooks, Client: changes.NewClientTimeout(changes.Policy{AllowHosts: []string{"127.0.0.1"}}, 10*time.Second),
		Concurrency: slots, SlowAfter: slowAfter})
	r.PollInterval = time.Hour // woken by the commits only
	queue.SetHandoff(r.Handoff())
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { r.Run(ctx) })
	t.Cleanup(func() { stop(); wg.Wait(); queue.SetHandoff(store.Handoff{}) })

	b.Do("POST", "/api/v1/webhooks/"+slow[0].ID+"/test", nil, bearer(b.tourist.token)...).Expect(202)
	for _, ep := range slow {
		b.Do("POST", "/api/v1/webhooks/"+ep.ID+"/test", nil, bearer(b.tourist.token)...).Expect(202)
	}
	waitFor(t, "every slow endpoint's attempt", func() bool { return hanging.Load() == int32(len(slow)) })

	b.Do("POST", "/api/v1/webhooks/"+healthy.ID+"/test", nil, bearer(b.stranger.token)...).Expect(202)
	select {
	case n := <-arrived:
		if n != int32(len(slow)) {
			t.Errorf("the healthy endpoint's ping arrived with %d slow attempts hanging, want %d", n, len(slow))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the healthy endpoint's ping never arrived")
	}
	if n := hits[0].Load(); n != 1 {
		t.Errorf("the first slow endpoint took %d attempts at once, want 1", n)
	}
	waitFor(t, "the healthy delivery's record", func() bool {
		ds := b.deliveries(t, b.stranger, healthy.ID)
		return len(ds) == 1 && ds[0].Status == "succeeded"
	})
	ds := b.deliveries(t, b.tourist, slow[0].ID)
	gotSlow := map[string]any{"deliveries": len(ds)}
	if len(ds) == 2 {
		gotSlow["first"], gotSlow["second"], gotSlow["secondAttempts"] = ds[0].Status, ds[1].Status, ds[1].Attempts
	}
	wantSlow := map[string]any{"deliveries": 2, "first": "pending", "second": "pending", "secondAttempts": 0}
	if diff := cmp.Diff(wantSlow, gotSlow); diff != "" {
		t.Errorf("the slow endpoint's deliveries (-want +got):\n%s", diff)
	}
	if n := hanging.Load(); n != int32(len(slow)) {
		t.Errorf("%d slow attempts hanging at the end, want %d", n, len(slow))
	}
	// A webhook attempt's lease is a minute: should this process
	// die now, another sends the deliveries a minute later.
	if n := b.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = $1 AND locked_until = $2`,
		changes.JobDeliver, b.clock.Now().UTC().Add(time.Minute)); n != len(slow) {
		t.Errorf("%d webhook jobs leased for a minute, want %d", n, len(slow))
	}
}

// waitFor waits (in real time) for cond, which a running runner makes
// true from its own goroutines.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestWebhookTestPingsRateLimited: an endpoint takes 5 pings a minute;
// the sixth is 429 with Retry-After, and nothing is enqueued for it.
func TestWebhookTestPingsRateLimited(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			ep, other := b.createEndpoint(t, b.tourist, "https://hooks.example.com/a"), b.createEndpoint(t, b.tourist, "https://hooks.example.com/b")
			ping := func(id string) *apitest.Response {
				return b.Do("POST", "/api/v1/webhooks/"+id+"/test", nil, bearer(b.tourist.token)...)
			}
			for range changes.TestPingLimit {
				ping(ep.ID).Expect(202)
				b.clock.Advance(10 * time.Second)
			}
			res := ping(ep.ID).Expect(429)
			if res.ErrorCode() != "RATE_LIMITED" || res.Header.Get("Retry-After") != "10" {
				t.Errorf("sixth ping: Retry-After %q, %s", res.Header.Get("Retry-After"), res.Body)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = $1`, ep.ID); n != changes.TestPingLimit {
				t.Errorf("%d pings stored, want %d", n, changes.TestPingLimit)
			}
			ping(other.ID).Expect(202) // another endpoint's budget is its own
			b.clock.Advance(10 * time.Second)
			ping(ep.ID).Expect(202) // the oldest left the minute
		})
	}
}

type attempt struct {
	Attempt        int
	AttemptedAt    time.Time
	ResponseStatus *int
	LatencyMS      *int
	Error          *string
}

// TestWebhookAttemptHistory: the deliveries list keeps every attempt of a
// delivery (time, response code, latency, error), not only the latest;
// an attempt refused by the safe dialer says only "address not allowed",
// never the address the name resolved to.
func TestWebhookAttemptHistory(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			rc := apitest.NewReceiver(t)
			ep := b.createEndpoint(t, b.tourist, rc.URL)
			rc.SetSecrets(ep.Secret)
			r := b.runner()
			rc.Script(apitest.Answer{Status: 500}, apitest.Answer{Status: 503})
			b.book(t, b.tourist, nil)
			start := b.clock.Now()
			drain(t, r)
			for range 2 {
				b.clock.Advance(time.Hour)
				drain(t, r)
			}
			var res struct {
				Data []struct {
					delivery
					AttemptHistory []attempt
				}
			}
			b.Get("/api/v1/webhooks/"+ep.ID+"/deliveries", bearer(b.tourist.token)...).Expect(200).Decode(&res)
			if len(res.Data) != 1 {
				t.Fatalf("deliveries: %+v", res.Data)
			}
			d := res.Data[0]
			if d.Status != "succeeded" || d.Attempts != 3 || len(d.AttemptHistory) != 3 {
				t.Fatalf("delivery: %+v", d)
			}
			for i, want := range []int{500, 503, 200} {
				a := d.AttemptHistory[i]
				at := start.Add(time.Duration(i) * time.Hour)
				gotAttempt := map[string]any{"attempt": a.Attempt, "at": a.AttemptedAt, "responseStatus": a.ResponseStatus, "latencySet": a.LatencyMS != nil}
				wantAttempt := map[string]any{"attempt": i + 1, "at": at, "responseStatus": &want, "latencySet": true}
				if diff := cmp.Diff(wantAttempt, gotAttempt); diff != "" {
					t.Errorf("attempt %d (-want +got):\n%s", i+1, diff)
				}
				if (want == 200) != (a.Error == nil) {
					t.Errorf("attempt %d: error %v", i+1, a.Error)
				}
			}
			if e := d.AttemptHistory[0].Error; e == nil || *e != "the endpoint answered 500" {
				t.Errorf("first attempt's error: %v", e)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM webhook_delivery_attempts`); n != 3 {
				t.Errorf("%d attempts stored, want 3", n)
			}

			// A name that resolves to loopback, sent by a runner that does
			// not allow it.
			blocked := b.createEndpoint(t, b.stranger, "https://localhost:1/hooks")
			b.Do("POST", "/api/v1/webhooks/"+blocked.ID+"/test", nil, bearer(b.stranger.token)...).Expect(202)
			strict := webhookRunner(store.NewJobs(b.db, b.clock), b.clock, &changes.Sender{Store: b.hooks, Client: changes.NewClient(changes.Policy{})})
			drain(t, strict)
			var got struct {
				Data []struct {
					delivery
					AttemptHistory []attempt
				}
			}
			raw := b.Get("/api/v1/webhooks/"+blocked.ID+"/deliveries", bearer(b.stranger.token)...).Expect(200)
			raw.Decode(&got)
			gotBlocked := map[string]any{"deliveries": len(got.Data)}
			if len(got.Data) > 0 {
				gotBlocked["lastError"], gotBlocked["attempts"] = got.Data[0].LastError, len(got.Data[0].AttemptHistory)
				if h := got.Data[0].AttemptHistory; len(h) > 0 {
					gotBlocked["responseStatusSet"] = h[0].ResponseStatus != nil
				}
			}
			wantBlocked := map[string]any{"deliveries": 1, "lastError": new("address not allowed"), "attempts": 1, "responseStatusSet": false}
			if diff := cmp.Diff(wantBlocked, gotBlocked); diff != "" {
				t.Fatalf("blocked delivery (-want +got):\n%s\n%s", diff, raw.Body)
			}
			if strings.Contains(string(raw.Body), "127.0.0.1") || strings.Contains(string(raw.Body), "::1") {
				t.Errorf("the answer names the resolved address: %s", raw.Body)
			}
			// The history goes with its deliveries.
			b.Do("DELETE", "/api/v1/webhooks/"+ep.ID, nil, bearer(b.tourist.token)...).Expect(200)
			if n := b.count(t, `SELECT COUNT(*) FROM webhook_delivery_attempts`); n != 1 {
				t.Errorf("%d attempts stored after the endpoint's deletion, want the other endpoint's 1", n)
			}
		})
	}
}

// TestWebhookInFlightRetriedAfterAMinute: a delivery whose attempt is in
// flight when its runner's process dies (here: hangs for good) is sent by
// another runner once a minute has passed, not five.
func TestWebhookInFlightRetriedAfterAMinute(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 { // the first attempt never ends
					select {
					case <-r.Context().Done():
					case <-t.Context().Done():
					}
				}
			}))
			t.Cleanup(srv.Close)
			ep := b.createEndpoint(t, b.tourist, srv.URL)

			queue := store.NewJobs(b.db, b.clock)
			dying := webhookRunner(queue, b.clock, &changes.Sender{Store: b.hooks, Client: changes.NewClient(changes.Policy{AllowHosts: []string{"127.0.0.1"}})})
			dying.PollInterval = time.Hour
			queue.SetHandoff(dying.Handoff())
			ctx, stop := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { dying.Run(ctx) })
			t.Cleanup(func() { stop(); wg.Wait(); queue.SetHandoff(store.Handoff{}) })
			b.Do("POST", "/api/v1/webhooks/"+ep.ID+"/test", nil, bearer(b.tourist.token)...).Expect(202)
			waitFor(t, "the first attempt", func() bool { return calls.Load() == 1 })

			other := b.runner()
			drain(t, other) // the lease holds
			b.clock.Advance(time.Minute + time.Second)
			drain(t, other)
			if n := calls.Load(); n != 2 {
				t.Fatalf("%d attempts after a minute, want 2", n)
			}
			if ds := b.deliveries(t, b.tourist, ep.ID); len(ds) != 1 || ds[0].Status != "succeeded" || ds[0].Attempts != 1 {
				t.Errorf("deliveries: %+v", ds)
			}
		})
	}
}
