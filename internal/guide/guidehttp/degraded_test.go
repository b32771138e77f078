package guidehttp_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
)

// TestRedisDown: with the shared limiter unreachable, every route keeps
// serving with a limit counted in this replica (public reads, login,
// registration, key reads and writes), and the outage is reported once,
// as is Redis's return.
func TestRedisDown(t *testing.T) {
	t.Parallel()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 50 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { client.Close() })
	fallbacks, changes := 0, []bool{}
	limiter := &ratelimit.Fallback{Primary: ratelimit.NewRedis(client, "guide:"), Local: ratelimit.NewMemory(clock.NewFake(time.Now())),
		OnFallback: func(error) { fallbacks++ }, OnChange: func(down bool, _ error) { changes = append(changes, down) }}
	e := newEnv(t, options{limiter: limiter, authLimit: 3})

	e.Get("/api/v1/experts").Expect(200)
	e.Get("/api/v1/cities").Expect(200)
	if fallbacks != 2 {
		t.Errorf("%d fallbacks for 2 public reads", fallbacks)
	}
	e.Do("POST", "/api/v1/auth/register", map[string]any{"email": "a@example.com", "password": "12345678", "name": "Al", "role": "TOURIST"}).Expect(201)
	e.Do("POST", "/api/v1/auth/login", map[string]any{"email": "a@example.com", "password": "12345678"}).Expect(200)
	e.Do("POST", "/api/v1/auth/login", map[string]any{"email": "a@example.com", "password": "12345678"}).Expect(200)
	// The replica's own count still limits: the fourth attempt of the
	// client IP within the window is refused.
	e.Do("POST", "/api/v1/auth/login", map[string]any{"email": "a@example.com", "password": "12345678"}).Expect(429)
	if n := e.count(t, `SELECT COUNT(*) FROM users WHERE email_normalized = 'a@example.com'`); n != 1 {
		t.Errorf("%d accounts registered", n)
	}
	u := e.tokenFor(t, "traveller@example.com")
	key := e.apiKey(t, u, "bookings:read", "bookings:write")
	e.Get("/api/v1/bookings", bearer(key)...).Expect(200)
	e.Do("POST", "/api/v1/bookings", map[string]any{"expertId": "00000000-0000-7000-8000-000000000000", "scheduledDate": "2027-01-01T10:00:00Z"}, bearer(key)...).Expect(404)
	if len(changes) != 1 || !changes[0] {
		t.Errorf("outage reported as %v; want once", changes)
	}
}
