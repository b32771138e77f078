package guidehttp_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestIdempotencyKeyContract: each POST that creates something or confirms
// an action honours Idempotency-Key as the property API does: the same
// request replays the first answer, another body is 422, a request in
// flight is 409, and the effect happens once.
func TestIdempotencyKeyContract(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			when := func(h int) string { return b.clock.Now().Add(time.Duration(h) * time.Hour).Format(time.RFC3339) }
			// A completed booking to review, and a pending cancel to confirm.
			done := b.book(t, b.tourist, nil)
			for _, step := range []string{"accept", "start", "complete"} {
				b.Do("POST", "/api/v1/bookings/"+done+"/"+step, nil, bearer(b.expert.token)...).Expect(200)
			}
			key := b.apiKey(t, b.tourist, "bookings:read", "bookings:write")
			toCancel := b.book(t, b.tourist, nil)
			var pending struct{ ActionID string }
			b.Do("POST", "/api/v1/bookings/"+toCancel+"/cancel", nil, bearer(key)...).Expect(202).Decode(&pending)

			for _, tc := range []struct {
				name, path  string
				who         []string
				body, else_ any
				status      int
				effects     string // counts the effect; must be 1 after the replay
				args        []any
			}{
				{"booking", "/api/v1/bookings", bearer(b.stranger.token), map[string]any{"packageId": b.packageID, "scheduledDate": when(50)},
					map[string]any{"packageId": b.packageID, "scheduledDate": when(51)}, 201,
					`SELECT COUNT(*) FROM bookings WHERE tourist_id = $1`, []any{b.stranger.id}},
				{"review", "/api/v1/bookings/" + done + "/review", bearer(b.tourist.token), map[string]any{"rating": 4, "comment": "Lovely day"},
					map[string]any{"rating": 5}, 201, `SELECT COUNT(*) FROM reviews WHERE booking_id = $1`, []any{done}},
				{"conversation", "/api/v1/conversations", bearer(b.stranger.token), map[string]any{"expertHandle": "demo-expert"},
					map[string]any{"expertHandle": "Demo-Expert"}, 201,
					`SELECT COUNT(*) FROM conversations WHERE tourist_id = $1`, []any{b.stranger.id}},
				{"api key", "/api/v1/auth/api-keys", bearer(b.stranger.token), map[string]any{"name": "agent", "scopes": []string{"bookings:read"}},
					map[string]any{"name": "agent 2", "scopes": []string{"bookings:read"}}, 201,
					`SELECT COUNT(*) FROM api_keys WHERE user_id = $1`, []any{b.stranger.id}},
				{"confirm", "/api/v1/actions/" + pending.ActionID + "/confirm", bearer(key), nil, map[string]any{}, 200,
					`SELECT COUNT(*) FROM bookings WHERE id = $1 AND status = 'CANCELLED'`, []any{toCancel}},
			} {
				{ // not a subtest: the client fails the test that made it
					h := append(append([]string(nil), tc.who...), "Idempotency-Key", "idem-"+strings.ReplaceAll(tc.name, " ", "-"))
					first := b.Do("POST", tc.path, tc.body, h...).Expect(tc.status)
					if first.Header.Get("Idempotent-Replayed") != "" {
						t.Errorf("%s: the first answer says it is replayed", tc.name)
					}
					again := b.Do("POST", tc.path, tc.body, h...).Expect(tc.status)
					if again.Header.Get("Idempotent-Replayed") != "true" {
						t.Errorf("%s: replay headers: %v", tc.name, again.Header)
					}
					if tc.name == "api key" {
						// The key is shown once: the replay carries null, and
						// the record never holds it.
						var k1, k2 struct{ Data struct{ ID, Key *string } }
						first.Decode(&k1)
						again.Decode(&k2)
						if k1.Data.Key == nil || k2.Data.Key != nil || *k1.Data.ID != *k2.Data.ID {
							t.Errorf("key replay: %s / %s", first.Body, again.Body)
						}
						if n := b.count(t, `SELECT COUNT(*) FROM idempotency_keys WHERE response_body IS NOT NULL AND CAST(response_body AS TEXT) LIKE $1`,
							"%"+*k1.Data.Key+"%"); n != 0 {
							t.Error("the new API key is stored in the idempotency record")
						}
					} else if !bytes.Equal(first.Body, again.Body) {
						t.Errorf("%s: replay differs:\n%s\n%s", tc.name, first.Body, again.Body)
					}
					if code := b.Do("POST", tc.path, tc.else_, h...).Expect(422).ErrorCode(); code != "IDEMPOTENCY_KEY_REUSED" {
						t.Errorf("%s: another body: %s", tc.name, code)
					}
					if n := b.count(t, tc.effects, tc.args...); n != 1 {
						t.Errorf("%s: %d effects, want 1", tc.name, n)
					}
				}
			}

			// In flight: 409 with Retry-After.
			if _, _, err := b.keys.Begin(t.Context(), b.stranger.id, "running", "some-hash"); err != nil {
				t.Fatal(err)
			}
			res := b.Do("POST", "/api/v1/bookings", map[string]any{"packageId": b.packageID, "scheduledDate": when(60)},
				append(bearer(b.stranger.token), "Idempotency-Key", "running")...).Expect(409)
			if res.ErrorCode() != "IDEMPOTENCY_IN_PROGRESS" || res.Header.Get("Retry-After") == "" {
				t.Errorf("in flight: %s %v", res.Body, res.Header)
			}
			// Keys belong to the caller: another user's same key is new.
			b.Do("POST", "/api/v1/bookings", map[string]any{"packageId": b.packageID, "scheduledDate": when(50)},
				append(bearer(b.tourist.token), "Idempotency-Key", "idem-booking")...).Expect(201)
			// A refusal replays too, and is not turned into an effect later.
			bad := map[string]any{"packageId": b.packageID, "scheduledDate": when(-1)}
			hb := append(bearer(b.stranger.token), "Idempotency-Key", "refused")
			b.Do("POST", "/api/v1/bookings", bad, hb...).Expect(400)
			if r := b.Do("POST", "/api/v1/bookings", bad, hb...).Expect(400); r.Header.Get("Idempotent-Replayed") != "true" {
				t.Error("refusal not replayed")
			}
			// Kept 24 hours.
			b.clock.Advance(24*time.Hour + time.Second)
			b.Do("POST", "/api/v1/bookings", map[string]any{"packageId": b.packageID, "scheduledDate": when(52)},
				append(bearer(b.stranger.token), "Idempotency-Key", "idem-booking")...).Expect(201)
		})
	}
}

