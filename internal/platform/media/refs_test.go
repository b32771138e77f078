package media

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// TestCheckRefs: image URLs on the public URL and /media/ paths become
// stored paths, in their clean form; anything that could point elsewhere
// (percent-encoded bytes, backslashes and ".." included) is refused by
// index, and more than the maximum is refused as a whole.
func TestCheckRefs(t *testing.T) {
	const pub = "https://api.example.com/v2"
	urls := []string{
		pub + "/media/packages/ab.jpg", "/media/sample/a.jpg", pub + "/media/./packages/p2/x.jpg", "/media//packages/p2/./y.jpg", // kept
		"https://evil.example/media/a.jpg", pub + "/media/a.jpg?x=1", "/media/../secrets", "/avatars/a.jpg",
		"//evil.example/media/a.jpg", "/media/a.jpg#f", "/media/" + strings.Repeat("a", 500),
		"/media/%2e/packages/p2/x.jpg", "/media/%2E%2E/secrets", "/media/packages%2fp2/x.jpg", "/media/pack%61ges/p2/x.jpg",
		"/media/sample/..", "/media/.", "/media/./../media/a.jpg", `/media/.\packages\p2\x.jpg`, "/media/./", "/media/%00",
	}
	errs := apperr.FieldErrors{}
	refs := CheckRefs(errs, "images", pub, &urls, 3)
	if !slices.Equal(refs, []string{"/media/packages/ab.jpg", "/media/sample/a.jpg", "/media/packages/p2/x.jpg", "/media/packages/p2/y.jpg"}) {
		t.Errorf("refs %q", refs)
	}
	if errs["images"] == "" {
		t.Error("more than the maximum was not refused")
	}
	for i := 4; i < len(urls); i++ {
		if errs["images["+strconv.Itoa(i)+"]"] == "" {
			t.Errorf("%q was not refused: %v", urls[i], errs)
		}
	}
	if refs := CheckRefs(apperr.FieldErrors{}, "images", pub, nil, 3); refs == nil || len(refs) != 0 {
		t.Errorf("null: %q, want no images", refs)
	}
}
