package guideapi_test

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

	"github.com/wayfarer-asia/platform/internal/guide"
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
