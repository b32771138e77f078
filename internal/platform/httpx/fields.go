package httpx

import (
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
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

// CheckString validates a text field of min to max characters, counted
// after surrounding white space is trimmed, and returns it trimmed. A nil
// field is an error when required.
func CheckString(errs apperr.FieldErrors, field string, v *string, required bool, min, max int) string {
	if v == nil {
		if required {
			errs.Add(field, "is required")
		}
		return ""
	}
	s := strings.TrimSpace(*v)
	n := utf8.RuneCountInString(s)
	switch {
	case n < min:
		errs.Add(field, "must be at least "+strconv.Itoa(min)+" characters")
	case n > max:
		errs.Add(field, "must be at most "+strconv.Itoa(max)+" characters")
	}
	return s
}

// MaxPassword bounds the work a password costs to hash.
const MaxPassword = 256

// CheckPassword validates the password of a signup or a login, the same
// way on both APIs: 8 to MaxPassword characters, taken as sent (never
// trimmed).
func CheckPassword(errs apperr.FieldErrors, field string, v *string) string {
	if v == nil {
		errs.Add(field, "is required")
		return ""
	}
	if n := utf8.RuneCountInString(*v); n < 8 || n > MaxPassword {
		errs.Add(field, "must be 8 to "+strconv.Itoa(MaxPassword)+" characters")
	}
	return *v
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
