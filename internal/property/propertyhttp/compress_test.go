package propertyhttp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompression(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	d := e.signup(t)
	key := e.key(t, d, "test")
	for _, c := range []struct {
		path    string
		headers []string
	}{{"/api/v1/openapi.json", nil}, {"/api/v1/properties?pageSize=20", xkey(key)}, {"/docs/errors/", nil}} {
		plain := e.Get(c.path, c.headers...).Expect(200)
		gz := e.Get(c.path, append(c.headers, "Accept-Encoding", "gzip")...).Expect(200)
		got := map[string]any{
			"gzip encoding":      gz.Header.Get("Content-Encoding"),
			"same body":          string(gz.Body) == string(plain.Body),
			"smaller":            len(gz.Raw) < len(plain.Raw),
			"varies by encoding": strings.Contains(gz.Header.Get("Vary"), "Accept-Encoding"),
			"plain encoding":     plain.Header.Get("Content-Encoding"),
		}
		want := map[string]any{"gzip encoding": "gzip", "same body": true, "smaller": true, "varies by encoding": true, "plain encoding": ""}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s\n%d bytes for %d", c.path, diff, len(gz.Raw), len(plain.Raw))
		}
	}
}
