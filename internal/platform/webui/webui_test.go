package webui_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/webui"
)

// mux returns a router with the portal, the confirmation page, the
// admin console and a reference page registered.
func mux() *http.ServeMux {
	m := http.NewServeMux()
	webui.Portal().Register(m)
	webui.Confirm().Register(m)
	webui.Admin().Register(m)
	webui.Docs(webui.DocsConfig{Title: "Property <Platform> API", Links: []webui.Link{{Text: "Developer portal", Href: "/portal/"}}}).Register(m)
	return m
}

func get(t *testing.T, h http.Handler, path string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var assetRef = regexp.MustCompile(`(?:src|href|data-renderer)="(/(?:portal|docs|confirm|admin)/assets/[^"]+)"`)

// TestPages: each page is HTML with its CSP, is not framed, is revalidated,
// and every asset it links is served with its type and cached for good.
func TestPages(t *testing.T) {
	m := mux()
	for _, tc := range []struct {
		path, csp string
		assets    []string // that the page must link
	}{
		{"/portal/", webui.PortalCSP, []string{"portal.js", "portal.css", "favicon.svg"}},
		{"/docs/", webui.DocsCSP, []string{"docs.js", "docs.css", "favicon.svg", "redoc.standalone.js"}},
		{"/confirm/", webui.PortalCSP, []string{"confirm.js", "confirm.css", "favicon.svg"}},
		{"/admin/", webui.PortalCSP, []string{"admin.js", "admin.css", "favicon.svg"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rec := get(t, m, tc.path)
			if rec.Code != 200 {
				t.Fatalf("status %d", rec.Code)
			}
			h := rec.Header()
			for name, want := range map[string]string{
				"Content-Type":            "text/html; charset=utf-8",
				"Content-Security-Policy": tc.csp,
				"X-Frame-Options":         "DENY",
				"X-Content-Type-Options":  "nosniff",
				"Cache-Control":           "no-cache",
				"Referrer-Policy":         "same-origin",
			} {
				if got := h.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if h.Get("ETag") == "" {
				t.Error("no ETag")
			}
			if !strings.Contains(tc.csp, "frame-ancestors 'none'") || !strings.Contains(tc.csp, "script-src 'self';") {
				t.Errorf("CSP %q", tc.csp)
			}
			if rec := get(t, m, tc.path, "If-None-Match", h.Get("ETag")); rec.Code != http.StatusNotModified {
				t.Errorf("revalidation: %d", rec.Code)
			}
			body := rec.Body.String()
			linked := map[string]bool{}
			for _, ref := range assetRef.FindAllStringSubmatch(body, -1) {
				url := strings.ReplaceAll(ref[1], "&amp;", "&")
				name := strings.TrimPrefix(url[strings.LastIndex(url, "/")+1:], "")
				name, _, _ = strings.Cut(name, "?")
				linked[name] = true
				if !strings.Contains(url, "?v=") {
					t.Errorf("%s is linked without its version", url)
				}
				a := get(t, m, url)
				if a.Code != 200 {
					t.Errorf("GET %s: %d", url, a.Code)
					continue
				}
				if got := a.Header().Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
					t.Errorf("%s: Cache-Control %q", url, got)
				}
				if a.Header().Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("%s: no nosniff", url)
				}
				wantType := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}[filepath.Ext(name)]
				if got := a.Header().Get("Content-Type"); got != wantType {
					t.Errorf("%s: Content-Type %q, want %q", url, got, wantType)
				}
			}
			for _, name := range tc.assets {
				if !linked[name] {
					t.Errorf("the page does not link %s", name)
				}
			}
			// Nothing inline that the CSP would block, and nothing from
			// elsewhere: the page must work with no internet.
			if regexp.MustCompile(`<script(?:\s[^>]*)?>[^<\s]`).MatchString(body) || strings.Contains(body, "<script>") {
				t.Error("an inline script")
			}
			if strings.Contains(body, " style=") || strings.Contains(body, "<style") {
				t.Error("an inline style")
			}
			if regexp.MustCompile(`(?:src|href)="(?:https?:)?//`).MatchString(body) {
				t.Error("a resource from another site")
			}
		})
	}
}

