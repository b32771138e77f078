package httpx

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// MaxCredential bounds a credential read from a header: real tokens and
// keys are far shorter, and nothing longer is parsed.
const MaxCredential = 4096

// BearerToken returns the credential of "Authorization: Bearer <value>";
// ok is false when the header is absent. A malformed or over-long header
// is an UNAUTHORIZED error.
func BearerToken(r *http.Request) (value string, ok bool, err error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false, nil
	}
	scheme, value, found := strings.Cut(h, " ")
	value = strings.TrimSpace(value)
	if !found || !strings.EqualFold(scheme, "Bearer") || value == "" {
		return "", true, apperr.Errorf(apperr.Unauthorized, "The Authorization header must be \"Bearer <credential>\".")
	}
	if len(value) > MaxCredential {
		return "", true, apperr.Errorf(apperr.Unauthorized, "The bearer credential is too long.")
	}
	return value, true, nil
}

// SameOrigin reports whether r may act on a credential the browser sends by
// itself (a session cookie). Safe methods always may. A state change may
// only when no header says it comes from another origin: Sec-Fetch-Site,
// when sent, is same-origin or none, and every Origin, when sent, names
// this host. Both are checked, unlike http.CrossOriginProtection, which
// trusts "none" without looking at Origin: a foreign Origin with "none"
// is not a user's own navigation but a forged or confused request. A
// request without either header is not from a browser, which is what
// carries cookies across sites.
func SameOrigin(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	for _, site := range r.Header.Values("Sec-Fetch-Site") {
		if site != "same-origin" && site != "none" {
			return false
		}
	}
	for _, origin := range r.Header.Values("Origin") {
		// "null" (sandboxed frames, cross-origin redirects) has no host and
		// fails here. The host alone is compared, as the standard library
		// does: the scheme is not known behind a proxy that is not trusted.
		o, err := url.Parse(origin)
		if err != nil || (o.Scheme != "http" && o.Scheme != "https") || !strings.EqualFold(o.Host, r.Host) {
			return false
		}
	}
	return true
}
