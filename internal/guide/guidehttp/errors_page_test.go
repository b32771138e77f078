package guidehttp_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/webui"
)

func TestErrorPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	res := e.Get("/docs/errors/FORBIDDEN").Expect(200)
	body := string(res.Body)
	got := map[string]any{
		"csp": res.Header.Get("Content-Security-Policy"), "topbar": strings.Contains(body, `class="topbar"`),
		"title": strings.Contains(body, "Guide Marketplace API"), "traveller": strings.Contains(body, "traveller"),
		"portalLink": strings.Contains(body, "/portal/"),
	}
	want := map[string]any{"csp": webui.DocsCSP, "topbar": true, "title": true, "traveller": true, "portalLink": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("FORBIDDEN page (-want +got):\n%s\n%s", diff, body)
	}
	// A code of the property API only is not the guide's.
	e.Get("/docs/errors/UNAVAILABLE").Expect(404)
	if !strings.Contains(string(e.Get("/docs/errors/").Body), `aria-current="page">Error codes`) {
		t.Error("the index does not mark its place in the navigation")
	}
}

// TestDocsPages: the guide server serves its reference, every asset the
// reference links, and the page of every error code that doc_url may
// point to.
func TestDocsPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	page := e.Get("/docs/").Expect(200)
	if !strings.Contains(string(page.Body), "<title>Guide Marketplace API · API reference</title>") ||
		page.Header.Get("Content-Security-Policy") != webui.DocsCSP {
		t.Fatalf("GET /docs/: %s\n%s", page.Header, page.Body)
	}
	assets := regexp.MustCompile(`(?:src|href|data-renderer)="(/docs/assets/[^"]+)"`).FindAllStringSubmatch(string(page.Body), -1)
	if len(assets) == 0 {
		t.Error("the reference links no asset")
	}
	for _, ref := range assets {
		e.Get(strings.ReplaceAll(ref[1], "&amp;", "&")).Expect(200)
	}
	for _, c := range httpx.ErrorCodes(httpx.GuideAPI) {
		e.Get("/docs/errors/" + c.Code).Expect(200)
	}
	e.Get("/docs/errors/").Expect(200)
}
