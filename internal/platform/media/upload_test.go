package media

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strconv"
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

const avatarMax = 5 << 20

func testJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func testTransparentPNG(t *testing.T) []byte {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	m.SetNRGBA(1, 1, color.NRGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type part struct {
	name, filename, contentType string
	data                        []byte
}

// form encodes parts as multipart/form-data and returns the body and its
// Content-Type.
func form(t *testing.T, parts ...part) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disp := `form-data; name="` + p.name + `"`
		if p.filename != "" {
			disp += `; filename="` + p.filename + `"`
		}
		h.Set("Content-Disposition", disp)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(p.data)
	}
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

func fileForm(t *testing.T, data []byte) ([]byte, string) {
	return form(t, part{name: "file", filename: "me.jpg", contentType: "image/jpeg", data: data})
}

// upload runs ReadImageUpload behind httpx.Adapt and returns the recorder and
// the image read, if any.
func upload(t *testing.T, body io.Reader, contentType string, maxBytes int64) (*httptest.ResponseRecorder, *Image) {
	t.Helper()
	var got *Image
	h := httpx.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		img, err := ReadImageUpload(w, r, maxBytes)
		if err != nil {
			return err
		}
		got = img
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
	req := httptest.NewRequest(http.MethodPost, "/api/v1/profile/avatar", body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec, got
}

type envelope struct {
	Error struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

func wantError(t *testing.T, rec *httptest.ResponseRecorder, status int, code, detail string) envelope {
	t.Helper()
	var env envelope
	if rec.Code != status {
		t.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	if env.Error.Code != code {
		t.Fatalf("code %s, want %s: %s", env.Error.Code, code, rec.Body)
	}
	if detail != "" {
		if _, ok := env.Error.Details[detail]; !ok {
			t.Fatalf("details %v do not name %q", env.Error.Details, detail)
		}
	}
	return env
}

func TestReadImageUpload(t *testing.T) {
	t.Run("JPEG", func(t *testing.T) {
		body, ct := fileForm(t, testJPEG(t, 200, 100))
		rec, img := upload(t, bytes.NewReader(body), ct, avatarMax)
		if rec.Code != http.StatusNoContent || img == nil {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if img.ContentType != JPEG || img.Width != 200 || img.Height != 100 {
			t.Errorf("image %s %d×%d", img.ContentType, img.Width, img.Height)
		}
	})
	t.Run("transparent PNG sent as application/octet-stream", func(t *testing.T) {
		body, ct := form(t, part{name: "file", filename: "blob", contentType: "application/octet-stream", data: testTransparentPNG(t)})
		rec, img := upload(t, bytes.NewReader(body), ct, avatarMax)
		if rec.Code != http.StatusNoContent || img.ContentType != PNG {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
	t.Run("other fields are ignored", func(t *testing.T) {
		body, ct := form(t,
			part{name: "note", data: []byte("hello")},
			part{name: "file", filename: "a.jpg", data: testJPEG(t, 10, 10)},
			part{name: "file", filename: "b.jpg", data: []byte("second file is never read")},
			part{name: "after", data: []byte("x")})
		rec, img := upload(t, bytes.NewReader(body), ct, avatarMax)
		if rec.Code != http.StatusNoContent || img.Width != 10 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}

func TestReadImageUploadRefusals(t *testing.T) {
	jpg := testJPEG(t, 64, 64)
	for _, tc := range []struct {
		name        string
		body        func(t *testing.T) ([]byte, string)
		maxBytes    int64
		status      int
		code        string
		detail      string
		messagePart string
	}{
		{
			name: "JSON body", status: 415, code: apperr.MediaType,
			body: func(t *testing.T) ([]byte, string) { return []byte(`{"file":"x"}`), "application/json" },
		},
		{
			name: "raw image body", status: 415, code: apperr.MediaType,
			body: func(t *testing.T) ([]byte, string) { return jpg, "image/jpeg" },
		},
		{
			name: "no Content-Type", status: 415, code: apperr.MediaType,
			body: func(t *testing.T) ([]byte, string) { return jpg, "" },
		},
		{
			name: "multipart/mixed", status: 415, code: apperr.MediaType,
			body: func(t *testing.T) ([]byte, string) {
				b, ct := fileForm(t, jpg)
				return b, strings.Replace(ct, "form-data", "mixed", 1)
			},
		},
		{
			name: "no boundary", status: 400, code: apperr.Validation, detail: "body",
			body: func(t *testing.T) ([]byte, string) { b, _ := fileForm(t, jpg); return b, "multipart/form-data" },
		},
		{
			name: "no file field", status: 400, code: apperr.Validation, detail: "file",
			body: func(t *testing.T) ([]byte, string) {
				return form(t, part{name: "avatar", filename: "a.jpg", data: jpg})
			},
		},
		{
			name: "empty form", status: 400, code: apperr.Validation, detail: "file",
			body: func(t *testing.T) ([]byte, string) { return form(t) },
		},
		{
			name: "truncated multipart", status: 400, code: apperr.Validation, detail: "body",
			body: func(t *testing.T) ([]byte, string) { b, ct := fileForm(t, jpg); return b[:len(b)-200], ct },
		},
		{
			// No boundary line at all reads as a form without parts.
			name: "garbage with a boundary", status: 400, code: apperr.Validation, detail: "file",
			body: func(t *testing.T) ([]byte, string) {
				return []byte("this is not multipart at all"), "multipart/form-data; boundary=xyz"
			},
		},
		{
			name: "HTML named avatar.jpg, declared image/jpeg", status: 415, code: apperr.MediaType, messagePart: "JPEG, PNG or WebP",
			body: func(t *testing.T) ([]byte, string) {
				return form(t, part{name: "file", filename: "avatar.jpg", contentType: "image/jpeg",
					data: []byte("<html><script>alert(document.cookie)</script></html>")})
			},
		},
		{
			name: "SVG", status: 415, code: apperr.MediaType,
			body: func(t *testing.T) ([]byte, string) {
				return form(t, part{name: "file", filename: "a.svg", contentType: "image/svg+xml",
					data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)})
			},
		},
		{
			name: "empty file", status: 415, code: apperr.MediaType,
			body: func(t *testing.T) ([]byte, string) { return fileForm(t, nil) },
		},
		{
			name: "pixel flood", status: 400, code: apperr.Validation, detail: "file",
			body: func(t *testing.T) ([]byte, string) { return fileForm(t, floodPNG(100000, 100000)) },
		},
		{
			name: "truncated JPEG", status: 400, code: apperr.Validation, detail: "file",
			body: func(t *testing.T) ([]byte, string) { return fileForm(t, jpg[:len(jpg)/2]) },
		},
		{
			name: "file over maxBytes", status: 413, code: apperr.TooLarge, maxBytes: int64(len(jpg) - 1),
			body: func(t *testing.T) ([]byte, string) { return fileForm(t, jpg) },
		},
		{
			name: "small file after big other fields", status: 413, code: apperr.TooLarge, maxBytes: 4096,
			body: func(t *testing.T) ([]byte, string) {
				return form(t, part{name: "pad", data: bytes.Repeat([]byte("x"), MultipartOverhead+8192)}, part{name: "file", data: jpg[:100]})
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := tc.body(t)
			maxBytes := tc.maxBytes
			if maxBytes == 0 {
				maxBytes = avatarMax
			}
			rec, img := upload(t, bytes.NewReader(body), ct, maxBytes)
			if img != nil {
				t.Fatal("an image was returned")
			}
			env := wantError(t, rec, tc.status, tc.code, tc.detail)
			if !strings.Contains(env.Error.Message, tc.messagePart) {
				t.Errorf("message %q lacks %q", env.Error.Message, tc.messagePart)
			}
		})
	}
}

// endless is a body that never ends.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	return len(p), nil
}

func TestReadImageUploadBodyCap(t *testing.T) {
	const maxBytes = 1 << 20
	// A file part that never ends: refused once the file passes maxBytes.
	head := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jpg\"\r\n\r\n\xFF\xD8\xFF"
	src := &endless{}
	rec, _ := upload(t, io.MultiReader(strings.NewReader(head), src), "multipart/form-data; boundary=b", maxBytes)
	wantError(t, rec, 413, apperr.TooLarge, "")
	if src.n > maxBytes+MultipartOverhead+64<<10 {
		t.Errorf("read %d bytes of an endless body", src.n)
	}

	// A padding field that never ends: refused by the body cap.
	head = "--b\r\nContent-Disposition: form-data; name=\"pad\"\r\n\r\n"
	src = &endless{}
	rec, _ = upload(t, io.MultiReader(strings.NewReader(head), src), "multipart/form-data; boundary=b", maxBytes)
	wantError(t, rec, 413, apperr.TooLarge, "")
	if src.n > maxBytes+MultipartOverhead+64<<10 {
		t.Errorf("read %d bytes of an endless body", src.n)
	}

	// A declared Content-Length over the cap is refused before reading.
	body, ct := fileForm(t, testJPEG(t, 8, 8))
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	req.ContentLength = maxBytes + MultipartOverhead + 1
	_, err := ReadImageUpload(httptest.NewRecorder(), req, maxBytes)
	if apperr.Code(err) != apperr.TooLarge {
		t.Errorf("error %v", err)
	}
}

func TestServe(t *testing.T) {
	store := Local{Dir: t.TempDir()}
	jpg := testJPEG(t, 16, 16)
	if err := store.Put(t.Context(), "avatars/u1/abc.jpg", jpg, "image/jpeg"); err != nil {
		t.Fatal(err)
	}
	serve := func(method, key string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "/media/"+key, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		httpx.Adapt(func(w http.ResponseWriter, r *http.Request) error {
			return Serve(w, r, store, key)
		}).ServeHTTP(rec, req)
		return rec
	}

	rec := serve(http.MethodGet, "avatars/u1/abc.jpg")
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), jpg) {
		t.Fatalf("status %d, %d bytes", rec.Code, rec.Body.Len())
	}
	for name, want := range map[string]string{
		"Content-Type":            "image/jpeg",
		"X-Content-Type-Options":  "nosniff",
		"Content-Security-Policy": "default-src 'none'",
		"Cache-Control":           "public, max-age=31536000, immutable",
		"Content-Length":          strconv.Itoa(len(jpg)),
	} {
		if got := rec.Header().Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	etag := rec.Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}

	if rec := serve(http.MethodGet, "avatars/u1/abc.jpg", "If-None-Match", etag); rec.Code != 304 || rec.Body.Len() != 0 {
		t.Errorf("revalidation: %d, %d bytes", rec.Code, rec.Body.Len())
	}
	if rec := serve(http.MethodGet, "avatars/u1/abc.jpg", "If-None-Match", `"other"`); rec.Code != 200 {
		t.Errorf("other ETag: %d", rec.Code)
	}
	if rec := serve(http.MethodHead, "avatars/u1/abc.jpg"); rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != "image/jpeg" {
		t.Errorf("HEAD: %d, %d bytes", rec.Code, rec.Body.Len())
	}
	for _, key := range []string{"avatars/u1/none.jpg", "../../etc/passwd", "avatars/u1/abc.gif", ""} {
		wantError(t, serve(http.MethodGet, key), 404, apperr.NotFound, "")
	}
}

func TestServeOddContentType(t *testing.T) {
	store := &memStore{objs: map[string]memObj{"a.jpg": {data: []byte("<html>"), ct: "text/html"}}}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	if err := Serve(rec, req, store, "a.jpg"); err != nil {
		t.Fatal(err)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/octet-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	store.err = errors.New("storage down")
	err := Serve(httptest.NewRecorder(), req, store, "a.jpg")
	if err == nil || apperr.Code(err) != apperr.Internal {
		t.Errorf("error %v", err)
	}
}

// TestAvatarRoundTrip uploads through a real server, stores the image,
// and fetches it back from the URL a handler would answer with.
func TestAvatarRoundTrip(t *testing.T) {
	store := Local{Dir: t.TempDir()}
	mux := http.NewServeMux()
	mux.Handle("POST /api/v1/profile/avatar", httpx.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		img, err := ReadImageUpload(w, r, avatarMax)
		if err != nil {
			return err
		}
		key := img.Key("avatars/u-42")
		if err := store.Put(r.Context(), key, img.Data, img.ContentType); err != nil {
			return err
		}
		httpx.WriteJSON(w, 200, map[string]any{"data": map[string]string{"url": httpx.AbsoluteURL(r.Context(), "/media/"+key)}})
		return nil
	}))
	mux.Handle("GET /media/{key...}", httpx.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		return Serve(w, r, store, r.PathValue("key"))
	}))
	outer := &httpx.Outer{Logger: slog.New(slog.DiscardHandler)}
	srv := httptest.NewServer(outer.Wrap(mux))
	defer srv.Close()
	outer.PublicURL = srv.URL

	// A JPEG with trailing junk: the stored copy must not carry it.
	in := append(testJPEG(t, 1500, 750), "TRAILING-JUNK"...)
	body, ct := fileForm(t, in)
	resp, err := http.Post(srv.URL+"/api/v1/profile/avatar", ct, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Data struct {
			URL string `json:"url"`
		} `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(out.Data.URL, "http://") {
		t.Fatalf("status %d, url %q", resp.StatusCode, out.Data.URL)
	}
	resp, err = http.Get(out.Data.URL)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("GET %s: %d %s", out.Data.URL, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != 1024 || cfg.Height != 512 {
		t.Errorf("served image %+v, %v", cfg, err)
	}
	if bytes.Contains(data, []byte("TRAILING-JUNK")) {
		t.Error("trailing junk was stored")
	}
}

type memObj struct {
	data []byte
	ct   string
}

type memStore struct {
	objs map[string]memObj
	err  error
}

func (m *memStore) Put(_ context.Context, key string, data []byte, ct string) error {
	m.objs[key] = memObj{data, ct}
	return nil
}

func (m *memStore) Get(_ context.Context, key string) (io.ReadCloser, string, error) {
	if m.err != nil {
		return nil, "", m.err
	}
	o, ok := m.objs[key]
	if !ok {
		return nil, "", ErrNotFound
	}
	return io.NopCloser(bytes.NewReader(o.data)), o.ct, nil
}

func (m *memStore) Delete(_ context.Context, key string) error {
	delete(m.objs, key)
	return nil
}
