package guidehttp_test

import (
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/webui"
)

func TestErrorPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	res := e.Get("/docs/errors/FORBIDDEN").Expect(200)
	body := string(res.Body)
	if res.Header.Get("Content-Security-Policy") != webui.DocsCSP || !strings.Contains(body, `class="topbar"`) ||
		!strings.Contains(body, "Guide Marketplace API") || !strings.Contains(body, "traveller") || strings.Contains(body, "/portal/") {
		t.Fatalf("FORBIDDEN page: %v\n%s", res.Header, body)
	}
	// A code of the property API only is not the guide's.
	e.Get("/docs/errors/UNAVAILABLE").Expect(404)
	if !strings.Contains(string(e.Get("/docs/errors/").Body), `aria-current="page">Error codes`) {
		t.Error("the index does not mark its place in the navigation")
	}
}
