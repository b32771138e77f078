package propertyhttp_test

import (
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/platform/webui"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/property/propertyhttp"
)

// sessionCookie returns the pp_session cookie a response sets.
func sessionCookie(t *testing.T, h http.Header) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == propertyhttp.SessionCookie {
			return c
		}
	}
	t.Fatalf("no %s cookie in %q", propertyhttp.SessionCookie, h.Values("Set-Cookie"))
	return nil
}

// clearing is what a cookie that signs out must be: empty, expired, on the
// portal and out of reach of scripts.
func clearing(c *http.Cookie) map[string]any {
	return map[string]any{"value": c.Value, "expired": c.MaxAge < 0, "path": c.Path, "httpOnly": c.HttpOnly}
}

var clearedCookie = map[string]any{"value": "", "expired": true, "path": "/portal", "httpOnly": true}

// TestPortalSession: the page turns the token of signup or login into the
// session cookie, and signs out by clearing it.
func TestPortalSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	d := e.signup(t)
	sameOrigin := []string{"Sec-Fetch-Site", "same-origin"}

	res := e.Do("POST", "/portal/session", map[string]string{"token": d.token}, sameOrigin...).Expect(200)
	var body struct{ Developer property.Developer }
	res.Decode(&body)
	if body.Developer.ID != d.id || body.Developer.Email != d.email {
		t.Errorf("session answer: %s", res.Body)
	}
	c := sessionCookie(t, res.Header)
	gotCookie := map[string]any{"value": c.Value, "httpOnly": c.HttpOnly, "sameSite": c.SameSite, "path": c.Path, "secure": c.Secure, "maxAge": c.MaxAge}
	wantCookie := map[string]any{"value": d.token, "httpOnly": true, "sameSite": http.SameSiteStrictMode, "path": "/portal", "secure": false, "maxAge": 30 * 24 * 3600}
	if diff := cmp.Diff(wantCookie, gotCookie); diff != "" {
		t.Errorf("cookie (-want +got):\n%s", diff)
	}
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", res.Header.Get("Cache-Control"))
	}
	cookie := []string{"Cookie", propertyhttp.SessionCookie + "=" + c.Value}
	e.Get("/portal/api/me", cookie...).Expect(200)
	e.Get("/portal/api/keys", cookie...).Expect(200)

	out := e.Do("POST", "/portal/logout", nil, append(cookie, sameOrigin...)...).Expect(204)
	if diff := cmp.Diff(clearedCookie, clearing(sessionCookie(t, out.Header))); diff != "" {
		t.Errorf("logout cookie (-want +got):\n%s", diff)
	}
	// Signing out twice, or without a session, is fine.
	e.Do("POST", "/portal/logout", nil, sameOrigin...).Expect(204)

	// What the session refuses.
	key := e.key(t, d, "test")
	for _, tc := range []struct {
		body   any
		status int
		field  string
	}{
		{map[string]string{"token": "not-a-token"}, 401, ""},
		{map[string]string{"token": key}, 401, ""},
		{map[string]string{"token": d.token + "x"}, 401, ""},
		{map[string]string{}, 400, "token"},
		{map[string]string{"token": ""}, 400, "token"},
		{`{"token":"` + d.token + `","extra":1}`, 400, "extra"},
		{`not json`, 400, "body"},
	} {
		res := e.Do("POST", "/portal/session", tc.body, sameOrigin...).Expect(tc.status)
		if tc.field != "" {
			if _, ok := res.ErrorDetails()[tc.field]; !ok {
				t.Errorf("%v: %s", tc.body, res.Body)
			}
		}
		if len(res.Header.Values("Set-Cookie")) != 0 {
			t.Errorf("%v: a refused session sets a cookie", tc.body)
		}
	}
}

