package guidehttp_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

type bookingEnv struct {
	*env
	tourist, expert, admin, stranger user
	expertID, packageID, otherPkg    string
}

func newBookingEnv(t *testing.T, engine store.Engine) *bookingEnv {
	e := newEnv(t, options{}, engine)
	b := &bookingEnv{env: e,
		tourist:  e.register(t, "tourist@example.com", "TOURIST"),
		stranger: e.register(t, "stranger@example.com", "TOURIST"),
		expert:   e.tokenFor(t, "expert@example.com"),
		admin:    e.tokenFor(t, "admin@example.com"),
	}
	if err := e.db.QueryRow(`SELECT e.id, p.id FROM experts e JOIN packages p ON p.expert_id = e.id
		WHERE e.user_id = $1 AND p.is_active = TRUE ORDER BY p.id LIMIT 1`, b.expert.id).Scan(&b.expertID, &b.packageID); err != nil {
		t.Fatal(err)
	}
	if err := e.db.QueryRow(`SELECT p.id FROM packages p WHERE p.expert_id <> $1 AND p.is_active = TRUE ORDER BY p.id LIMIT 1`, b.expertID).Scan(&b.otherPkg); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *bookingEnv) book(t *testing.T, who user, body map[string]any) string {
	t.Helper()
	if body == nil {
		body = map[string]any{"packageId": b.packageID}
	}
	if body["scheduledDate"] == nil {
		body["scheduledDate"] = b.clock.Now().Add(72 * time.Hour).Format(time.RFC3339)
	}
	var res struct{ Data guide.CreatedBooking }
	b.Do("POST", "/api/v1/bookings", body, bearer(who.token)...).Expect(201).Decode(&res)
	if res.Data.Status != "PENDING" || res.Data.ID == "" {
		t.Fatalf("created: %+v", res.Data)
	}
	return res.Data.ID
}

func (b *bookingEnv) detail(t *testing.T, who user, id string) guide.BookingDetail {
	t.Helper()
	var res struct{ Data guide.BookingDetail }
	b.Get("/api/v1/bookings/"+id, bearer(who.token)...).Expect(200).Decode(&res)
	return res.Data
}

