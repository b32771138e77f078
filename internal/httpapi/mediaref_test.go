package httpapi

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/apperr"
)

// TestCheckMediaRefs: image URLs on the public URL and /media/ paths become
// stored paths; anything that could point elsewhere is refused by index,
// and more than the maximum is refused as a whole.
func TestCheckMediaRefs(t *testing.T) {
	const pub = "https://api.example.com/v2"
	urls := []string{
		pub + "/media/packages/ab.jpg", "/media/sample/a.jpg", // kept
		"https://evil.example/media/a.jpg", pub + "/media/a.jpg?x=1", "/media/../secrets", "/avatars/a.jpg",
		"//evil.example/media/a.jpg", "/media/a.jpg#f", "/media/" + strings.Repeat("a", 500),
	}
	errs := apperr.FieldErrors{}
	refs := CheckMediaRefs(errs, "images", pub, &urls, 3)
	if !slices.Equal(refs, []string{"/media/packages/ab.jpg", "/media/sample/a.jpg"}) {
		t.Errorf("refs %q", refs)
	}
	if errs["images"] == "" {
		t.Error("more than the maximum was not refused")
	}
	for i := 2; i < len(urls); i++ {
		if errs["images["+strconv.Itoa(i)+"]"] == "" {
			t.Errorf("%q was not refused: %v", urls[i], errs)
		}
	}
	if refs := CheckMediaRefs(apperr.FieldErrors{}, "images", pub, nil, 3); refs == nil || len(refs) != 0 {
		t.Errorf("null: %q, want no images", refs)
	}
}
