package httpapi

import (
	"net/http"
	"net/mail"
	"strings"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/apperr"
)

// CheckEmail validates an e-mail field: a bare address of at most 254
// characters with a dotted domain. It returns the address trimmed.
func CheckEmail(errs apperr.FieldErrors, field string, v *string) string {
	if v == nil {
		errs.Add(field, "is required")
		return ""
	}
	e := strings.TrimSpace(*v)
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || len(e) > 254 || !strings.Contains(e[strings.LastIndexByte(e, '@')+1:], ".") {
		errs.Add(field, "must be an e-mail address")
	}
	return e
}

// PathID returns the {id} of the path when it is a UUID. Anything else
// cannot name a resource, so it is NOT_FOUND, with what in the message.
func PathID(r *http.Request, what string) (string, error) {
	id := r.PathValue("id")
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", apperr.Errorf(apperr.NotFound, "No %s with id %q.", what, id)
	}
	return u.String(), nil
}
