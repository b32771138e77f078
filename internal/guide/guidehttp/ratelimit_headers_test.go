package guidehttp_test

import (
	"testing"
	"time"
)

// The IETF draft fields describe the same budget as X-RateLimit-*.
func TestRateLimitDraftHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{publicLimit: 3, authLimit: 2, noSample: true})
	for _, want := range []string{`"per-ip";r=2;t=20`, `"per-ip";r=1;t=40`, `"per-ip";r=0;t=60`} {
		res := e.Get("/api/v1/cities").Expect(200)
		if res.Header.Get("RateLimit-Policy") != `"per-ip";q=3;w=60` || res.Header.Get("RateLimit") != want {
			t.Fatalf("policy %q, ratelimit %q, want %q", res.Header.Get("RateLimit-Policy"), res.Header.Get("RateLimit"), want)
		}
	}
	res := e.Get("/api/v1/cities").Expect(429)
	if res.Header.Get("RateLimit") != `"per-ip";r=0;t=60` || res.Header.Get("Retry-After") != "20" {
		t.Fatalf("429: %q, Retry-After %q", res.Header.Get("RateLimit"), res.Header.Get("Retry-After"))
	}
	var body struct{ Error struct{ Message string } }
	res.Decode(&body)
	if body.Error.Message != "Rate limit of 3 requests per minute exceeded; retry in 20 seconds." {
		t.Errorf("message %q", body.Error.Message)
	}
	e.clock.Advance(20 * time.Second)
	if res := e.Get("/api/v1/cities").Expect(200); res.Header.Get("RateLimit") != `"per-ip";r=0;t=60` {
		t.Errorf("after refill: %q", res.Header.Get("RateLimit"))
	}

	// The sign-in budget is its own policy, in a window of 15 minutes,
	// and its 429 says so for people.
	for range 2 {
		res := e.Do("POST", "/api/v1/auth/login", map[string]string{"email": "nobody@example.com", "password": "wrong-password-1"})
		if res.Header.Get("RateLimit-Policy") != `"auth";q=2;w=900` {
			t.Fatalf("auth policy %q", res.Header.Get("RateLimit-Policy"))
		}
	}
	res = e.Do("POST", "/api/v1/auth/login", map[string]string{"email": "nobody@example.com", "password": "wrong-password-1"}).Expect(429)
	res.Decode(&body)
	if body.Error.Message != "Rate limit of 2 requests per 15 minutes exceeded; retry in 7 minutes 30 seconds." {
		t.Errorf("message %q", body.Error.Message)
	}
}
