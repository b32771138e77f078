package media

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// CheckRefs checks the image URLs a caller sends for field (at most max)
// and returns their stored references ("/media/…"); nil (the field null)
// is no images. Each URL must be absolute on publicURL or a path under
// /media/; anything else (another host, a query, "..", a percent-encoded
// byte, a backslash, which browsers read as a slash) is added to errs as
// field[i], so that stored images are always this API's own and
// Resolve can make them absolute again. A reference is returned in
// its one clean form ("." segments and repeated slashes removed, as the
// server's router resolves them before serving), so that a caller's check
// of whose image it is sees the path the reference names.
func CheckRefs(errs apperr.FieldErrors, field, publicURL string, urls *[]string, max int) []string {
	refs := []string{}
	if urls == nil {
		return refs
	}
	if len(*urls) > max {
		errs.Add(field, fmt.Sprintf("at most %d images", max))
	}
	for i, v := range *urls {
		if ref, ok := cleanRef(publicURL, v); ok {
			refs = append(refs, ref)
		} else {
			errs.Add(fmt.Sprintf("%s[%d]", field, i), "must be an image URL on this API ("+publicURL+"/media/…)")
		}
	}
	return refs
}

func cleanRef(publicURL, v string) (string, bool) {
	if len(v) > 500 {
		return "", false
	}
	if publicURL != "" && strings.HasPrefix(v, publicURL+"/") {
		v = strings.TrimPrefix(v, publicURL)
	}
	u, err := url.Parse(v)
	// u.Path is decoded: it differs from v when v holds a %XX escape.
	if err != nil || u.Scheme != "" || u.Host != "" || u.RawQuery != "" || u.Fragment != "" ||
		strings.Contains(u.Path, "..") || strings.Contains(u.Path, `\`) || u.Path != v {
		return "", false
	}
	clean := path.Clean(u.Path)
	if !strings.HasPrefix(clean, "/media/") {
		return "", false
	}
	return clean, true
}

// URL is the address a stored image reference is shown at: a path on this
// API ("/media/…", the only form the server stores for its own images)
// becomes absolute with httpx.AbsoluteURL; anything else (an http(s) URL a
// client gave, such as the image of a message) is kept as it is.
func URL(ctx context.Context, ref string) string {
	if strings.HasPrefix(ref, "/") && !strings.HasPrefix(ref, "//") {
		return httpx.AbsoluteURL(ctx, ref)
	}
	return ref
}

// Referrer is implemented by the values the APIs answer with that refer to
// images: MediaRefs calls f with each non-nil reference, which f may
// rewrite in place.
type Referrer interface {
	MediaRefs(f func(ref *string))
}

// Resolve rewrites the image references of each value with URL, so that
// every image the APIs answer with is an absolute URL. It may be applied
// more than once.
func Resolve[R Referrer](ctx context.Context, values ...R) {
	for _, v := range values {
		v.MediaRefs(func(ref *string) { *ref = URL(ctx, *ref) })
	}
}
