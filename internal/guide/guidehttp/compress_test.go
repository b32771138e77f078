package guidehttp_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompression(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	const list = "/api/v1/packages?pageSize=50&sort=duration"
	plain := e.Get(list).Expect(200)
	if plain.Header.Get("Content-Encoding") != "" || !strings.Contains(plain.Header.Get("Vary"), "Accept-Encoding") || len(plain.Body) < 1024 {
		t.Fatalf("without Accept-Encoding: %v, %d bytes", plain.Header, len(plain.Body))
	}
	gz := e.Get(list, "Accept-Encoding", "br, gzip;q=0.8").Expect(200)
	got := map[string]any{
		"encoding": gz.Header.Get("Content-Encoding"), "sameBody": bytes.Equal(gz.Body, plain.Body),
		"compressed": len(gz.Raw)*3 <= len(plain.Body), "length": gz.Header.Get("Content-Length"),
		"varyEncoding": strings.Contains(gz.Header.Get("Vary"), "Accept-Encoding"),
	}
	want := map[string]any{
		"encoding": "gzip", "sameBody": true, "compressed": true, "length": strconv.Itoa(len(gz.Raw)), "varyEncoding": true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("gzip, %d bytes for %d (-want +got):\n%s", len(gz.Raw), len(plain.Body), diff)
	}
	// Its own entity tag; either revalidates.
	etag, gzTag := plain.Header.Get("ETag"), gz.Header.Get("ETag")
	if gzTag != strings.TrimSuffix(etag, `"`)+`-gz"` {
		t.Fatalf("ETags %s and %s", etag, gzTag)
	}
	e.Get(list, "Accept-Encoding", "gzip", "If-None-Match", gzTag).Expect(304)
	e.Get(list, "Accept-Encoding", "gzip", "If-None-Match", etag).Expect(304)
	// The cached page is compressed once: the same bytes again, never
	// compressed a second time by the middleware.
	if again := e.Get(list, "Accept-Encoding", "gzip").Expect(200); !bytes.Equal(again.Raw, gz.Raw) {
		t.Error("a cached page was compressed anew")
	}
	// Refused encodings are honoured.
	if res := e.Get(list, "Accept-Encoding", "gzip;q=0, identity").Expect(200); res.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 answered %q", res.Header.Get("Content-Encoding"))
	}
	// Small bodies are not worth it.
	if res := e.Get("/api/v1/experts/nobody", "Accept-Encoding", "gzip").Expect(404); res.Header.Get("Content-Encoding") != "" {
		t.Errorf("small error compressed")
	}
	// Uncached answers are compressed on the way: the OpenAPI document, the
	// error pages, an authenticated list.
	for _, path := range []string{"/api/v1/openapi.json", "/docs/errors/", "/docs/"} {
		res := e.Get(path, "Accept-Encoding", "gzip").Expect(200)
		if res.Header.Get("Content-Encoding") != "gzip" || len(res.Raw) >= len(res.Body) {
			t.Errorf("%s: %q, %d bytes for %d", path, res.Header.Get("Content-Encoding"), len(res.Raw), len(res.Body))
		}
	}
}