// TestIdempotentBookingRace: concurrent retries of one booking with one key
// book once; every success carries the same booking.
func TestIdempotentBookingRace(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			body := map[string]any{"packageId": b.packageID, "scheduledDate": b.clock.Now().Add(80 * time.Hour).Format(time.RFC3339)}
			h := append(bearer(b.stranger.token), "Idempotency-Key", "race-1")
			var wg sync.WaitGroup
			var mu sync.Mutex
			statuses := map[int]int{}
			bodies := map[string]bool{}
			start := make(chan struct{})
			for range 12 {
				wg.Go(func() {
					<-start
					res := b.Do("POST", "/api/v1/bookings", body, h...)
					mu.Lock()
					defer mu.Unlock()
					statuses[res.Status]++
					if res.Status == 201 {
						bodies[string(res.Body)] = true
					}
				})
			}
			close(start)
			wg.Wait()
			if statuses[201] < 1 || statuses[201]+statuses[409] != 12 || len(bodies) != 1 {
				t.Errorf("statuses %v, %d distinct bodies", statuses, len(bodies))
			}
			if n := b.count(t, `SELECT COUNT(*) FROM bookings WHERE tourist_id = $1`, b.stranger.id); n != 1 {
				t.Errorf("%d bookings, want 1", n)
			}
			for s := range bodies {
				if !strings.Contains(s, `"status":"PENDING"`) {
					t.Errorf("body: %s", s)
				}
			}
		})
	}
}
