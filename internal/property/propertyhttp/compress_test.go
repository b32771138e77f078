package propertyhttp_test

import (
	"strings"
	"testing"
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
		if gz.Header.Get("Content-Encoding") != "gzip" || string(gz.Body) != string(plain.Body) || len(gz.Raw) >= len(plain.Raw) ||
			!strings.Contains(gz.Header.Get("Vary"), "Accept-Encoding") || plain.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: %q, %d bytes for %d", c.path, gz.Header.Get("Content-Encoding"), len(gz.Raw), len(plain.Raw))
		}
	}
}
