package guidehttp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// preflight sends the OPTIONS a browser sends before a cross-origin
// request with headers of its own.
func preflight(e *env, path, origin, method string) (status int, header func(string) string) {
	res := e.Do("OPTIONS", path, nil, "Origin", origin, "Access-Control-Request-Method", method,
		"Access-Control-Request-Headers", "authorization, idempotency-key, content-type")
	return res.Status, res.Header.Get
}

func TestCORSDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	const origin = "https://app.example"

	// The public catalogue: any origin, no credentials, before any limit.
	status, h := preflight(e, "/api/v1/packages?sort=basePrice", origin, "GET")
	got := map[string]any{"status": status, "allowOrigin": h("Access-Control-Allow-Origin"),
		"allowCredentials": h("Access-Control-Allow-Credentials"), "maxAge": h("Access-Control-Max-Age"), "rateLimit": h("X-RateLimit-Limit"),
		"allowsIdempotencyKey": strings.Contains(h("Access-Control-Allow-Headers"), "Idempotency-Key")}
	want := map[string]any{"status": 204, "allowOrigin": "*", "allowsIdempotencyKey": true, "allowCredentials": "", "maxAge": "600", "rateLimit": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("catalogue preflight (-want +got):\n%s", diff)
	}
	res := e.Get("/api/v1/cities", "Origin", origin).Expect(200)
	expose := res.Header.Get("Access-Control-Expose-Headers")
	gotRead := map[string]any{"allowOrigin": res.Header.Get("Access-Control-Allow-Origin"), "exposesRateLimitPolicy": strings.Contains(expose, "RateLimit-Policy"),
		"exposesRequestID": strings.Contains(expose, "X-Request-Id"), "exposesETag": strings.Contains(expose, "ETag")}
	wantRead := map[string]any{"allowOrigin": "*", "exposesRateLimitPolicy": true, "exposesRequestID": true, "exposesETag": true}
	if diff := cmp.Diff(wantRead, gotRead); diff != "" {
		t.Fatalf("catalogue read (-want +got):\n%s", diff)
	}

	// Everything else: no origin, and the preflight is answered before
	// authentication all the same (no 401).
	for _, c := range []struct{ path, method string }{{"/api/v1/bookings", "POST"}, {"/api/v1/auth/login", "POST"}, {"/api/v1/profile", "GET"}, {"/api/v1/packages", "POST"}} {
		status, h := preflight(e, c.path, origin, c.method)
		if status != 204 || h("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s %s preflight: %d, allow-origin %q", c.method, c.path, status, h("Access-Control-Allow-Origin"))
		}
	}
	if res := e.Get("/api/v1/bookings", "Origin", origin).Expect(401); res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("bookings read allows %q", res.Header.Get("Access-Control-Allow-Origin"))
	}
	// Without Origin, nothing changes.
	if res := e.Get("/api/v1/cities").Expect(200); res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("same-origin read: %v", res.Header)
	}
}

func TestCORSConfiguredOrigins(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true, corsOrigins: []string{"https://app.example"}})
	status, h := preflight(e, "/api/v1/bookings", "https://app.example", "POST")
	got := map[string]any{"status": status, "allowOrigin": h("Access-Control-Allow-Origin"), "varyOrigin": strings.Contains(h("Vary"), "Origin"),
		"allowsPOST": strings.Contains(h("Access-Control-Allow-Methods"), "POST"), "allowsAuthorization": strings.Contains(h("Access-Control-Allow-Headers"), "Authorization")}
	want := map[string]any{"status": 204, "allowOrigin": "https://app.example", "varyOrigin": true, "allowsPOST": true, "allowsAuthorization": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("allowed origin (-want +got):\n%s", diff)
	}
	res := e.Get("/api/v1/bookings", "Origin", "https://app.example").Expect(401)
	if res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("an error to an allowed origin must be readable: %v", res.Header)
	}
	// A catalogue page allowed to this origin varies by it, besides the
	// encoding, when rendered and when served from the page cache: a
	// shared cache must not give it to another origin.
	for i := range 2 {
		res := e.Get("/api/v1/packages?sort=basePrice", "Origin", "https://app.example").Expect(200)
		vary := strings.Join(res.Header.Values("Vary"), ", ")
		if res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" || !strings.Contains(vary, "Origin") || !strings.Contains(vary, "Accept-Encoding") {
			t.Errorf("catalogue read %d: allow-origin %q, Vary %q", i+1, res.Header.Get("Access-Control-Allow-Origin"), vary)
		}
	}
	// Another origin is refused everywhere, the catalogue included: the
	// list replaces the default.
	for _, path := range []string{"/api/v1/bookings", "/api/v1/packages"} {
		if status, h := preflight(e, path, "https://evil.example", "GET"); status != 204 || h("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: other origin allowed: %q", path, h("Access-Control-Allow-Origin"))
		}
	}
}
