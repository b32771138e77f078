package httpapi

import (
	"net/http"
	"strings"

	"github.com/wayfarer-asia/platform/internal/apperr"
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
