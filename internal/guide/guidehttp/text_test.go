package guidehttp_test

import (
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidehttp"
	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestTextAtTheDoor: on every route of the route table, a NUL or a byte
// that is not UTF-8 in any path parameter, in a query parameter (named by
// the document or not), or in any string or key of a documented JSON body
// is refused with 400 VALIDATION_ERROR naming the field, and nothing is
// stored. The requests carry a user token, which every authenticated route
// accepts, so the check is reached whatever runs first. On PostgreSQL such
// text used to fail a query with a 500; on SQLite it was stored.
func TestTextAtTheDoor(t *testing.T) {
	t.Parallel()
	doc, err := guideDoc()
	if err != nil {
		t.Fatal(err)
	}
	fill := map[string]string{
		"id": "0193a4f5-3c4d-7e5f-8a6b-7c8d9e0f1a2b", "handle": "demo-expert", "slug": "kyoto",
		"kind": "experts", "name": "a.jpg", "key": "a.webp", "code": "NOT_FOUND",
		"decision": "approve", "docId": "0193a4f5-3c4d-7e5f-8a6b-7c8d9e0f1a2c",
	}
	routes := guidehttp.New(guidehttp.Config{Service: &guide.Service{}, OAuth: oauth.New(oauth.Config{})}).Routes()
	probes := apitest.BadTextProbes(doc, routes, func(p string) string {
		v, ok := fill[p]
		if !ok {
			t.Fatalf("no value for path parameter {%s}: add one to this test", p)
		}
		return v
	})
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			u := e.register(t, "tourist@example.com", "TOURIST")
			before := storetest.Snapshot(t, e.db)
			probed := map[string]bool{}
			for _, p := range probes {
				res := e.Do(p.Method, p.Path, body(p.Body), bearer(u.token)...)
				if res.Status != 400 || res.ErrorCode() != "VALIDATION_ERROR" || res.ErrorDetails()[p.Field] == nil {
					t.Errorf("%s, %s: want 400 VALIDATION_ERROR naming %q, got %d %.300s", p.Pattern, p.What, p.Field, res.Status, res.Body)
				}
				probed[p.Pattern] = true
			}
			for _, r := range routes {
				if !probed[r] {
					t.Errorf("route %s was not probed", r)
				}
			}
			if after := storetest.Snapshot(t, e.db); after != before {
				t.Errorf("refused requests changed the database")
			}
			t.Logf("%d probes on %d routes", len(probes), len(routes))
		})
	}
}

// body is the request body of a probe: none when empty.
func body(s string) any {
	if s == "" {
		return nil
	}
	return s
}