// TestPortalSessionProbe: GET /portal/session, which the portal page calls
// when it opens, answers 200 whether the browser is signed in or not, so a
// signed-out page makes no failing request; a cookie that no longer signs
// in is cleared.
func TestPortalSessionProbe(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			d := e.signup(t)
			type probe struct {
				SignedIn  bool                `json:"signedIn"`
				Developer *property.Developer `json:"developer"`
			}
			check := func(name string, cookie string, wantIn, wantCleared bool) {
				t.Helper()
				var h []string
				if cookie != "" {
					h = []string{"Cookie", propertyhttp.SessionCookie + "=" + cookie}
				}
				res := e.Get("/portal/session", h...).Expect(200)
				var got probe
				res.Decode(&got)
				switch {
				case got.SignedIn != wantIn:
					t.Errorf("%s: %s", name, res.Body)
				case wantIn && (got.Developer == nil || got.Developer.ID != d.id || got.Developer.Email != d.email):
					t.Errorf("%s: developer %s", name, res.Body)
				case !wantIn && (got.Developer != nil || !strings.Contains(string(res.Body), `"developer":null`)):
					t.Errorf("%s: signed out with %s", name, res.Body)
				}
				if res.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("%s: Cache-Control %q", name, res.Header.Get("Cache-Control"))
				}
				cleared := len(res.Header.Values("Set-Cookie")) > 0
				if cleared != wantCleared {
					t.Errorf("%s: Set-Cookie %q", name, res.Header.Values("Set-Cookie"))
				}
				if cleared {
					if diff := cmp.Diff(clearedCookie, clearing(sessionCookie(t, res.Header))); diff != "" {
						t.Errorf("%s: clearing cookie (-want +got):\n%s", name, diff)
					}
				}
			}

			check("no cookie", "", false, false)
			check("signed in", d.token, true, false)
			gone, _, err := e.tokens.Issue(uuid.NewString())
			if err != nil {
				t.Fatal(err)
			}
			check("an account that does not exist", gone, false, true)
			check("an API key", e.key(t, d, "test"), false, true)
			check("not a token", "not-a-token", false, true)
			// A portal token lasts 30 days.
			e.clock.Advance(31 * 24 * time.Hour)
			check("expired", d.token, false, true)
			// A bearer token is not the browser's session.
			fresh, _, err := e.tokens.Issue(d.id)
			if err != nil {
				t.Fatal(err)
			}
			var got probe
			e.Get("/portal/session", bearer(fresh)...).Expect(200).Decode(&got)
			if got.SignedIn {
				t.Error("a bearer token counts as the browser session")
			}
		})
	}
}

// TestPortalCrossSite: requests carried by the session cookie alone that
// change something must come from the portal's own origin; from another
// site (another port is another origin) they are refused and change
// nothing. Reads and bearer-token calls are not concerned.
func TestPortalCrossSite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	d := e.signup(t)
	var keys struct{ Data []property.Key }
	e.Do("POST", "/portal/api/keys", map[string]any{"name": "kept", "mode": "test"}, bearer(d.token)...).Expect(201)
	e.Get("/portal/api/keys", bearer(d.token)...).Expect(200).Decode(&keys)
	id := keys.Data[0].ID
	cookie := []string{"Cookie", propertyhttp.SessionCookie + "=" + d.token}

	foreign := [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"}, // e.g. the guide server's port
		{"Origin", "https://evil.example"},
		{"Origin", "http://example.com:8080"}, // this host, another port
		{"Origin", "null"},                    // a sandboxed frame
		// "none" or a contradicting "same-origin" does not vouch for a
		// request that another origin sent.
		{"Sec-Fetch-Site", "none", "Origin", "https://evil.example"},
		{"Sec-Fetch-Site", "same-origin", "Origin", "https://evil.example"},
	}
	writes := []struct {
		method, path string
		body         any
	}{
		{"POST", "/portal/api/keys", map[string]any{"name": "csrf", "mode": "live"}},
		{"DELETE", "/portal/api/keys/" + id, nil},
		{"POST", "/portal/api/keys/" + id + "/rotate", nil},
		{"POST", "/portal/session", map[string]string{"token": d.token}},
		{"POST", "/portal/logout", nil},
	}
	for _, w := range writes {
		for _, f := range foreign {
			res := e.Do(w.method, w.path, w.body, append(append([]string{}, cookie...), f...)...)
			if res.Status != 403 || res.ErrorCode() != "FORBIDDEN" {
				t.Errorf("%s %s with %v: %d %s", w.method, w.path, f, res.Status, res.Body)
			}
			if len(res.Header.Values("Set-Cookie")) != 0 {
				t.Errorf("%s %s with %v set a cookie", w.method, w.path, f)
			}
		}
	}
	e.Get("/portal/api/keys", bearer(d.token)...).Expect(200).Decode(&keys)
	if len(keys.Data) != 1 || keys.Data[0].ID != id || keys.Data[0].ExpiresAt != nil {
		t.Fatalf("refused requests changed the keys: %+v", keys.Data)
	}

	// Reads with the cookie work from anywhere (the browser's CORS rules
	// keep other sites from reading the answer).
	e.Get("/portal/api/me", append(append([]string{}, cookie...), "Sec-Fetch-Site", "cross-site")...).Expect(200)
	// A bearer token is not a browser's ambient credential: no origin check.
	e.Do("POST", "/portal/api/keys", map[string]any{"name": "by bearer", "mode": "test"}, append(bearer(d.token), "Sec-Fetch-Site", "cross-site")...).Expect(201)

	// The page itself: same origin, by Sec-Fetch-Site or by Origin.
	for _, same := range [][]string{{"Sec-Fetch-Site", "same-origin"}, {"Origin", "http://example.com"}} {
		h := append(append([]string{}, cookie...), same...)
		var created struct {
			ID     string `json:"id"`
			Secret string `json:"key"`
		}
		e.Do("POST", "/portal/api/keys", map[string]any{"name": "from the page", "mode": "test"}, h...).Expect(201).Decode(&created)
		var rotated struct{ ID string }
		e.Do("POST", "/portal/api/keys/"+created.ID+"/rotate", nil, h...).Expect(201).Decode(&rotated)
		e.Do("DELETE", "/portal/api/keys/"+rotated.ID, nil, h...).Expect(204)
		e.Get("/api/v1/properties?pageSize=1", xkey(created.Secret)...).Expect(200) // rotated, still working 24 h
	}
}

