package guidehttp_test

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"mime/multipart"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// upload builds a multipart body with the file under the field name.
func upload(t *testing.T, field, filename string, data []byte) (string, []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile(field, filename)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(data)
	mw.Close()
	return mw.FormDataContentType(), body.Bytes()
}

func TestAvatarUpload(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	u := e.register(t, "avatar@example.com", "TOURIST")
	post := func(cred, field, name string, data []byte) int {
		ct, body := upload(t, field, name, data)
		return e.Do("POST", "/api/v1/profile/avatar", body, append(bearer(cred), "Content-Type", ct)...).Status
	}

	ct, body := upload(t, "file", "me.png", pngBytes(t, 64, 48))
	var res struct{ Data struct{ URL string } }
	e.Do("POST", "/api/v1/profile/avatar", body, append(bearer(u.token), "Content-Type", ct)...).Expect(200).Decode(&res)
	first, err := url.Parse(res.Data.URL)
	if err != nil || !first.IsAbs() || !strings.HasPrefix(first.Path, "/media/avatars/"+u.id+"/") {
		t.Fatalf("url %q", res.Data.URL)
	}
	img := e.Get(first.Path).Expect(200)
	if img.Header.Get("Content-Type") != "image/jpeg" || img.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("served as %q, nosniff %q", img.Header.Get("Content-Type"), img.Header.Get("X-Content-Type-Options"))
	}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Body)); err != nil || cfg.Width != 64 || cfg.Height != 48 {
		t.Errorf("served image: %+v %v", cfg, err)
	}
	var p struct{ Data guide.Profile }
	e.Get("/api/v1/profile", bearer(u.token)...).Expect(200).Decode(&p)
	if p.Data.Avatar == nil || *p.Data.Avatar != res.Data.URL {
		t.Errorf("profile avatar %v", p.Data.Avatar)
	}

	// A new avatar replaces the old file.
	var second struct{ Data struct{ URL string } }
	ct, body = upload(t, "file", "new.png", pngBytes(t, 30, 30))
	e.Do("POST", "/api/v1/profile/avatar", body, append(bearer(u.token), "Content-Type", ct)...).Expect(200).Decode(&second)
	e.Get(first.Path).Expect(404)
	next, _ := url.Parse(second.Data.URL)
	e.Get(next.Path).Expect(200)

	// Hostile and wrong uploads.
	var gifBuf bytes.Buffer
	gif.Encode(&gifBuf, image.NewPaletted(image.Rect(0, 0, 4, 4), []color.Color{color.Black, color.White}), nil)
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	for _, c := range []struct {
		name   string
		field  string
		file   string
		data   []byte
		status int
	}{
		{"GIF", "file", "a.gif", gifBuf.Bytes(), 415},
		{"SVG", "file", "a.svg", svg, 415},
		{"HTML named .jpg", "file", "a.jpg", []byte("<html><body>hi</body></html>"), 415},
		{"empty", "file", "a.png", nil, 415},
		{"wrong field", "avatar", "a.png", pngBytes(t, 8, 8), 400},
		{"over 5 MB", "file", "big.png", bytes.Repeat([]byte{0}, 6<<20), 413},
	} {
		if got := post(u.token, c.field, c.file, c.data); got != c.status {
			t.Errorf("%s: %d, want %d", c.name, got, c.status)
		}
	}
	e.Do("POST", "/api/v1/profile/avatar", `{"file":"x"}`, bearer(u.token)...).Expect(415)
	readOnly := e.apiKey(t, u, "profile:read")
	writer := e.apiKey(t, u, "profile:write")
	if got := post(readOnly, "file", "a.png", pngBytes(t, 8, 8)); got != 403 {
		t.Errorf("profile:read key: %d", got)
	}
	if got := post(writer, "file", "a.png", pngBytes(t, 8, 8)); got != 200 {
		t.Errorf("profile:write key: %d", got)
	}
	e.Get("/media/avatars/..%2F..%2Fetc%2Fpasswd").Expect(404)
	e.Get("/media/avatars/" + u.id + "%2F..%2F..%2Fguide.db").Expect(404)
	e.Get("/media/avatars/" + u.id + "/nothing.jpg").Expect(404)
}

