package guidehttp_test

import (
	"encoding/json"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPublicRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{publicLimit: 3, noSample: true})
	now := e.clock.Now()
	for i, remaining := range []string{"2", "1", "0"} {
		res := e.Get("/api/v1/cities").Expect(200)
		if res.Header.Get("X-RateLimit-Limit") != "3" || res.Header.Get("X-RateLimit-Remaining") != remaining {
			t.Fatalf("request %d: limit %q remaining %q", i+1, res.Header.Get("X-RateLimit-Limit"), res.Header.Get("X-RateLimit-Remaining"))
		}
		reset, err := strconv.ParseInt(res.Header.Get("X-RateLimit-Reset"), 10, 64)
		if err != nil || reset < now.Unix() || reset > now.Add(time.Minute).Unix() {
			t.Fatalf("X-RateLimit-Reset %q is not a unix time within the minute", res.Header.Get("X-RateLimit-Reset"))
		}
	}
	res := e.Get("/api/v1/experts").Expect(429)
	var body struct {
		Error struct {
			Code        string `json:"code"`
			RetryAfter  int    `json:"retry_after"`
			IsRetriable bool   `json:"is_retriable"`
			DocURL      string `json:"doc_url"`
		} `json:"error"`
		RequestID string `json:"requestId"`
	}
	res.Decode(&body)
	got := map[string]any{"code": body.Error.Code, "retryAfter": body.Error.RetryAfter, "retriable": body.Error.IsRetriable,
		"retryAfterHeader": res.Header.Get("Retry-After"), "remaining": res.Header.Get("X-RateLimit-Remaining")}
	want := map[string]any{"code": "RATE_LIMITED", "retryAfter": 20, "retriable": true, "retryAfterHeader": "20", "remaining": "0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("429 (-want +got):\n%s\n%s", diff, res.Body)
	}
	if body.RequestID == "" || body.RequestID != res.Header.Get("X-Request-Id") {
		t.Errorf("requestId %q, header %q", body.RequestID, res.Header.Get("X-Request-Id"))
	}
	if body.Error.DocURL != publicURL+"/docs/errors/RATE_LIMITED" {
		t.Errorf("doc_url %q", body.Error.DocURL)
	}

	// Another client has its own budget; a forged X-Forwarded-For from an
	// untrusted peer changes nothing.
	e.Get("/api/v1/cities", "X-Forwarded-For", "203.0.113.9").Expect(429)
	e.RemoteAddr = "198.51.100.7:5555"
	e.Get("/api/v1/cities").Expect(200)

	// The budget refills with time.
	e.RemoteAddr = "192.0.2.1:1234"
	e.clock.Advance(20 * time.Second)
	e.Get("/api/v1/cities").Expect(200)
	e.Get("/api/v1/cities").Expect(429)

	// The OpenAPI document and error pages are not counted.
	e.Get("/api/v1/openapi.json").Expect(200)
	e.Get("/docs/errors/RATE_LIMITED").Expect(200)
}

