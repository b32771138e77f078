package guidehttp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidehttp"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
)

// TestRouteInventory: every route the server registers is in the OpenAPI
// document and every documented operation is registered, so a new route
// cannot ship undocumented (nor a documented one go missing).
func TestRouteInventory(t *testing.T) {
	t.Parallel()
	doc, err := guideDoc()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	// Pages and pictures for people, not API operations: /docs/,
	// /confirm/, /admin/ and /media/, and the redirects of /docs,
	// /confirm and /admin. The realtime channel's transports speak its own protocol, not JSON over HTTP;
	// the token endpoint's description documents them.
	// The authorization server's endpoints speak OAuth (forms, redirects,
	// RFC 6749 errors; docs/oauth.md), and the consent page's requests
	// serve that page alone.
	notAPI := []string{"GET /docs/", "GET /confirm/", "GET /admin/", "GET /media/", "GET /api/realtime/connection/", "POST /api/realtime/connection/",
		"GET /oauth/consent/", "GET /connected-apps/"}
	notAPIExact := []string{"GET /docs", "GET /confirm", "GET /admin", "GET /{$}", "GET /oauth/consent", "GET /connected-apps"}
	notAPIExact = append(append(notAPIExact, oauth.Routes.Protocol...), oauth.Routes.Consent...)
	srv := guidehttp.New(guidehttp.Config{Service: &guide.Service{}, OAuth: oauth.New(oauth.Config{})})
	registered := map[string]bool{}
	for _, p := range srv.Routes() {
		if slices.Contains(notAPIExact, p) || slices.ContainsFunc(notAPI, func(prefix string) bool { return strings.HasPrefix(p, prefix) }) {
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
