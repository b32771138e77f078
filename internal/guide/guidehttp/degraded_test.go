package guidehttp_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
)

// TestRedisDown: with the shared limiter unreachable, public reads fall
// back to a local limit and keep serving; login, registration and
// key-authenticated writes are refused with a retriable 503.
func TestRedisDown(t *testing.T) {
	t.Parallel()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 50 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { client.Close() })
	shared := ratelimit.NewRedis(client, "guide:")
	fallbacks := 0
	local := ratelimit.NewMemory(clock.NewFake(time.Now()))
	e := newEnv(t, options{limiter: shared, readLimiter: &ratelimit.Fallback{Primary: shared, Local: local, OnFallback: func(error) { fallbacks++ }}})

	e.Get("/api/v1/experts").Expect(200)
	e.Get("/api/v1/cities").Expect(200)
	if fallbacks != 2 {
		t.Errorf("%d fallbacks for 2 public reads", fallbacks)
	}
	for _, c := range []struct {
		path string
		body map[string]any
	}{
		{"/api/v1/auth/login", map[string]any{"email": "a@example.com", "password": "12345678"}},
		{"/api/v1/auth/register", map[string]any{"email": "a@example.com", "password": "12345678", "name": "Al", "role": "TOURIST"}},
	} {
		res := e.Do("POST", c.path, c.body).Expect(503)
		if res.ErrorCode() != "SERVICE_UNAVAILABLE" || res.JSON()["error"].(map[string]any)["is_retriable"] != true || res.Header.Get("Retry-After") == "" {
			t.Errorf("%s: %s", c.path, res.Body)
		}
	}
	if n := e.count(t, `SELECT COUNT(*) FROM users WHERE email_normalized = 'a@example.com'`); n != 0 {
		t.Error("a registration went through without a limit")
	}
	// A key: reads fall back, writes are refused.
	u := e.tokenFor(t, "traveller@example.com")
	key := e.apiKey(t, u, "bookings:read", "bookings:write")
	e.Get("/api/v1/bookings", bearer(key)...).Expect(200)
	e.Do("POST", "/api/v1/bookings", map[string]any{"expertId": "00000000-0000-7000-8000-000000000000", "scheduledDate": "2027-01-01T10:00:00Z"}, bearer(key)...).Expect(503)
}