func TestAvatarRemovedOnClosure(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	u := e.register(t, "gone@example.com", "TOURIST")
	ct, body := upload(t, "file", "me.png", pngBytes(t, 16, 16))
	e.Do("POST", "/api/v1/profile/avatar", body, append(bearer(u.token), "Content-Type", ct)...).Expect(200)
	e.Do("POST", "/api/v1/profile/delete", map[string]any{"confirmation": "DELETE"}, bearer(u.token)...).Expect(200)
	if n := e.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'blob.delete' AND payload LIKE $1`, "%avatars/"+u.id+"%"); n != 1 {
		t.Errorf("%d removal jobs for the closed account's avatar", n)
	}
}

// TestHostNeverBecomesData: an avatar uploaded with a forged Host and
// X-Forwarded-Host is stored as a path and shown on the configured public
// URL to everyone; no response ever names the forged host, and every
// catalogue image is an absolute URL on the public base.
func TestHostNeverBecomesData(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	e.Forbidden = append(e.Forbidden, "attacker.example")
	forged := []string{"Host", "attacker.example", "X-Forwarded-Host", "attacker.example", "X-Forwarded-Proto", "https"}
	expert := e.tokenFor(t, "expert@example.com")

	ct, body := upload(t, "file", "me.png", pngBytes(t, 40, 40))
	var res struct{ Data struct{ URL string } }
	e.Do("POST", "/api/v1/profile/avatar", body, append(append(bearer(expert.token), "Content-Type", ct), forged...)...).Expect(200).Decode(&res)
	var stored, key string
	if err := e.db.QueryRow(`SELECT avatar, avatar_key FROM users WHERE id = $1`, expert.id).Scan(&stored, &key); err != nil {
		t.Fatal(err)
	}
	if stored != "/media/"+key || !strings.HasPrefix(key, "avatars/"+expert.id+"/") {
		t.Fatalf("stored avatar %q, key %q: want the path of the key", stored, key)
	}
	if res.Data.URL != publicURL+stored {
		t.Errorf("upload answered %q, want %q", res.Data.URL, publicURL+stored)
	}

	// Every visitor, whatever host they name, sees it on the public URL.
	var x struct{ Data guide.ExpertDetail }
	e.Get("/api/v1/experts/demo-expert", forged...).Expect(200).Decode(&x)
	if x.Data.Avatar == nil || *x.Data.Avatar != publicURL+stored {
		t.Errorf("catalogue avatar %v, want %q", x.Data.Avatar, publicURL+stored)
	}
	var me struct{ User guide.User }
	e.Get("/api/v1/auth/me", bearer(expert.token)...).Expect(200).Decode(&me)
	if me.User.Avatar == nil || *me.User.Avatar != publicURL+stored {
		t.Errorf("auth/me avatar %v", me.User.Avatar)
	}
	res404 := e.Get("/api/v1/experts/nobody", forged...).Expect(404)
	var env struct {
		Error struct {
			DocURL string `json:"doc_url"`
		}
	}
	res404.Decode(&env)
	if env.Error.DocURL != publicURL+"/docs/errors/NOT_FOUND" {
		t.Errorf("doc_url %q", env.Error.DocURL)
	}

	// Catalogue images are absolute on the public base, for experts,
	// packages and travelogues alike.
	absolute := func(what string, refs ...*string) {
		t.Helper()
		for _, r := range refs {
			if r != nil && !strings.HasPrefix(*r, publicURL+"/media/") {
				t.Errorf("%s image %q is not on the public URL", what, *r)
			}
		}
	}
	var experts struct{ Data []guide.ExpertSummary }
	e.Get("/api/v1/experts?pageSize=100").Expect(200).Decode(&experts)
	for _, x := range experts.Data {
		absolute("expert", x.Avatar, x.ProfileImage)
	}
	absolute("expert cover", x.Data.CoverImage)
	var packages struct{ Data []guide.PackageSummary }
	e.Get("/api/v1/packages?pageSize=100").Expect(200).Decode(&packages)
	for _, p := range packages.Data {
		for i := range p.Images {
			absolute("package", &p.Images[i])
		}
	}
	var travelogues struct{ Data []guide.TravelogueSummary }
	e.Get("/api/v1/travelogues?pageSize=100").Expect(200).Decode(&travelogues)
	for _, tr := range travelogues.Data {
		absolute("travelogue", tr.CoverImage, tr.Author.Avatar)
	}
	if len(experts.Data) == 0 || len(packages.Data) == 0 || len(travelogues.Data) == 0 {
		t.Fatal("the sample catalogue is empty")
	}
}

// TestAvatarUploadLimit: each user has a budget of uploads an hour,
// spent by every attempt; past it the upload is refused with 429 before
// the body is read, with the rate-limit headers of the rest of the API.
func TestAvatarUploadLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true, avatarLimit: 2})
	u := e.register(t, "limited@example.com", "TOURIST")
	other := e.register(t, "other@example.com", "TOURIST")
	post := func(who user) *apitest.Response {
		ct, body := upload(t, "file", "me.png", pngBytes(t, 16, 16))
		return e.Do("POST", "/api/v1/profile/avatar", body, append(bearer(who.token), "Content-Type", ct)...)
	}
	post(u).Expect(200)
	ct, body := upload(t, "file", "a.gif", []byte("GIF89a"))
	e.Do("POST", "/api/v1/profile/avatar", body, append(bearer(u.token), "Content-Type", ct)...).Expect(415) // a refused upload counts too
	var before string
	if err := e.db.QueryRow(`SELECT avatar_key FROM users WHERE id = $1`, u.id).Scan(&before); err != nil {
		t.Fatal(err)
	}
	res := post(u).Expect(429)
	got := map[string]any{
		"code": res.ErrorCode(), "retryAfterSet": res.Header.Get("Retry-After") != "", "limit": res.Header.Get("X-RateLimit-Limit"),
		"remaining": res.Header.Get("X-RateLimit-Remaining"), "resetSet": res.Header.Get("X-RateLimit-Reset") != "",
	}
	want := map[string]any{"code": "RATE_LIMITED", "retryAfterSet": true, "limit": "2", "remaining": "0", "resetSet": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("429 (-want +got):\n%s", diff)
	}
	var after string
	if err := e.db.QueryRow(`SELECT avatar_key FROM users WHERE id = $1`, u.id).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Error("a refused upload changed the avatar")
	}
	post(other).Expect(200) // each user has their own budget
	e.clock.Advance(time.Hour)
	post(u).Expect(200)
}
