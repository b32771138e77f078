package propertyhttp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/property/propertyhttp"
)

// TestRouteInventory: every route the property server registers is in its
// OpenAPI document, and every documented operation is registered.
func TestRouteInventory(t *testing.T) {
	t.Parallel()
	doc, err := propertyDoc()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	// Pages and pictures for people, not API operations (and the redirects
	// of /docs and /portal to their pages).
	isPage := func(p string) bool {
		_, path, _ := strings.Cut(p, " ")
		if slices.Contains(oauth.Routes.Protocol, p) || slices.Contains(oauth.Routes.Consent, p) {
			// The authorization server speaks OAuth (docs/oauth.md); the
			// consent page's requests serve that page alone.
			return true
		}
		return path == "/docs" || path == "/portal" || path == "/oauth/consent" || strings.HasPrefix(path, "/oauth/consent/") || path == "/{$}" ||
			slices.ContainsFunc([]string{"/docs/", "/media/"}, func(prefix string) bool { return strings.HasPrefix(path, prefix) }) ||
			(strings.HasPrefix(path, "/portal/") && !strings.HasPrefix(path, "/portal/api/"))
	}
	registered := map[string]bool{}
	for _, p := range propertyhttp.New(propertyhttp.Config{OAuth: oauth.New(oauth.Config{})}).Routes() {
		if isPage(p) {
			continue
		}
		registered[p] = true
		if !documented[p] {
			t.Errorf("route %q is not in the OpenAPI document", p)
		}
	}
	for op := range documented {
		if !registered[op] {
			t.Errorf("documented operation %q is not registered", op)
		}
	}
}
