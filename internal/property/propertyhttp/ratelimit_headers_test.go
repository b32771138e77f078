package propertyhttp_test

import "testing"

func TestRateLimitDraftHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{keyLimit: 2})
	d := e.signup(t)
	key := e.key(t, d, "test")
	for _, want := range []string{`"per-key";r=1;t=30`, `"per-key";r=0;t=60`} {
		res := e.Get("/api/v1/properties?pageSize=1", xkey(key)...).Expect(200)
		if res.Header.Get("RateLimit-Policy") != `"per-key";q=2;w=60` || res.Header.Get("RateLimit") != want {
			t.Fatalf("policy %q, ratelimit %q, want %q", res.Header.Get("RateLimit-Policy"), res.Header.Get("RateLimit"), want)
		}
	}
	res := e.Get("/api/v1/properties?pageSize=1", xkey(key)...).Expect(429)
	if res.Header.Get("RateLimit") != `"per-key";r=0;t=60` || res.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("429: %v", res.Header)
	}
	// Without a key: the per-IP budget, named so.
	if res := e.Get("/api/v1/properties").Expect(401); res.Header.Get("RateLimit-Policy") != `"per-ip";q=2;w=60` {
		t.Fatalf("no key: %q", res.Header.Get("RateLimit-Policy"))
	}
}
