package guidehttp_test

import (
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
)

func TestCatalogCache(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, "sqlite")
	first := b.Get("/api/v1/experts/demo-expert?locale=en").Expect(200)
	etag := first.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	// The same query in another order is the same page.
	if again := b.Get("/api/v1/experts?pageSize=5&page=1").Expect(200); again.Header.Get("ETag") != b.Get("/api/v1/experts?page=1&pageSize=5").Expect(200).Header.Get("ETag") {
		t.Error("query order changes the page")
	}
	res := b.Get("/api/v1/experts/demo-expert?locale=en", "If-None-Match", etag).Expect(304)
	if len(res.Body) != 0 || res.Header.Get("X-RateLimit-Remaining") == "" {
		t.Errorf("304: body %q, rate headers %v", res.Body, res.Header)
	}
	b.Get("/api/v1/experts/demo-expert?locale=en", "If-None-Match", `"other"`).Expect(200)

	// A write in this process shows at once: a review moves the rating.
	id := b.book(t, b.tourist, nil)
	for _, step := range []string{"accept", "start", "complete"} {
		b.Do("POST", "/api/v1/bookings/"+id+"/"+step, nil, bearer(b.expert.token)...).Expect(200)
	}
	var before, after struct{ Data guide.ExpertDetail }
	first.Decode(&before)
	b.Do("POST", "/api/v1/bookings/"+id+"/review", map[string]any{"rating": 1}, bearer(b.tourist.token)...).Expect(201)
	res = b.Get("/api/v1/experts/demo-expert?locale=en").Expect(200)
	res.Decode(&after)
	if after.Data.ReviewCount != before.Data.ReviewCount+1 || res.Header.Get("ETag") == etag {
		t.Errorf("cached page survived a review: %d → %d", before.Data.ReviewCount, after.Data.ReviewCount)
	}
	b.Get("/api/v1/experts/demo-expert?locale=en", "If-None-Match", etag).Expect(200)

	// A write by another replica (straight to the database here) shows
	// within the TTL.
	if _, err := b.db.Exec(`UPDATE experts SET hourly_rate = 123456 WHERE id = $1`, b.expertID); err != nil {
		t.Fatal(err)
	}
	var stale struct{ Data guide.ExpertDetail }
	b.Get("/api/v1/experts/demo-expert?locale=en").Expect(200).Decode(&stale)
	if stale.Data.HourlyRate != nil && *stale.Data.HourlyRate == 123456 {
		t.Fatal("the test proves nothing: the page was not cached")
	}
	b.clock.Advance(time.Minute + time.Second)
	var fresh struct{ Data guide.ExpertDetail }
	b.Get("/api/v1/experts/demo-expert?locale=en").Expect(200).Decode(&fresh)
	if fresh.Data.HourlyRate == nil || *fresh.Data.HourlyRate != 123456 {
		t.Errorf("after the TTL the page is still stale: %v", fresh.Data.HourlyRate)
	}
	// Errors are not cached.
	b.Get("/api/v1/experts/nobody").Expect(404)
	b.Get("/api/v1/experts?pageSize=101").Expect(400)
}