func TestDocsPage(t *testing.T) {
	body := get(t, mux(), "/docs/").Body.String()
	for _, want := range []string{
		`<title>Property &lt;Platform&gt; API · API reference</title>`, // the title is escaped
		`href="/docs/errors/"`,             // the error codes that doc_url points to
		`href="/portal/">Developer portal`, // the extra link
		`data-spec-url="/api/v1/openapi.json"`,
		`href="/api/v1/openapi.json">OpenAPI JSON`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	other := httptest.NewRecorder()
	webui.Docs(webui.DocsConfig{Title: "Guide Marketplace API", SpecURL: "/spec.json"}).Page().ServeHTTP(other, httptest.NewRequest("GET", "/docs/", nil))
	if b := other.Body.String(); strings.Contains(b, "/portal/") || !strings.Contains(b, `data-spec-url="/spec.json"`) {
		t.Errorf("guide page: %s", b)
	}
	// A second reference under /docs: its own page and assets, no error
	// pages of its own and no link to the server's.
	m := http.NewServeMux()
	webui.Docs(webui.DocsConfig{Title: "OCTO", Prefix: "/docs/octo", SpecURL: "/docs/octo/openapi.json"}).Register(m)
	second := get(t, m, "/docs/octo/")
	b := second.Body.String()
	got := map[string]any{
		"status":            second.Code,
		"brand link":        strings.Contains(b, `<a class="brand" href="/docs/octo/">`),
		"current page link": strings.Contains(b, `href="/docs/octo/" aria-current="page"`),
		"error pages link":  strings.Contains(b, "/docs/errors/"),
	}
	want := map[string]any{"status": 200, "brand link": true, "current page link": true, "error pages link": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("second reference (-want +got):\n%s\n%s", diff, b)
	}
	refs := regexp.MustCompile(`(?:src|href|data-renderer)="(/docs/[^"]*assets/[^"]+)"`).FindAllStringSubmatch(b, -1)
	if len(refs) == 0 {
		t.Error("no assets linked")
	}
	for _, ref := range refs {
		if !strings.HasPrefix(ref[1], "/docs/octo/assets/") || get(t, m, ref[1]).Code != 200 {
			t.Errorf("asset %s", ref[1])
		}
	}
	if rec := get(t, m, "/docs/octo"); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/docs/octo/" {
		t.Errorf("GET /docs/octo: %d %s", rec.Code, rec.Header().Get("Location"))
	}
	if rec := get(t, m, "/docs/errors/"); rec.Code != http.StatusNotFound {
		t.Errorf("error pages registered by the second reference: %d", rec.Code)
	}
}

func TestRedirects(t *testing.T) {
	m := mux()
	for from, to := range map[string]string{"/portal": "/portal/", "/docs": "/docs/"} {
		rec := get(t, m, from)
		if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != to {
			t.Errorf("GET %s: %d → %q", from, rec.Code, rec.Header().Get("Location"))
		}
	}
}

