package media

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

func sampleRequest(t *testing.T, h http.Handler, path string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestSampleImagesCached: a picture is drawn once and then served from
// memory, with a strong ETag that a revalidation matches (304, no body).
func TestSampleImagesCached(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("GET /media/sample/{kind}/{name}", httpx.Adapt(SampleImages(map[string]Size{"covers": {Width: 640, Height: 420}})))
	const path = "/media/sample/covers/kyoto.jpg"

	first := sampleRequest(t, mux, path)
	etag := first.Header().Get("ETag")
	got := map[string]any{
		"status":        first.Code,
		"content type":  first.Header().Get("Content-Type"),
		"cache control": first.Header().Get("Cache-Control") != "",
		"quoted etag":   strings.HasPrefix(etag, `"`),
		"long etag":     len(etag) >= 10,
	}
	want := map[string]any{"status": 200, "content type": "image/jpeg", "cache control": true, "quoted etag": true, "long etag": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("first (-want +got):\n%s\n%v", diff, first.Header())
	}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(first.Body.Bytes())); err != nil || cfg.Width != 640 || cfg.Height != 420 {
		t.Fatalf("picture %+v %v", cfg, err)
	}

	// Served from memory: ten more answers (each copying the JPEG into the
	// recorder) allocate less than drawing one picture would (its pixel
	// buffer alone is 640×420×4 bytes).
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if rec := sampleRequest(t, mux, path); rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), first.Body.Bytes()) || rec.Header().Get("ETag") != etag {
			t.Fatal("a later answer differs")
		}
	}
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 640*420*4 {
		t.Errorf("10 cached answers allocated %d bytes: the picture is drawn again", grown)
	}

	for _, inm := range []string{etag, `"other", ` + etag, "W/" + etag} {
		rec := sampleRequest(t, mux, path, "If-None-Match", inm)
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 || rec.Header().Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d, %d bytes", inm, rec.Code, rec.Body.Len())
		}
	}
	if rec := sampleRequest(t, mux, path, "If-None-Match", `"stale"`); rec.Code != 200 {
		t.Errorf("a stale ETag: %d", rec.Code)
	}
	if rec := sampleRequest(t, mux, "/media/sample/covers/other.jpg"); rec.Header().Get("ETag") == etag {
		t.Error("two pictures share an ETag")
	}
}

// TestSampleImagesBounded: made-up names cannot grow the cache past its
// bound.
func TestSampleImagesBounded(t *testing.T) {
	c := &sampleCache{images: map[string]*sampleImage{}}
	req := httptest.NewRequest("GET", "/", nil)
	for i := range maxSampleImages + 50 {
		if _, err := c.get(req, fmt.Sprintf("covers/made-up-%d.jpg", i), Size{Width: 4, Height: 4}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.images); n != maxSampleImages {
		t.Errorf("%d pictures kept, bound %d", n, maxSampleImages)
	}
}
