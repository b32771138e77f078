package httpx

import (
	"net/http"
	"slices"
	"testing"
)

// TestVaryOn: the name is added once, beside what Vary holds, never in
// its place.
func TestVaryOn(t *testing.T) {
	for _, c := range []struct {
		vary []string
		want []string
	}{
		{nil, []string{"Accept-Encoding"}},
		{[]string{"Origin"}, []string{"Origin", "Accept-Encoding"}},
		{[]string{"Origin, accept-encoding"}, []string{"Origin, accept-encoding"}},
		{[]string{"Origin", "Accept-Encoding"}, []string{"Origin", "Accept-Encoding"}},
		{[]string{"*"}, []string{"*"}},
	} {
		h := http.Header{}
		for _, v := range c.vary {
			h.Add("Vary", v)
		}
		VaryOn(h, "Accept-Encoding")
		if got := h.Values("Vary"); !slices.Equal(got, c.want) {
			t.Errorf("Vary %q: got %q, want %q", c.vary, got, c.want)
		}
	}
}
