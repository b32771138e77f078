package guidehttp_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wayfarer-asia/platform/internal/platform/auth"
)

type tokenBody struct {
	Token string
	User  struct {
		ID, Email, Role string
		Name            *string
	}
}

func TestRegisterAndLogin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})

	// 201: a tourist registers and the token works at once.
	var reg tokenBody
	e.Do("POST", "/api/v1/auth/register", map[string]string{
		"email": "Mei.Lin@Example.com", "password": "correct-horse-1", "name": "Mei Lin", "role": "TOURIST",
	}).Expect(201).Decode(&reg)
	if diff := cmp.Diff(map[string]any{"token": true, "role": "TOURIST", "email": "Mei.Lin@Example.com", "name": "Mei Lin"},
		map[string]any{"token": reg.Token != "", "role": reg.User.Role, "email": reg.User.Email, "name": *reg.User.Name}); diff != "" {
		t.Fatalf("register (-want +got):\n%s", diff)
	}
	var me struct{ User struct{ ID, Email string } }
	e.Get("/api/v1/auth/me", bearer(reg.Token)...).Expect(200).Decode(&me)
	if me.User.ID != reg.User.ID {
		t.Fatalf("me: %+v", me)
	}
	var hash string
	if err := e.db.QueryRow(`SELECT password_hash FROM users WHERE id = $1`, reg.User.ID).Scan(&hash); err != nil || !strings.HasPrefix(hash, "$argon2id$") {
		t.Fatalf("stored password %q, %v", hash, err)
	}

	// 201: an expert registration creates an unverified expert with a handle.
	exp := e.register(t, "guide@example.com", "EXPERT")
	var handle string
	var verified *time.Time
	if err := e.db.QueryRow(`SELECT u.handle, e.verified_at FROM experts e JOIN users u ON u.id = e.user_id WHERE u.id = $1`, exp.id).Scan(&handle, &verified); err != nil || handle == "" || verified != nil {
		t.Fatalf("expert profile: handle %q verified %v err %v", handle, verified, err)
	}
	e.Get("/api/v1/experts/" + handle).Expect(404)

	// 409: the same e-mail in another case.
	res := e.Do("POST", "/api/v1/auth/register", map[string]string{
		"email": "mei.lin@EXAMPLE.com", "password": "another-pass", "name": "Other", "role": "TOURIST",
	}).Expect(409)
	if res.ErrorCode() != "EMAIL_ALREADY_REGISTERED" {
		t.Errorf("duplicate e-mail: %s", res.ErrorCode())
	}
	if n := e.count(t, `SELECT COUNT(*) FROM users WHERE email_normalized = 'mei.lin@example.com'`); n != 1 {
		t.Errorf("%d accounts with the e-mail", n)
	}

	// 200: login in any case of the e-mail.
	var login tokenBody
	e.Do("POST", "/api/v1/auth/login", map[string]string{"email": "MEI.LIN@example.com", "password": "correct-horse-1"}).Expect(200).Decode(&login)
	if login.User.ID != reg.User.ID || login.Token == "" {
		t.Fatalf("login: %+v", login)
	}

	// 401: a wrong password and an unknown e-mail answer alike.
	wrong := e.Do("POST", "/api/v1/auth/login", map[string]string{"email": "mei.lin@example.com", "password": "wrong-horse-1"}).Expect(401)
	unknown := e.Do("POST", "/api/v1/auth/login", map[string]string{"email": "nobody@example.com", "password": "wrong-horse-1"}).Expect(401)
	if a, b := wrong.JSON()["error"].(map[string]any), unknown.JSON()["error"].(map[string]any); a["message"] != b["message"] || a["code"] != b["code"] {
		t.Errorf("login failures differ: %v vs %v", a, b)
	}
}

func TestRegisterBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	valid := func() map[string]any {
		return map[string]any{"email": "a@example.com", "password": "12345678", "name": "Al", "role": "TOURIST"}
	}
	with := func(k string, v any) map[string]any { m := valid(); m[k] = v; return m }
	without := func(k string) map[string]any { m := valid(); delete(m, k); return m }
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"missing email", without("email"), "email"},
		{"missing password", without("password"), "password"},
		{"missing name", without("name"), "name"},
		{"missing role", without("role"), "role"},
		{"bad email", with("email", "not-an-email"), "email"},
		{"email with name", with("email", "Al <a@example.com>"), "email"},
		{"short password", with("password", "1234567"), "password"},
		{"short name", with("name", " A "), "name"},
		{"admin role", with("role", "ADMIN"), "role"},
		{"lower-case role", with("role", "tourist"), "role"},
		{"number as email", with("email", 42), "email"},
		{"unknown field", with("isAdmin", true), "isAdmin"},
		{"malformed JSON", `{"email": "a@example.com",`, "body"},
		{"array", `[]`, "body"},
		{"empty body", ``, "body"},
		{"two objects", `{"email":"a@example.com"} {}`, "body"},
	}
	for _, c := range cases {
		res := e.Do("POST", "/api/v1/auth/register", c.body).Expect(400)
		if res.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: code %s", c.name, res.ErrorCode())
		}
		if _, ok := res.ErrorDetails()[c.field]; !ok {
			t.Errorf("%s: details %v lack %s", c.name, res.ErrorDetails(), c.field)
		}
	}
	if n := e.count(t, `SELECT COUNT(*) FROM users`); n != 0 {
		t.Errorf("bad registrations created %d accounts", n)
	}
	e.Do("POST", "/api/v1/auth/register", map[string]any{"email": "a@example.com", "password": "1234567890", "name": "Al", "role": "TOURIST"}).Expect(201)
	d := e.Do("POST", "/api/v1/auth/register", map[string]any{"email": "x", "password": "1"}).Expect(400).ErrorDetails()
	if len(d) != 4 {
		t.Errorf("details %v, want four fields", d)
	}
	for _, f := range []string{"email", "password", "name", "role"} {
		if _, ok := d[f]; !ok {
			t.Errorf("all-bad body: details %v lack %s", d, f)
		}
	}
	e.Do("POST", "/api/v1/auth/login", map[string]any{"email": "a@example.com", "password": "short"}).Expect(400)
	e.Do("POST", "/api/v1/auth/register", "email=a", "Content-Type", "application/x-www-form-urlencoded").Expect(400)
	e.Do("POST", "/api/v1/auth/login", "--x\r\n", "Content-Type", "multipart/form-data; boundary=x").Expect(415)
	// A JSON body under a form content type (what curl -d sends) is read.
	e.Do("POST", "/api/v1/auth/register", `{"email":"curl@example.com","password":"12345678","name":"Curl","role":"TOURIST"}`,
		"Content-Type", "application/x-www-form-urlencoded").Expect(201)
	big := `{"email":"a@example.com","password":"` + strings.Repeat("x", 70<<10) + `"}`
	if res := e.Do("POST", "/api/v1/auth/login", big).Expect(413); res.ErrorCode() != "PAYLOAD_TOO_LARGE" {
		t.Errorf("large body: %s", res.ErrorCode())
	}
}

func TestAuthRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true, authLimit: 2})
	body := map[string]string{"email": "nobody@example.com", "password": "whatever-1"}
	e.Do("POST", "/api/v1/auth/login", body).Expect(401)
	e.Do("POST", "/api/v1/auth/register", map[string]string{"email": "n@example.com", "password": "whatever-1", "name": "Nn", "role": "TOURIST"}).Expect(201)
	res := e.Do("POST", "/api/v1/auth/login", body).Expect(429)
	if res.Header.Get("X-RateLimit-Limit") != "2" || res.Header.Get("Retry-After") != "450" {
		t.Errorf("auth 429 headers: limit %q retry %q", res.Header.Get("X-RateLimit-Limit"), res.Header.Get("Retry-After"))
	}
	e.Do("POST", "/api/v1/auth/idp-a", map[string]string{"idToken": "x"}).Expect(429)
	// Public reads have their own budget.
	e.Get("/api/v1/cities").Expect(200)
	e.clock.Advance(450 * time.Second)
	e.Do("POST", "/api/v1/auth/login", body).Expect(401)
}

