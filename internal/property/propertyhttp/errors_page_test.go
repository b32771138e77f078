package propertyhttp_test

import (
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/webui"
)

// The error pages are the reference's: header, navigation, style sheet,
// favicon, CSP; and they speak of the property API.
func TestErrorPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	for _, path := range []string{"/docs/errors/", "/docs/errors/UNAUTHORIZED", "/docs/errors/UNAVAILABLE"} {
		res := e.Get(path).Expect(200)
		body := string(res.Body)
		if res.Header.Get("Content-Security-Policy") != webui.DocsCSP || res.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, res.Header)
		}
		for _, want := range []string{`class="topbar"`, `href="/portal/">Developer portal`, `rel="icon" type="image/svg+xml" href="/docs/assets/favicon.svg?v=`,
			`rel="stylesheet" href="/docs/assets/docs.css?v=`, "Property Platform Open API"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: no %q", path, want)
			}
		}
		if strings.Contains(body, "traveller") || strings.Contains(body, "expert") || strings.Contains(body, "Guide Marketplace") {
			t.Errorf("%s: the guide's wording", path)
		}
	}
	if !strings.Contains(string(e.Get("/docs/errors/UNAUTHORIZED").Body), "X-API-KEY") {
		t.Error("UNAUTHORIZED does not tell where the key goes")
	}
	if e.Get("/docs/errors/NOPE").Expect(404).ErrorCode() != "NOT_FOUND" {
		t.Error("unknown code")
	}
}
