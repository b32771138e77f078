package guideocto_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/api"
	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guideocto"
)

// TestRouteInventory: the door's routes are the OCTO document's paths
// under /octo, each with and without its trailing slash, and its
// reference under /docs/octo.
func TestRouteInventory(t *testing.T) {
	t.Parallel()
	doc, err := api.LoadOcto()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			p := method + " /octo" + strings.TrimSuffix(path, "/")
			want = append(want, p, p+"/{$}")
		}
	}
	var got []string
	for _, p := range guideocto.New(guideocto.Config{Service: &guide.Service{}}).Routes() {
		if !strings.HasPrefix(p, "GET /docs/octo") {
			got = append(got, p)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("routes (-documented +registered):\n%s", diff)
	}
}
