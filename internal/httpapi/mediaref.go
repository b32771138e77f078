package httpapi

import (
	"net/url"
	"strings"
)

// MediaRef returns the stored reference ("/media/…") of an image URL a
// caller sends: absolute on publicURL, or a path under /media/. Anything
// else (another host, a query, "..") is refused, so stored images are
// always this API's own and ResolveMedia can make them absolute again.
func MediaRef(publicURL, v string) (string, bool) {
	if len(v) > 500 {
		return "", false
	}
	if publicURL != "" && strings.HasPrefix(v, publicURL+"/") {
		v = strings.TrimPrefix(v, publicURL)
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "" || u.Host != "" || u.RawQuery != "" || u.Fragment != "" ||
		!strings.HasPrefix(u.Path, "/media/") || strings.Contains(u.Path, "..") || u.Path != v {
		return "", false
	}
	return v, true
}