// TestSessionCookieSecure: the cookie is Secure when the client reached us
// over TLS, directly or through a trusted proxy; a proxy that is not
// trusted cannot claim it.
func TestSessionCookieSecure(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	d := e.signup(t)
	srv := propertyhttp.New(propertyhttp.Config{
		Service: e.svc, PublicURL: publicURL, Idempotency: e.keys,
		PortalTokens: e.tokens, Limiter: ratelimit.NewMemory(e.clock),
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)), OAuth: e.oauth,
	})
	for _, tc := range []struct {
		name       string
		remote     string
		tls        bool
		proto      string
		wantSecure bool
	}{
		{"plain HTTP", "192.0.2.1:1234", false, "", false},
		{"TLS", "192.0.2.1:1234", true, "", true},
		{"trusted proxy, https", "10.1.2.3:1234", false, "https", true},
		{"trusted proxy, http", "10.1.2.3:1234", false, "http", false},
		{"untrusted proxy claiming https", "192.0.2.1:1234", false, "https", false},
	} {
		req := httptest.NewRequest("POST", "/portal/session", strings.NewReader(`{"token":"`+d.token+`"}`))
		req.RemoteAddr = tc.remote
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if tc.tls {
			req.TLS = &tls.ConnectionState{}
		}
		if tc.proto != "" {
			req.Header.Set("X-Forwarded-Proto", tc.proto)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", tc.name, rec.Code, rec.Body)
		}
		if c := sessionCookie(t, rec.Header()); c.Secure != tc.wantSecure {
			t.Errorf("%s: Secure = %v", tc.name, c.Secure)
		}
	}
}

// TestPortalPages: the property server serves the portal, its reference
// page, and the page of every error code that doc_url points to.
func TestPortalPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	for path, csp := range map[string]string{"/portal/": webui.PortalCSP, "/docs/": webui.DocsCSP} {
		res := e.Get(path).Expect(200)
		if res.Header.Get("Content-Type") != "text/html; charset=utf-8" || res.Header.Get("Content-Security-Policy") != csp {
			t.Errorf("GET %s: %s", path, res.Header)
		}
	}
	if !strings.Contains(string(e.Get("/docs/").Body), `href="/portal/">Developer portal`) {
		t.Error("the reference does not link the portal")
	}
	if res := e.Get("/portal"); res.Status != http.StatusMovedPermanently || res.Header.Get("Location") != "/portal/" {
		t.Errorf("GET /portal: %d %s", res.Status, res.Header.Get("Location"))
	}
	e.Get("/docs/errors/").Expect(200)
	for _, c := range httpx.ErrorCodes(httpx.PropertyAPI) {
		e.Get("/docs/errors/" + c.Code).Expect(200)
	}
	// doc_url of a real error resolves here, on the configured public URL
	// whatever Host the request names.
	res := e.Get("/api/v1/properties", "Host", "attacker.example", "X-Forwarded-Host", "attacker.example", "X-Forwarded-Proto", "https").Expect(401)
	var env struct {
		Error struct {
			DocURL string `json:"doc_url"`
		} `json:"error"`
	}
	res.Decode(&env)
	path, ok := strings.CutPrefix(env.Error.DocURL, publicURL)
	if !ok || path != "/docs/errors/UNAUTHORIZED" {
		t.Fatalf("doc_url %q", env.Error.DocURL)
	}
	e.Get(path).Expect(200)
	// The pages are not behind the API key gate or its rate limit.
	if res := e.Get("/portal/"); res.Header.Get("X-RateLimit-Limit") != "" {
		t.Error("the portal page is rate limited as the API")
	}
}
