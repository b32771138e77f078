package api

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
)

// TestNullableByTheLetter: every null the documents promise is one that
// OpenAPI 3.0.3 admits, so generated clients and validating proxies take
// the nulls the servers send.
func TestNullableByTheLetter(t *testing.T) {
	for name, load := range map[string]func() (*openapi3.T, error){"guide": LoadGuide, "property": LoadProperty} {
		doc, err := load()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range apitest.NullableErrors(doc) {
			t.Errorf("%s.yaml: %s", name, e)
		}
	}
}