func TestDemoPasswords(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	login := map[string]string{"email": "traveller@example.com", "password": "demo-password"}
	e.Do("POST", "/api/v1/auth/login", login).Expect(401)
	hash, _ := auth.HashPassword(t.Context(), "demo-password")
	if err := e.store.SetDemoPasswords(t.Context(), hash); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ email, role string }{{"traveller@example.com", "TOURIST"}, {"expert@example.com", "EXPERT"}, {"admin@example.com", "ADMIN"}} {
		var tb tokenBody
		e.Do("POST", "/api/v1/auth/login", map[string]string{"email": c.email, "password": "demo-password"}).Expect(200).Decode(&tb)
		if tb.User.Role != c.role {
			t.Errorf("%s: role %s", c.email, tb.User.Role)
		}
	}
	if err := e.store.SetDemoPasswords(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	e.Do("POST", "/api/v1/auth/login", login).Expect(401)
}

func TestUserTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	u := e.register(t, "token@example.com", "TOURIST")
	e.Get("/api/v1/auth/me", bearer(u.token)...).Expect(200)

	parts := strings.Split(u.token, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), u.id, "someone-else", 1))) + "." + parts[2]
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	sign := func(m jwt.SigningMethod, key any, claims jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(m, claims).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := e.clock.Now()
	good := jwt.MapClaims{"iss": "wayfarer-guide", "sub": u.id, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	secret := []byte("test-secret-test-secret-test-secret!")
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	claimsWith := func(k string, v any) jwt.MapClaims {
		c := jwt.MapClaims{}
		for kk, vv := range good {
			c[kk] = vv
		}
		c[k] = v
		return c
	}
	forged := map[string]string{
		"alg none":        none,
		"tampered":        tampered,
		"wrong secret":    sign(jwt.SigningMethodHS256, []byte("another-secret-another-secret-123"), good),
		"HS512":           sign(jwt.SigningMethodHS512, secret, good),
		"RS256":           sign(jwt.SigningMethodRS256, rsaKey, good),
		"expired":         sign(jwt.SigningMethodHS256, secret, claimsWith("exp", now.Add(-time.Minute).Unix())),
		"no expiry":       sign(jwt.SigningMethodHS256, secret, jwt.MapClaims{"iss": "wayfarer-guide", "sub": u.id}),
		"wrong issuer":    sign(jwt.SigningMethodHS256, secret, claimsWith("iss", "someone")),
		"future iat":      sign(jwt.SigningMethodHS256, secret, claimsWith("iat", now.Add(time.Hour).Unix())),
		"not yet valid":   sign(jwt.SigningMethodHS256, secret, claimsWith("nbf", now.Add(time.Hour).Unix())),
		"empty":           ".",
		"unknown subject": sign(jwt.SigningMethodHS256, secret, claimsWith("sub", "00000000-0000-7000-8000-000000000000")),
		"garbage":         "not.a.token",
		"over-long":       strings.Repeat("a", 5000),
	}
	if e.Get("/api/v1/auth/me", bearer(sign(jwt.SigningMethodHS256, secret, good))...).Status != 200 {
		t.Fatal("the control token is refused; the forged cases prove nothing")
	}
	for name, tok := range forged {
		if res := e.Get("/api/v1/auth/me", bearer(tok)...); res.Status != 401 || res.ErrorCode() != "UNAUTHORIZED" {
			t.Errorf("%s: status %d %s", name, res.Status, res.Body)
		}
	}
	for _, h := range []string{"", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Token " + u.token} {
		if res := e.Get("/api/v1/auth/me", "Authorization", h); res.Status != 401 {
			t.Errorf("Authorization %q: %d", h, res.Status)
		}
	}

	// A token expires after 30 days.
	e.clock.Advance(30*24*time.Hour - time.Minute)
	e.Get("/api/v1/auth/me", bearer(u.token)...).Expect(200)
	e.clock.Advance(2 * time.Minute)
	e.Get("/api/v1/auth/me", bearer(u.token)...).Expect(401)

	// A token stops working as soon as its account is closed.
	v := e.register(t, "closing@example.com", "TOURIST")
	if _, err := e.db.Exec(`UPDATE users SET deleted_at = $1 WHERE id = $2`, e.clock.Now(), v.id); err != nil {
		t.Fatal(err)
	}
	e.Get("/api/v1/auth/me", bearer(v.token)...).Expect(401)
}

func TestIdentityProviders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	p := e.idp
	now := e.clock.Now()
	signIn := func(path string, body map[string]any) *tokenBody {
		var tb tokenBody
		e.Do("POST", path, body).Expect(200).Decode(&tb)
		return &tb
	}

	// First sign-in creates a TOURIST; later ones find it by subject even
	// when the e-mail changed.
	first := signIn("/api/v1/auth/idp-a", map[string]any{"idToken": p.token(t, jwt.SigningMethodRS256, "rsa-1", p.claims(now, "sub-1", "first@example.com"))})
	again := signIn("/api/v1/auth/idp-a", map[string]any{"idToken": p.token(t, jwt.SigningMethodRS256, "rsa-1", p.claims(now, "sub-1", "changed@example.com"))})
	if first.User.Role != "TOURIST" || first.User.ID != again.User.ID || first.Token == "" {
		t.Fatalf("idp-a sign-ins: %+v then %+v", first.User, again.User)
	}
	e.Get("/api/v1/auth/me", bearer(first.Token)...).Expect(200)

	// ES256 works; an existing password account with the same verified
	// e-mail is linked, not duplicated.
	pw := e.register(t, "linked@example.com", "TOURIST")
	ec := p.claims(now, "sub-ec", "Linked@Example.com")
	ec["aud"] = []string{"other-app", "client-a-web"}
	linked := signIn("/api/v1/auth/idp-a", map[string]any{"idToken": p.token(t, jwt.SigningMethodES256, "ec-1", ec)})
	if linked.User.ID != pw.id {
		t.Errorf("verified e-mail not linked: %s vs %s", linked.User.ID, pw.id)
	}
	// An unverified e-mail is not trusted for linking.
	unv := p.claims(now, "sub-unverified", "linked@example.com")
	unv["email_verified"] = false
	if other := signIn("/api/v1/auth/idp-a", map[string]any{"idToken": p.token(t, jwt.SigningMethodRS256, "rsa-1", unv)}); other.User.ID == pw.id {
		t.Error("an unverified e-mail took over a password account")
	}

	// The second provider: fullName names the new account.
	b := p.claims(now, "apple-sub", "b@example.com")
	b["iss"], b["aud"] = p.issuerB, "client-b"
	nb := signIn("/api/v1/auth/idp-b", map[string]any{"identityToken": p.token(t, jwt.SigningMethodES256, "ec-1", b),
		"fullName": map[string]any{"givenName": "Hana", "familyName": "Sato"}})
	if nb.User.Name == nil || *nb.User.Name != "Hana Sato" {
		t.Errorf("idp-b name: %v", nb.User.Name)
	}
	signIn("/api/v1/auth/idp-b", map[string]any{"identityToken": p.token(t, jwt.SigningMethodES256, "ec-1", b), "fullName": nil})
	if n := e.count(t, `SELECT COUNT(*) FROM identities WHERE provider = 'idp-b' AND subject = 'apple-sub'`); n != 1 {
		t.Errorf("%d identity links", n)
	}

	// 401 for every forged or unfit token.
	with := func(k string, v any) jwt.MapClaims {
		c := p.claims(now, "sub-x", "x@example.com")
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	otherKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	wrongKey, _ := jwt.NewWithClaims(jwt.SigningMethodRS256, p.claims(now, "sub-x", "x@example.com")).SignedString(otherKey)
	hsConfusion, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, p.claims(now, "sub-x", "x@example.com")).SignedString(p.rsaKey.N.Bytes())
	valid := p.token(t, jwt.SigningMethodRS256, "rsa-1", p.claims(now, "sub-x", "x@example.com"))
	vp := strings.Split(valid, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(vp[1])
	tampered := vp[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), "sub-x", "sub-1", 1))) + "." + vp[2]
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"rsa-1"}`)) + "." + vp[1] + "."
	bad := map[string]string{
		"wrong issuer":   p.token(t, jwt.SigningMethodRS256, "rsa-1", with("iss", "https://evil.test")),
		"wrong audience": p.token(t, jwt.SigningMethodRS256, "rsa-1", with("aud", "someone-else")),
		"no audience":    p.token(t, jwt.SigningMethodRS256, "rsa-1", with("aud", nil)),
		"empty audience": p.token(t, jwt.SigningMethodRS256, "rsa-1", with("aud", []string{})),
		"expired":        p.token(t, jwt.SigningMethodRS256, "rsa-1", with("exp", now.Add(-2*time.Minute).Unix())),
		"no expiry":      p.token(t, jwt.SigningMethodRS256, "rsa-1", with("exp", nil)),
		"not yet valid":  p.token(t, jwt.SigningMethodRS256, "rsa-1", with("nbf", now.Add(5*time.Minute).Unix())),
		"no subject":     p.token(t, jwt.SigningMethodRS256, "rsa-1", with("sub", nil)),
		"unknown kid":    p.token(t, jwt.SigningMethodRS256, "rsa-9", p.claims(now, "sub-x", "x@example.com")),
		"kid with path":  p.token(t, jwt.SigningMethodRS256, "../../etc/passwd", p.claims(now, "sub-x", "x@example.com")),
		"kid with SQL":   p.token(t, jwt.SigningMethodRS256, "' OR 1=1 --", p.claims(now, "sub-x", "x@example.com")),
		"no kid":         wrongKey,
		"wrong key": func() string {
			tk := jwt.NewWithClaims(jwt.SigningMethodRS256, p.claims(now, "sub-x", "x@example.com"))
			tk.Header["kid"] = "rsa-1"
			s, _ := tk.SignedString(otherKey)
			return s
		}(),
		"HS256 with the public key": func() string {
			tk := jwt.NewWithClaims(jwt.SigningMethodHS256, p.claims(now, "sub-x", "x@example.com"))
			tk.Header["kid"] = "rsa-1"
			s, _ := tk.SignedString(p.rsaKey.N.Bytes())
			return s
		}(),
		"HS256 no kid": hsConfusion,
		"tampered":     tampered,
		"alg none":     none,
		"garbage":      "abc.def.ghi",
	}
	// Leeway: a token expired 30 s ago is still accepted.
	lenient := p.claims(now, "sub-leeway", "leeway@example.com")
	lenient["exp"] = now.Add(-30 * time.Second).Unix()
	signIn("/api/v1/auth/idp-a", map[string]any{"idToken": p.token(t, jwt.SigningMethodRS256, "rsa-1", lenient)})
	for name, tok := range bad {
		res := e.Do("POST", "/api/v1/auth/idp-a", map[string]any{"idToken": tok})
		if res.Status != 401 || res.ErrorCode() != "UNAUTHORIZED" {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	// Key-location headers are never followed: a listener they point at
	// sees no request, and the token signed with the attacker's key fails.
	var lured atomic.Int32
	lure := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { lured.Add(1) }))
	defer lure.Close()
	for _, h := range []string{"jku", "x5u"} {
		tk := jwt.NewWithClaims(jwt.SigningMethodRS256, p.claims(now, "sub-x", "x@example.com"))
		tk.Header["kid"] = "attacker"
		tk.Header[h] = lure.URL + "/keys"
		signed, _ := tk.SignedString(otherKey)
		e.Do("POST", "/api/v1/auth/idp-a", map[string]any{"idToken": signed}).Expect(401)
	}
	if lured.Load() != 0 {
		t.Errorf("a jku/x5u header made the server fetch %d times", lured.Load())
	}
	// An over-long token is refused without work.
	e.Do("POST", "/api/v1/auth/idp-a", map[string]any{"idToken": strings.Repeat("a", 20<<10)}).Expect(400)

	// A provider-A token is not a provider-B token.
	e.Do("POST", "/api/v1/auth/idp-b", map[string]any{"identityToken": valid}).Expect(401)
	if n := e.count(t, `SELECT COUNT(*) FROM identities WHERE subject = 'sub-x'`); n != 0 {
		t.Errorf("refused tokens created %d links", n)
	}
	// Unknown kids do not hammer the provider: one refresh per interval.
	if f := p.fetches.Load(); f > 3 {
		t.Errorf("JWKS fetched %d times", f)
	}

	e.Do("POST", "/api/v1/auth/idp-a", map[string]any{}).Expect(400)
	e.Do("POST", "/api/v1/auth/idp-b", map[string]any{"identityToken": valid, "fullName": "Hana"}).Expect(400)
}

func TestIdentityProviderNotConfigured(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true, noIdP: true})
	res := e.Do("POST", "/api/v1/auth/idp-a", map[string]any{"idToken": "x.y.z"}).Expect(401)
	if msg := res.JSON()["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "not configured") {
		t.Errorf("message %q", msg)
	}
	e.Do("POST", "/api/v1/auth/idp-b", map[string]any{"identityToken": "x.y.z"}).Expect(401)
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	u := e.register(t, "agent-owner@example.com", "TOURIST")
	other := e.register(t, "other@example.com", "TOURIST")

	var created struct {
		Data struct {
			ID, Key, KeyPrefix, Name string
			Scopes                   []string
		}
		Warning string
	}
	e.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "trip agent", "scopes": []string{"profile:read", "bookings:read", "profile:read"}, "rateLimit": 3},
		bearer(u.token)...).Expect(201).Decode(&created)
	key := created.Data.Key
	if diff := cmp.Diff(map[string]any{"live": true, "long": true, "prefix": true, "warning": true, "scopes": []string{"bookings:read", "profile:read"}},
		map[string]any{"live": strings.HasPrefix(key, "pk_live_"), "long": len(key) >= 40, "prefix": strings.HasPrefix(key, created.Data.KeyPrefix),
			"warning": created.Warning != "", "scopes": slices.Sorted(slices.Values(created.Data.Scopes))}); diff != "" {
		t.Fatalf("created (-want +got):\n%s", diff)
	}
	var stored string
	if err := e.db.QueryRow(`SELECT key_hash FROM api_keys WHERE id = $1`, created.Data.ID).Scan(&stored); err != nil || stored != auth.HashAPIKey(key) || strings.Contains(stored, key) {
		t.Fatalf("stored %q: %v", stored, err)
	}
	var test struct{ Data struct{ Key string } }
	e.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "sandbox", "scopes": []string{"experts:read"}, "mode": "test", "expiresInDays": 1},
		bearer(u.token)...).Expect(201).Decode(&test)
	if !strings.HasPrefix(test.Data.Key, "pk_test_") {
		t.Errorf("test key %q", test.Data.Key)
	}

	// The key works where its scope allows, within its rate limit.
	res := e.Get("/api/v1/profile", bearer(key)...).Expect(200)
	if res.Header.Get("X-RateLimit-Limit") != "3" || res.Header.Get("X-RateLimit-Remaining") != "2" {
		t.Errorf("key rate headers: %q %q", res.Header.Get("X-RateLimit-Limit"), res.Header.Get("X-RateLimit-Remaining"))
	}
	e.Get("/api/v1/profile", bearer(key)...).Expect(200)
	e.Get("/api/v1/profile", bearer(key)...).Expect(200)
	if res := e.Get("/api/v1/profile", bearer(key)...).Expect(429); res.Header.Get("Retry-After") != "20" {
		t.Errorf("key 429 Retry-After %q", res.Header.Get("Retry-After"))
	}
	e.Get("/api/v1/profile", bearer(u.token)...).Expect(200) // the owner's token is not limited by the key

	// 403: a key without the scope, with the scope named.
	res = e.Get("/api/v1/profile", bearer(test.Data.Key)...).Expect(403)
	if res.ErrorCode() != "INSUFFICIENT_SCOPE" || res.ErrorDetails()["requiredScope"] != "profile:read" {
		t.Errorf("scope error: %s", res.Body)
	}
	// 403: a key never manages keys nor reaches user-token-only endpoints.
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/v1/auth/api-keys"}, {"POST", "/api/v1/auth/api-keys"}, {"DELETE", "/api/v1/auth/api-keys/" + created.Data.ID},
		{"GET", "/api/v1/auth/me"}, {"POST", "/api/v1/auth/session-exchange"}, {"POST", "/api/push/register"},
	} {
		var body any
		if c.method == "POST" {
			body = map[string]any{"name": "x", "scopes": []string{"profile:read"}, "token": "t"}
		}
		if res := e.Do(c.method, c.path, body, bearer(test.Data.Key)...); res.Status != 403 {
			t.Errorf("key on %s %s: %d", c.method, c.path, res.Status)
		}
	}

	// List: active keys only, with lastUsedAt, never the key or its hash.
	var list struct {
		Data []struct {
			ID, Name, KeyPrefix string
			Scopes              []string
			RateLimit           int
			LastUsedAt          *time.Time
			ExpiresAt           *time.Time
		}
	}
	res = e.Get("/api/v1/auth/api-keys", bearer(u.token)...).Expect(200)
	res.Decode(&list)
	if len(list.Data) != 2 || strings.Contains(string(res.Body), key) || strings.Contains(string(res.Body), stored) {
		t.Fatalf("list: %s", res.Body)
	}
	for _, k := range list.Data {
		if k.ID == created.Data.ID && (k.LastUsedAt == nil || k.RateLimit != 3) {
			t.Errorf("used key: %+v", k)
		}
		if k.ID != created.Data.ID && (k.ExpiresAt == nil || k.LastUsedAt != nil) {
			t.Errorf("sandbox key: %+v", k)
		}
	}
	// lastUsedAt reaches the database when the usage is flushed, not per request.
	var dbUsed *time.Time
	if err := e.db.QueryRow(`SELECT last_used_at FROM api_keys WHERE id = $1`, created.Data.ID).Scan(&dbUsed); err != nil {
		t.Fatal(err)
	}
	if dbUsed != nil {
		t.Error("lastUsedAt written on the request path")
	}
	if err := e.store.TouchAPIKeys(t.Context(), e.keyUsage.Take()); err != nil {
		t.Fatal(err)
	}
	if err := e.db.QueryRow(`SELECT last_used_at FROM api_keys WHERE id = $1`, created.Data.ID).Scan(&dbUsed); err != nil {
		t.Fatal(err)
	}
	if dbUsed == nil {
		t.Error("lastUsedAt not flushed")
	}

	// An expired key is refused and no longer listed.
	e.clock.Advance(25 * time.Hour)
	e.Get("/api/v1/profile", bearer(test.Data.Key)...).Expect(401)
	e.Get("/api/v1/auth/api-keys", bearer(u.token)...).Expect(200).Decode(&list)
	if len(list.Data) != 1 {
		t.Errorf("%d keys listed after expiry", len(list.Data))
	}

	// Revoke: another user cannot; the owner can, once; the key then fails.
	e.Do("DELETE", "/api/v1/auth/api-keys/"+created.Data.ID, nil, bearer(other.token)...).Expect(404)
	var revoked struct {
		Data struct {
			ID      string
			Revoked bool
		}
	}
	e.Do("DELETE", "/api/v1/auth/api-keys/"+created.Data.ID, nil, bearer(u.token)...).Expect(200).Decode(&revoked)
	if !revoked.Data.Revoked || revoked.Data.ID != created.Data.ID {
		t.Errorf("revoke: %+v", revoked)
	}
	e.Do("DELETE", "/api/v1/auth/api-keys/"+created.Data.ID, nil, bearer(u.token)...).Expect(404)
	e.clock.Advance(time.Minute)
	e.Get("/api/v1/profile", bearer(key)...).Expect(401)
	e.Get("/api/v1/profile", bearer("pk_live_doesnotexist")...).Expect(401)

	// 400s of key creation.
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"scopes": []string{"profile:read"}}, "name"},
		{map[string]any{"name": "x"}, "scopes"},
		{map[string]any{"name": "x", "scopes": []string{}}, "scopes"},
		{map[string]any{"name": "x", "scopes": []string{"admin:all"}}, "scopes"},
		{map[string]any{"name": "x", "scopes": []string{"profile:read"}, "rateLimit": 0}, "rateLimit"},
		{map[string]any{"name": "x", "scopes": []string{"profile:read"}, "rateLimit": 1001}, "rateLimit"},
		{map[string]any{"name": "x", "scopes": []string{"profile:read"}, "expiresInDays": 0}, "expiresInDays"},
		{map[string]any{"name": "x", "scopes": []string{"profile:read"}, "expiresInDays": 366}, "expiresInDays"},
		{map[string]any{"name": "x", "scopes": []string{"profile:read"}, "mode": "prod"}, "mode"},
		{map[string]any{"name": "x", "scopes": "profile:read"}, "scopes"},
	} {
		res := e.Do("POST", "/api/v1/auth/api-keys", c.body, bearer(u.token)...).Expect(400)
		if _, ok := res.ErrorDetails()[c.field]; !ok {
			t.Errorf("%v: details %v", c.body, res.ErrorDetails())
		}
	}
	// 401 without credentials.
	e.Get("/api/v1/auth/api-keys").Expect(401)
	e.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "x", "scopes": []string{"profile:read"}}).Expect(401)
}

func TestSessionCookie(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	u := e.register(t, "web@example.com", "TOURIST")
	e.Do("POST", "/api/v1/auth/session-exchange", nil).Expect(401)
	res := e.Do("POST", "/api/v1/auth/session-exchange", nil, bearer(u.token)...).Expect(200)
	if res.JSON()["success"] != true {
		t.Fatalf("exchange: %s", res.Body)
	}
	cookies := (&http.Response{Header: res.Header}).Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies: %+v", cookies)
	}
	if diff := cmp.Diff(map[string]any{"name": "gm_session", "httpOnly": true, "sameSite": http.SameSiteLaxMode, "secure": false},
		map[string]any{"name": cookies[0].Name, "httpOnly": cookies[0].HttpOnly, "sameSite": cookies[0].SameSite, "secure": cookies[0].Secure}); diff != "" {
		t.Fatalf("cookie (-want +got):\n%s", diff)
	}
	cookie := "gm_session=" + cookies[0].Value
	if n := e.count(t, `SELECT COUNT(*) FROM sessions WHERE id_hash = $1`, cookies[0].Value); n != 0 {
		t.Error("the session is stored in clear")
	}

	// The cookie registers a push token from our own origin (platform WEB).
	var reg struct{ Data struct{ Platform string } }
	e.Do("POST", "/api/push/register", map[string]any{"token": "web-token-1"}, "Cookie", cookie, "Sec-Fetch-Site", "same-origin").Expect(200).Decode(&reg)
	if reg.Data.Platform != "WEB" {
		t.Errorf("platform %q", reg.Data.Platform)
	}
	// A cross-site request riding on the cookie is refused.
	e.Do("POST", "/api/push/register", map[string]any{"token": "evil"}, "Cookie", cookie, "Sec-Fetch-Site", "cross-site").Expect(403)
	e.Do("POST", "/api/push/register", map[string]any{"token": "evil"}, "Cookie", cookie, "Origin", "https://evil.example").Expect(403)
	// A foreign Origin is refused whatever Sec-Fetch-Site claims: "none"
	// (a user's own navigation) does not vouch for a request another origin
	// sent, and neither does a contradicting "same-origin".
	for _, site := range []string{"none", "same-origin"} {
		for _, origin := range []string{"https://evil.example", "null", "http://example.com:8080"} {
			res := e.Do("POST", "/api/push/register", map[string]any{"token": "evil"}, "Cookie", cookie, "Sec-Fetch-Site", site, "Origin", origin)
			if res.Status != 403 || res.ErrorCode() != "FORBIDDEN" {
				t.Errorf("Sec-Fetch-Site %s, Origin %s: %d %s", site, origin, res.Status, res.Body)
			}
		}
	}
	// Our own origin with "none" still works (platform WEB, token stored).
	e.Do("POST", "/api/push/register", map[string]any{"token": "web-token-own"}, "Cookie", cookie, "Sec-Fetch-Site", "none", "Origin", "http://example.com").Expect(200)
	if n := e.count(t, `SELECT COUNT(*) FROM push_tokens WHERE token = 'web-token-own'`); n != 1 {
		t.Error("a same-origin request did not register its token")
	}
	if n := e.count(t, `SELECT COUNT(*) FROM push_tokens WHERE token = 'evil'`); n != 0 {
		t.Error("a cross-site request registered a token")
	}
	// The cookie is not accepted where the spec wants a bearer token.
	e.Get("/api/v1/auth/me", "Cookie", cookie).Expect(401)
	e.Do("POST", "/api/push/register", map[string]any{"token": "t"}, "Cookie", "gm_session=forged").Expect(401)
	// It ends with the session's lifetime.
	e.clock.Advance(31 * 24 * time.Hour)
	e.Do("POST", "/api/push/register", map[string]any{"token": "web-token-2"}, "Cookie", cookie, "Sec-Fetch-Site", "same-origin").Expect(401)

	// Behind a TLS proxy the cookie is Secure.
	s := newEnv(t, options{noSample: true, trustedProxies: trusted("10.0.0.0/8")})
	s.RemoteAddr = "10.0.0.5:443"
	v := s.register(t, "tls@example.com", "TOURIST")
	res = s.Do("POST", "/api/v1/auth/session-exchange", nil, append(bearer(v.token), "X-Forwarded-Proto", "https")...).Expect(200)
	if c := (&http.Response{Header: res.Header}).Cookies(); len(c) != 1 || !c[0].Secure {
		t.Errorf("cookie over TLS: %+v", c)
	}
}
