package propertyhttp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func preflight(e *env, path, origin, method string) (int, func(string) string) {
	res := e.Do("OPTIONS", path, nil, "Origin", origin, "Access-Control-Request-Method", method, "Access-Control-Request-Headers", "x-api-key")
	return res.Status, res.Header.Get
}

func TestCORSDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	// A preflight of the key-authenticated API used to answer 401: it is
	// now answered before authentication, allowing no origin by default.
	status, h := preflight(e, "/api/v1/properties", "https://app.example", "GET")
	if status != 204 || h("Access-Control-Allow-Origin") != "" || h("X-RateLimit-Limit") != "" {
		t.Fatalf("properties preflight: %d %q", status, h("Access-Control-Allow-Origin"))
	}
	// The OpenAPI document is public.
	if status, h := preflight(e, "/api/v1/openapi.json", "https://app.example", "GET"); status != 204 || h("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("openapi preflight: %d %q", status, h("Access-Control-Allow-Origin"))
	}
	// The portal's own API is never opened by default.
	if status, h := preflight(e, "/portal/api/login", "https://app.example", "POST"); status != 204 || h("Access-Control-Allow-Origin") != "" {
		t.Fatalf("portal preflight: %d %q", status, h("Access-Control-Allow-Origin"))
	}
}

func TestCORSConfiguredOrigins(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{corsOrigins: []string{"https://app.example", "http://localhost:3000"}})
	d := e.signup(t)
	key := e.key(t, d, "test")
	status, h := preflight(e, "/api/v1/quotes", "http://localhost:3000", "POST")
	if status != 204 || h("Access-Control-Allow-Origin") != "http://localhost:3000" || !strings.Contains(h("Access-Control-Allow-Headers"), "X-API-KEY") {
		t.Fatalf("preflight: %d %q %q", status, h("Access-Control-Allow-Origin"), h("Access-Control-Allow-Headers"))
	}
	res := e.Get("/api/v1/properties?pageSize=1", append(xkey(key), "Origin", "https://app.example")...).Expect(200)
	got := map[string]any{
		"allow origin":          res.Header.Get("Access-Control-Allow-Origin"),
		"varies by origin":      strings.Contains(res.Header.Get("Vary"), "Origin"),
		"exposes replayed flag": strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "Idempotent-Replayed"),
		"allow credentials":     res.Header.Get("Access-Control-Allow-Credentials"),
	}
	want := map[string]any{"allow origin": "https://app.example", "varies by origin": true, "exposes replayed flag": true, "allow credentials": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("read (-want +got):\n%s", diff)
	}
	if res := e.Get("/api/v1/properties?pageSize=1", append(xkey(key), "Origin", "https://evil.example")...).Expect(200); res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("other origin allowed: %v", res.Header)
	}
}