func TestTrustedProxy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{publicLimit: 1, noSample: true, trustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	e.RemoteAddr = "10.1.2.3:4000"
	e.Get("/api/v1/cities", "X-Forwarded-For", "203.0.113.5, 10.9.9.9").Expect(200)
	e.Get("/api/v1/cities", "X-Forwarded-For", "203.0.113.5").Expect(429)
	// A client-supplied first hop is not believed: the proxy appended the
	// real address, and that is what counts.
	e.Get("/api/v1/cities", "X-Forwarded-For", "203.0.113.5, 203.0.113.6").Expect(200)
	// Even a trusted proxy does not choose the public URL: the links are
	// on the configured one, not on a forwarded host or scheme.
	res := e.Get("/api/v1/nothing", "X-Forwarded-For", "203.0.113.7", "X-Forwarded-Proto", "http",
		"X-Forwarded-Host", "attacker.example", "Host", "attacker.example").Expect(404)
	var body struct {
		Error struct {
			DocURL string `json:"doc_url"`
		} `json:"error"`
	}
	res.Decode(&body)
	if body.Error.DocURL != publicURL+"/docs/errors/NOT_FOUND" {
		t.Errorf("behind a proxy doc_url is %q", body.Error.DocURL)
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	res := e.Get("/api/v1/experts/nobody", "X-Request-Id", "client-abc.123").Expect(404)
	var body struct {
		RequestID string `json:"requestId"`
	}
	res.Decode(&body)
	if res.Header.Get("X-Request-Id") != "client-abc.123" || body.RequestID != "client-abc.123" {
		t.Errorf("request id not kept: header %q body %q", res.Header.Get("X-Request-Id"), body.RequestID)
	}
	for _, bad := range []string{"has space", strings.Repeat("x", 200), "<script>"} {
		res := e.Get("/api/v1/cities", "X-Request-Id", bad).Expect(200)
		if id := res.Header.Get("X-Request-Id"); id == bad || len(id) != 36 {
			t.Errorf("malformed id %q answered with %q", bad, id)
		}
	}
}

func TestOpenAPIAndDocs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct{ Version string }
		Paths   map[string]json.RawMessage
	}
	e.Get("/api/v1/openapi.json").Expect(200).Decode(&doc)
	if !strings.HasPrefix(doc.OpenAPI, "3.") || doc.Info.Version != "1.0.0" || doc.Paths["/api/v1/experts"] == nil {
		t.Fatalf("openapi.json: %s %s, %d paths", doc.OpenAPI, doc.Info.Version, len(doc.Paths))
	}
	page := e.Get("/docs/errors/VALIDATION_ERROR").Expect(200)
	if !strings.Contains(string(page.Body), "VALIDATION_ERROR") || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Error("error page does not explain the code")
	}
	e.Get("/docs/errors/").Expect(200)
	e.Get("/docs/errors/NO_SUCH_CODE").Expect(404)
	// The OCTO endpoint's reference: its document, its server /octo, and
	// a page of its own linked from the guide API's.
	var octo struct {
		OpenAPI string `json:"openapi"`
		Servers []struct{ URL string }
		Paths   map[string]json.RawMessage
	}
	e.Get("/docs/octo/openapi.json").Expect(200).Decode(&octo)
	gotOCTO := map[string]any{"openAPI3": strings.HasPrefix(octo.OpenAPI, "3."), "servers": len(octo.Servers),
		"confirm": octo.Paths["/bookings/{uuid}/confirm"] != nil}
	if len(octo.Servers) > 0 {
		gotOCTO["server"] = octo.Servers[0].URL
	}
	wantOCTO := map[string]any{"openAPI3": true, "servers": 1, "server": "/octo", "confirm": true}
	if diff := cmp.Diff(wantOCTO, gotOCTO); diff != "" {
		t.Errorf("octo openapi.json (-want +got):\n%s", diff)
	}
	if b := string(e.Get("/docs/").Expect(200).Body); !strings.Contains(b, `href="/docs/octo/">OCTO supplier API`) {
		t.Error("the guide reference does not link the OCTO one")
	}
	octoPage := string(e.Get("/docs/octo/").Expect(200).Body)
	for _, want := range []string{`<title>OCTO supplier API · API reference</title>`, `data-spec-url="/docs/octo/openapi.json"`, `href="/docs/">Guide Marketplace API`} {
		if !strings.Contains(octoPage, want) {
			t.Errorf("the OCTO reference lacks %s", want)
		}
	}
	if strings.Contains(octoPage, `/docs/errors/`) {
		t.Error("the OCTO reference links the REST error codes")
	}
	img := e.Get("/media/sample/experts/demo-expert.jpg").Expect(200)
	if img.Header.Get("Content-Type") != "image/jpeg" || len(img.Body) < 500 {
		t.Errorf("sample image: %q, %d bytes", img.Header.Get("Content-Type"), len(img.Body))
	}
	e.Get("/media/sample/experts/..%2Fsecret").Expect(404)
	e.Get("/media/sample/other/x.jpg").Expect(404)
}

// TestSampleImagesLimited: sample pictures count against the public
// per-client budget, like the catalogue reads.
func TestSampleImagesLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{publicLimit: 2, noSample: true})
	first := e.Get("/media/sample/experts/demo-expert.jpg").Expect(200)
	if first.Header.Get("X-RateLimit-Remaining") != "1" || first.Header.Get("ETag") == "" {
		t.Fatalf("headers %v", first.Header)
	}
	// A revalidation is answered 304, and still counted.
	e.Get("/media/sample/experts/demo-expert.jpg", "If-None-Match", first.Header.Get("ETag")).Expect(304)
	e.Get("/media/sample/messages/demo-expert-meeting-point.jpg").Expect(429)
	e.Get("/api/v1/cities").Expect(429)
}