func (b *bookingEnv) status(t *testing.T, id string) string {
	t.Helper()
	var s string
	if err := b.db.QueryRow(`SELECT status FROM bookings WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBookingLifeCycle walks PENDING → CONFIRMED → IN_PROGRESS → COMPLETED
// → reviewed with user tokens, on every engine.
func TestBookingLifeCycle(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			b := newBookingEnv(t, engine)
			id := b.book(t, b.tourist, map[string]any{"packageId": b.packageID, "participants": 2, "customRequest": "Vegetarian lunch, please",
				"meetingLocation": "Hotel lobby", "scheduledEndDate": b.clock.Now().Add(76 * time.Hour).Format(time.RFC3339)})
			d := b.detail(t, b.tourist, id)
			got := map[string]any{
				"status": d.Status, "participants": d.Participants, "packageSet": d.Package != nil, "expertSet": d.Expert != nil,
				"touristEmail": d.Tourist.Email, "canReview": d.CanReview, "scheduledEndSet": d.ScheduledEndDate != nil,
				"customRequestSet": d.CustomRequest != nil, "reviewSet": d.Review != nil,
			}
			if d.Package != nil {
				got["packageID"] = d.Package.ID
			}
			if d.Expert != nil {
				got["expertHandle"] = d.Expert.Handle
			}
			want := map[string]any{
				"status": "PENDING", "participants": 2, "packageSet": true, "expertSet": true,
				"touristEmail": new("tourist@example.com"), "canReview": false, "scheduledEndSet": true,
				"customRequestSet": true, "reviewSet": false,
				"packageID": b.packageID, "expertHandle": "demo-expert",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("new booking (-want +got):\n%s", diff)
			}
			// Who may see it: traveller, expert, admin; a stranger gets 403.
			b.detail(t, b.expert, id)
			b.detail(t, b.admin, id)
			b.Get("/api/v1/bookings/"+id, bearer(b.stranger.token)...).Expect(403)

			// Transitions in order; out of order is 422; the wrong party 403.
			b.Do("POST", "/api/v1/bookings/"+id+"/start", nil, bearer(b.expert.token)...).Expect(422)
			b.Do("POST", "/api/v1/bookings/"+id+"/accept", nil, bearer(b.tourist.token)...).Expect(403)
			b.Do("POST", "/api/v1/bookings/"+id+"/accept", nil, bearer(b.admin.token)...).Expect(403)
			var acc struct{ Data guide.BookingDetail }
			b.Do("POST", "/api/v1/bookings/"+id+"/accept", nil, bearer(b.expert.token)...).Expect(200).Decode(&acc)
			if acc.Data.Status != "CONFIRMED" || acc.Data.ConfirmedAt == nil {
				t.Fatalf("accepted: %+v", acc.Data)
			}
			b.Do("POST", "/api/v1/bookings/"+id+"/accept", nil, bearer(b.expert.token)...).Expect(422)
			b.Do("POST", "/api/v1/bookings/"+id+"/complete", nil, bearer(b.expert.token)...).Expect(422)
			b.Do("POST", "/api/v1/bookings/"+id+"/start", nil, bearer(b.expert.token)...).Expect(200)
			b.Do("POST", "/api/v1/bookings/"+id+"/review", map[string]any{"rating": 5}, bearer(b.tourist.token)...).Expect(409)
			b.Do("POST", "/api/v1/bookings/"+id+"/complete", nil, bearer(b.stranger.token)...).Expect(403)
			var done struct{ Data guide.BookingDetail }
			b.Do("POST", "/api/v1/bookings/"+id+"/complete", nil, bearer(b.admin.token)...).Expect(200).Decode(&done)
			if done.Data.Status != "COMPLETED" || done.Data.CompletedAt == nil || done.Data.CanReview {
				t.Fatalf("completed (seen by the admin, who cannot review): %+v", done.Data)
			}
			if !b.detail(t, b.tourist, id).CanReview || b.detail(t, b.expert, id).CanReview {
				t.Error("canReview must be true for the traveller only")
			}
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(b.tourist.token)...).Expect(422)

			// Review: the traveller only, once; the rating is recomputed.
			var before struct{ Data guide.ExpertDetail }
			b.Get("/api/v1/experts/demo-expert").Expect(200).Decode(&before)
			b.Do("POST", "/api/v1/bookings/"+id+"/review", map[string]any{"rating": 2}, bearer(b.expert.token)...).Expect(403)
			b.Do("POST", "/api/v1/bookings/"+id+"/review", map[string]any{"rating": 6}, bearer(b.tourist.token)...).Expect(400)
			var rv struct{ Data guide.CreatedReview }
			b.Do("POST", "/api/v1/bookings/"+id+"/review", map[string]any{"rating": 2, "comment": "Late, but kind."}, bearer(b.tourist.token)...).Expect(201).Decode(&rv)
			wantCount := before.Data.ReviewCount + 1
			var sum int
			if err := b.db.QueryRow(`SELECT SUM(rating) FROM reviews WHERE expert_id = $1`, b.expertID).Scan(&sum); err != nil {
				t.Fatal(err)
			}
			if rv.Data.Expert.ReviewCount != wantCount || rv.Data.Expert.Rating != float64(sum)/float64(wantCount) || rv.Data.Rating != 2 {
				t.Fatalf("review: %+v (sum %d, count %d)", rv.Data, sum, wantCount)
			}
			var after struct{ Data guide.ExpertDetail }
			b.Get("/api/v1/experts/demo-expert").Expect(200).Decode(&after)
			if after.Data.Rating != rv.Data.Expert.Rating || after.Data.ReviewCount != wantCount {
				t.Errorf("expert after review: %v/%d", after.Data.Rating, after.Data.ReviewCount)
			}
			b.Do("POST", "/api/v1/bookings/"+id+"/review", map[string]any{"rating": 4}, bearer(b.tourist.token)...).Expect(409)
			d = b.detail(t, b.tourist, id)
			if d.Review == nil || d.Review.ID != rv.Data.ID || d.CanReview {
				t.Errorf("detail after review: %+v", d)
			}
		})
	}
}

func TestBookingCreateAndList(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, store.SQLite)
	future := b.clock.Now().Add(48 * time.Hour).Format(time.RFC3339)

	// 404 when the expert is not verified or the package not active.
	var unverified, inactive string
	if err := b.db.QueryRow(`SELECT id FROM experts WHERE verified_at IS NULL LIMIT 1`).Scan(&unverified); err != nil {
		t.Fatal(err)
	}
	if err := b.db.QueryRow(`SELECT id FROM packages WHERE is_active = FALSE LIMIT 1`).Scan(&inactive); err != nil {
		t.Fatal(err)
	}
	for _, body := range []map[string]any{
		{"expertId": unverified, "scheduledDate": future},
		{"packageId": inactive, "scheduledDate": future},
		{"expertId": "00000000-0000-7000-8000-000000000000", "scheduledDate": future},
	} {
		b.Do("POST", "/api/v1/bookings", body, bearer(b.tourist.token)...).Expect(404)
	}
	// 400 for each bound.
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"expertId": b.expertID}, "scheduledDate"},
		{map[string]any{"scheduledDate": future}, "expertId"},
		{map[string]any{"expertId": b.expertID, "scheduledDate": "tomorrow"}, "scheduledDate"},
		{map[string]any{"expertId": b.expertID, "scheduledDate": b.clock.Now().Add(-time.Hour).Format(time.RFC3339)}, "scheduledDate"},
		{map[string]any{"expertId": b.expertID, "scheduledDate": future, "scheduledEndDate": future}, "scheduledEndDate"},
		{map[string]any{"expertId": "not-a-uuid", "scheduledDate": future}, "expertId"},
		{map[string]any{"expertId": b.expertID, "scheduledDate": future, "participants": 0}, "participants"},
		{map[string]any{"expertId": b.expertID, "scheduledDate": future, "participants": 51}, "participants"},
		{map[string]any{"packageId": b.packageID, "scheduledDate": future, "participants": 50}, "participants"},
		{map[string]any{"expertId": b.expertID, "packageId": b.otherPkg, "scheduledDate": future}, "packageId"},
		{map[string]any{"expertId": b.expertID, "scheduledDate": future, "customRequest": string(make([]byte, 2001))}, "customRequest"},
		{map[string]any{"expertId": b.expertID, "scheduledDate": future, "meetingLocation": string(make([]byte, 501))}, "meetingLocation"},
		{map[string]any{"expertId": b.expertID, "scheduledDate": future, "status": "COMPLETED"}, "status"},
	} {
		res := b.Do("POST", "/api/v1/bookings", c.body, bearer(b.tourist.token)...).Expect(400)
		if _, ok := res.ErrorDetails()[c.field]; !ok {
			t.Errorf("%v: details %v", c.body, res.ErrorDetails())
		}
	}
	b.Do("POST", "/api/v1/bookings", map[string]any{"expertId": b.expertID, "scheduledDate": future}, bearer(b.expert.token)...).Expect(422)
	b.Do("POST", "/api/v1/bookings", map[string]any{"expertId": b.expertID, "scheduledDate": future}).Expect(401)

	// The list: the traveller's own, and the expert's with them.
	first := b.book(t, b.tourist, map[string]any{"expertId": b.expertID, "scheduledDate": b.clock.Now().Add(96 * time.Hour).Format(time.RFC3339)})
	b.clock.Advance(time.Second)
	second := b.book(t, b.tourist, nil)
	b.book(t, b.stranger, nil)
	var mine struct {
		Data []guide.BookingSummary
		Meta paging.Meta
	}
	b.Get("/api/v1/bookings", bearer(b.tourist.token)...).Expect(200).Decode(&mine)
	gotMine := map[string]any{"total": mine.Meta.Total}
	if len(mine.Data) >= 2 {
		gotMine["ids"] = []string{mine.Data[0].ID, mine.Data[1].ID}
		gotMine["secondExpertHandle"] = mine.Data[1].ExpertHandle
		gotMine["firstPackageTitleSet"] = mine.Data[0].PackageTitle != nil
		gotMine["secondPackageIDSet"] = mine.Data[1].PackageID != nil
	}
	wantMine := map[string]any{
		"total": 2, "ids": []string{second, first}, "secondExpertHandle": new("demo-expert"),
		"firstPackageTitleSet": true, "secondPackageIDSet": false,
	}
	if diff := cmp.Diff(wantMine, gotMine); diff != "" {
		t.Fatalf("tourist list (-want +got):\n%s", diff)
	}
	b.Get("/api/v1/bookings?sort=scheduledDate&order=asc", bearer(b.tourist.token)...).Expect(200).Decode(&mine)
	if mine.Data[0].ID != second {
		t.Errorf("sort=scheduledDate&order=asc: %s first", mine.Data[0].ID)
	}
	var theirs struct{ Meta paging.Meta }
	b.Get("/api/v1/bookings?status=PENDING&pageSize=100", bearer(b.expert.token)...).Expect(200).Decode(&theirs)
	want := b.count(t, `SELECT COUNT(*) FROM bookings b JOIN experts e ON e.id = b.expert_id WHERE e.user_id = $1 AND b.status = 'PENDING'`, b.expert.id)
	if theirs.Meta.Total != want || want < 3 {
		t.Errorf("expert's pending: %d, want %d", theirs.Meta.Total, want)
	}
	b.Get("/api/v1/bookings?status=DONE", bearer(b.tourist.token)...).Expect(400)
	b.Get("/api/v1/bookings?sort=price", bearer(b.tourist.token)...).Expect(400)
	b.Get("/api/v1/bookings/not-a-uuid", bearer(b.tourist.token)...).Expect(404)
	b.Get("/api/v1/bookings/00000000-0000-7000-8000-000000000000", bearer(b.tourist.token)...).Expect(404)
}

// TestBookingAPIKeyCancel: with a key, cancel asks, nothing happens, and
// only the original actor confirms; the rules are checked again then.
func TestBookingAPIKeyCancel(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			b := newBookingEnv(t, engine)
			key := b.apiKey(t, b.tourist, "bookings:read", "bookings:write")
			otherKey := b.apiKey(t, b.tourist, "bookings:read", "bookings:write")
			readOnly := b.apiKey(t, b.tourist, "bookings:read")
			strangerKey := b.apiKey(t, b.stranger, "bookings:write")

			var created struct{ Data guide.CreatedBooking }
			b.Do("POST", "/api/v1/bookings", map[string]any{"packageId": b.packageID, "scheduledDate": b.clock.Now().Add(48 * time.Hour).Format(time.RFC3339)},
				bearer(key)...).Expect(201).Decode(&created)
			id := created.Data.ID
			b.Get("/api/v1/bookings/"+id, bearer(key)...).Expect(200)
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(readOnly)...).Expect(403)
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(strangerKey)...).Expect(403)

			var pending struct {
				ActionID, ConfirmURL, Message string
				ExpiresIn                     int
			}
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(key)...).Expect(202).Decode(&pending)
			if pending.ConfirmURL != "/api/v1/actions/"+pending.ActionID+"/confirm" || pending.ExpiresIn != 600 || !strings.Contains(pending.Message, "within 10 minutes;") {
				t.Fatalf("202: %+v", pending)
			}
			if s := b.status(t, id); s != "PENDING" {
				t.Fatalf("a key's cancel changed the booking to %s", s)
			}
			var a struct{ Data guide.PendingAction }
			b.Get("/api/v1/actions/"+pending.ActionID, bearer(key)...).Expect(200).Decode(&a)
			if a.Data.Status != "pending" || a.Data.Action != "booking.cancel" || a.Data.ConfirmedAt != nil {
				t.Fatalf("action: %+v", a.Data)
			}
			// Not the original actor: not found.
			b.Get("/api/v1/actions/"+pending.ActionID, bearer(otherKey)...).Expect(404)
			b.Get("/api/v1/actions/"+pending.ActionID, bearer(b.stranger.token)...).Expect(404)
			b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(strangerKey)...).Expect(404)
			b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(b.expert.token)...).Expect(404)

			// The owner confirms with a user token; the booking is cancelled.
			var conf struct {
				Data struct {
					ActionID, Action, Status string
					Payload                  map[string]any
					Result                   map[string]any
				}
			}
			b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(b.tourist.token)...).Expect(200).Decode(&conf)
			// The result is the cancelled booking itself, as a user token's
			// cancel answers it: no wrapper, nothing else.
			r := conf.Data.Result
			if diff := cmp.Diff(map[string]any{"status": "confirmed", "action": "booking.cancel", "bookingId": id, "result": map[string]any{"id": id, "status": "CANCELLED", "cancelledAt": true}},
				map[string]any{"status": conf.Data.Status, "action": conf.Data.Action, "bookingId": conf.Data.Payload["bookingId"],
					"result": map[string]any{"id": r["id"], "status": r["status"], "cancelledAt": r["cancelledAt"] != nil}}); diff != "" || len(r) != 3 {
				t.Fatalf("confirm (-want +got):\n%s\nresult: %v", diff, r)
			}
			if s := b.status(t, id); s != "CANCELLED" {
				t.Fatalf("after confirmation the booking is %s", s)
			}
			if res := b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(key)...).Expect(422); res.ErrorCode() != "INVALID_STATE" {
				t.Errorf("second confirm: %s", res.Body)
			}
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(key)...).Expect(422)

			// Rules re-checked at confirmation: the booking completed in the
			// meantime, so the cancel fails and the action stays confirmed.
			id2 := b.book(t, b.tourist, nil)
			b.Do("POST", "/api/v1/bookings/"+id2+"/cancel", nil, bearer(key)...).Expect(202).Decode(&pending)
			for _, step := range []string{"accept", "start", "complete"} {
				b.Do("POST", "/api/v1/bookings/"+id2+"/"+step, nil, bearer(b.expert.token)...).Expect(200)
			}
			var failed struct {
				Data struct {
					Status string
					Result struct {
						OK    bool
						Error struct{ Code string }
					}
				}
			}
			b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(key)...).Expect(200).Decode(&failed)
			if failed.Data.Status != "confirmed" || failed.Data.Result.OK || failed.Data.Result.Error.Code != "INVALID_STATE" {
				t.Fatalf("confirm of a stale cancel: %+v", failed.Data)
			}
			b.Get("/api/v1/actions/"+pending.ActionID, bearer(key)...).Expect(200).Decode(&a)
			if a.Data.Status != "confirmed" || b.status(t, id2) != "COMPLETED" {
				t.Errorf("after a failed operation: action %s, booking %s", a.Data.Status, b.status(t, id2))
			}

			// An expired action answers 422 and does nothing.
			id3 := b.book(t, b.tourist, nil)
			b.Do("POST", "/api/v1/bookings/"+id3+"/cancel", nil, bearer(key)...).Expect(202).Decode(&pending)
			b.clock.Advance(10*time.Minute + time.Second)
			b.Get("/api/v1/actions/"+pending.ActionID, bearer(key)...).Expect(200).Decode(&a)
			if a.Data.Status != "expired" {
				t.Errorf("status after expiry: %s", a.Data.Status)
			}
			b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(b.tourist.token)...).Expect(422)
			if s := b.status(t, id3); s != "PENDING" {
				t.Errorf("an expired action cancelled the booking: %s", s)
			}
			b.Get("/api/v1/actions/00000000-0000-7000-8000-000000000000", bearer(key)...).Expect(404)
			b.Get("/api/v1/actions/" + pending.ActionID).Expect(401)
		})
	}
}

// TestBookingRaces makes concurrent requests really race, on every engine.
func TestBookingRaces(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			b := newBookingEnv(t, engine)
			parallel := func(n int, fn func(i int) int) map[int]int {
				var wg sync.WaitGroup
				var mu sync.Mutex
				counts := map[int]int{}
				start := make(chan struct{})
				for i := range n {
					wg.Go(func() {
						<-start
						status := fn(i)
						mu.Lock()
						counts[status]++
						mu.Unlock()
					})
				}
				close(start)
				wg.Wait()
				return counts
			}
			do := func(method, path string, body any, who user) int {
				return b.Do(method, path, body, bearer(who.token)...).Status
			}

			// Ten concurrent cancels: one 200, nine 422.
			id := b.book(t, b.tourist, nil)
			got := parallel(10, func(i int) int {
				who := b.tourist
				if i%2 == 1 {
					who = b.expert
				}
				return do("POST", "/api/v1/bookings/"+id+"/cancel", nil, who)
			})
			if got[200] != 1 || got[422] != 9 {
				t.Errorf("concurrent cancels: %v", got)
			}

			// A cancel racing a complete: exactly one wins, no illegal state.
			for range 5 {
				id := b.book(t, b.tourist, nil)
				do("POST", "/api/v1/bookings/"+id+"/accept", nil, b.expert)
				do("POST", "/api/v1/bookings/"+id+"/start", nil, b.expert)
				got := parallel(2, func(i int) int {
					if i == 0 {
						return do("POST", "/api/v1/bookings/"+id+"/cancel", nil, b.tourist)
					}
					return do("POST", "/api/v1/bookings/"+id+"/complete", nil, b.expert)
				})
				s := b.status(t, id)
				if got[200] != 1 || got[422] != 1 || (s != "CANCELLED" && s != "COMPLETED") {
					t.Errorf("cancel vs complete: %v, status %s", got, s)
				}
				var cancelled, completed *time.Time
				if err := b.db.QueryRow(`SELECT cancelled_at, completed_at FROM bookings WHERE id = $1`, id).Scan(&cancelled, &completed); err != nil {
					t.Fatal(err)
				}
				if (cancelled != nil) == (completed != nil) {
					t.Errorf("both or neither timestamp set: %v %v", cancelled, completed)
				}
			}

			// Concurrent reviews: of one booking, one 201; of many bookings of
			// one expert, every review counted in the rating.
			const n = 8
			ids := make([]string, n)
			tourists := make([]user, n)
			for i := range n {
				tourists[i] = b.register(t, fmt.Sprintf("reviewer%d@example.com", i), "TOURIST")
				ids[i] = b.book(t, tourists[i], nil)
				for _, step := range []string{"accept", "start", "complete"} {
					do("POST", "/api/v1/bookings/"+ids[i]+"/"+step, nil, b.expert)
				}
			}
			got = parallel(6, func(int) int {
				return do("POST", "/api/v1/bookings/"+ids[0]+"/review", map[string]any{"rating": 5}, tourists[0])
			})
			if got[201] != 1 || got[409] != 5 {
				t.Errorf("concurrent reviews of one booking: %v", got)
			}
			got = parallel(n-1, func(i int) int {
				return do("POST", "/api/v1/bookings/"+ids[i+1]+"/review", map[string]any{"rating": 1 + i%5}, tourists[i+1])
			})
			if got[201] != n-1 {
				t.Errorf("concurrent reviews of one expert: %v", got)
			}
			var sum, count, stored int
			var rating float64
			if err := b.db.QueryRow(`SELECT SUM(rating), COUNT(*) FROM reviews WHERE expert_id = $1`, b.expertID).Scan(&sum, &count); err != nil {
				t.Fatal(err)
			}
			if err := b.db.QueryRow(`SELECT rating, review_count FROM experts WHERE id = $1`, b.expertID).Scan(&rating, &stored); err != nil {
				t.Fatal(err)
			}
			if stored != count || rating != float64(sum)/float64(count) {
				t.Errorf("expert rating %v/%d, reviews say %v/%d", rating, stored, float64(sum)/float64(count), count)
			}

			// Two confirmations of one action: one performs it.
			key := b.apiKey(t, b.tourist, "bookings:write")
			id = b.book(t, b.tourist, nil)
			var pending struct{ ActionID string }
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(key)...).Expect(http.StatusAccepted).Decode(&pending)
			got = parallel(4, func(i int) int {
				if i%2 == 0 {
					return b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(key)...).Status
				}
				return do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, b.tourist)
			})
			if got[200] != 1 || got[422] != 3 {
				t.Errorf("concurrent confirmations: %v", got)
			}
		})
	}
}