// TestAssets: versions, revalidation, compression, HEAD and unknown names.
func TestAssets(t *testing.T) {
	m := mux()
	portal := webui.Portal()
	url := portal.AssetURL("portal.js")
	if url == "" || portal.AssetURL("redoc.standalone.js") != "" {
		t.Fatalf("portal assets: portal.js %q; the renderer belongs to the docs only", url)
	}
	plain := strings.Split(url, "?")[0]

	// Without the current version: served, but revalidated at each use.
	for _, u := range []string{plain, plain + "?v=0123456789abcdef"} {
		rec := get(t, m, u)
		if rec.Code != 200 || rec.Header().Get("Cache-Control") != "no-cache" {
			t.Errorf("GET %s: %d, Cache-Control %q", u, rec.Code, rec.Header().Get("Cache-Control"))
		}
	}

	full := get(t, m, url)
	etag := full.Header().Get("ETag")
	if full.Header().Get("Content-Encoding") != "" || etag == "" || full.Header().Get("Vary") != "Accept-Encoding" {
		t.Errorf("identity: encoding %q etag %q vary %q", full.Header().Get("Content-Encoding"), etag, full.Header().Get("Vary"))
	}
	if rec := get(t, m, url, "If-None-Match", `"other", `+etag); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match: %d", rec.Code)
	}

	zipped := get(t, m, url, "Accept-Encoding", "br, gzip;q=0.8")
	if zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("ETag") == etag {
		t.Fatalf("gzip: encoding %q etag %q", zipped.Header().Get("Content-Encoding"), zipped.Header().Get("ETag"))
	}
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, full.Body.Bytes()) || zipped.Body.Len() >= full.Body.Len() {
		t.Errorf("gzip body: %d bytes for %d", zipped.Body.Len(), full.Body.Len())
	}
	if rec := get(t, m, url, "Accept-Encoding", "gzip;q=0, *"); rec.Header().Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 must not get gzip")
	}
	if rec := get(t, m, url, "Accept-Encoding", "*"); rec.Header().Get("Content-Encoding") != "gzip" {
		t.Error("* accepts gzip")
	}

	req := httptest.NewRequest(http.MethodHead, url, nil)
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != full.Header().Get("Content-Length") {
		t.Errorf("HEAD: %d, %d bytes, Content-Length %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"))
	}

	svg := get(t, m, "/portal/assets/favicon.svg")
	if !strings.Contains(svg.Header().Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("an SVG opened alone may run nothing: CSP %q", svg.Header().Get("Content-Security-Policy"))
	}

	for _, path := range []string{"/portal/assets/redoc.standalone.js", "/portal/assets/index.html", "/docs/assets/nope.js", "/docs/assets/portal.js"} {
		rec := get(t, m, path)
		if rec.Code != 404 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			t.Errorf("GET %s: %d %s", path, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		var e struct{ Error struct{ Code string } }
		if json.Unmarshal(rec.Body.Bytes(), &e); e.Error.Code != "NOT_FOUND" {
			t.Errorf("GET %s: %s", path, rec.Body)
		}
	}
}

// TestNoOutsideAddresses: the page code loads nothing from another site,
// so it works with no internet.
func TestNoOutsideAddresses(t *testing.T) {
	allowed := []string{
		"http://www.w3.org/2000/svg",   // the SVG namespace
		"https://redocly.com/redoc/\"", // the renderer's attribution, styled in docs.css
	}
	url := regexp.MustCompile(`(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}[^\s'")]*["']?`)
	for _, dir := range []string{"portal", "confirm", "admin", "docs", "common"} {
		files, err := os.ReadDir(filepath.Join("..", "..", "..", "web", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join("..", "..", "..", "web", dir, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range url.FindAllString(string(b), -1) {
				if !slices.ContainsFunc(allowed, func(a string) bool { return strings.HasPrefix(u, strings.TrimSuffix(a, `"`)) }) {
					t.Errorf("web/%s/%s refers to %s", dir, f.Name(), u)
				}
			}
		}
	}
}

// TestDistMatchesSources: the embedded build is web/build.sh's output for
// the sources and the pinned renderer, so nobody edits one without the
// other.
func TestDistMatchesSources(t *testing.T) {
	web := filepath.Join("..", "..", "..", "web")
	for _, dir := range []string{"portal", "confirm", "admin", "docs", "common"} {
		src, err := os.ReadDir(filepath.Join(web, dir))
		if err != nil {
			t.Fatal(err)
		}
		built, err := os.ReadDir(filepath.Join("dist", dir))
		if err != nil {
			t.Fatal(err)
		}
		if len(src) != len(built) {
			t.Errorf("web/%s has %d files, dist/%s %d: run web/build.sh", dir, len(src), dir, len(built))
		}
		for _, f := range src {
			a, _ := os.ReadFile(filepath.Join(web, dir, f.Name()))
			b, err := os.ReadFile(filepath.Join("dist", dir, f.Name()))
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("dist/%s/%s differs from web/%s/%s: run web/build.sh", dir, f.Name(), dir, f.Name())
			}
		}
	}
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	b, err := os.ReadFile(filepath.Join(web, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	version := lock.Packages["node_modules/redoc"].Version
	bundle, err := fs.ReadFile(os.DirFS("dist"), "vendor/redoc.standalone.js")
	if err != nil {
		t.Fatal(err)
	}
	if version == "" || !bytes.Contains(bundle[:min(len(bundle), 512)], []byte("Version: "+version+"\n")) {
		t.Errorf("dist/vendor/redoc.standalone.js is not redoc %q of package-lock.json: run web/build.sh", version)
	}
}
