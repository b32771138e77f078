// Package field holds the checks of the fields a caller sends, whatever
// door they come through: text (UTF-8 without NUL, trimmed, bounded),
// e-mail addresses, passwords, allowed values, whole numbers in a range,
// and optional body fields. A domain checks its input with it; a door
// parses its wire format with it (httpx reads query parameters through
// it), so that each check and its message exist once.
package field

import (
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// BadText is the message of a field that is not valid text.
const BadText = "must be valid UTF-8 text without NUL characters"

// IsText reports whether s is valid text: UTF-8 without NUL. PostgreSQL
// refuses NUL in text (an error that would become a 500), SQLite would
// store it, and invalid UTF-8 would be kept or mangled.
func IsText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

// MaxKey bounds a name a caller gives a resource by, such as a path
// value: ids, handles, slugs, codes and storage keys are far shorter, and
// nothing longer reaches a query.
const MaxKey = 200

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

// Text returns the optional argument v trimmed, "" when absent; more than
// maxLen bytes is an error (and "").
func Text(errs apperr.FieldErrors, field, v string, maxLen int) string {
	v = strings.TrimSpace(v)
	if len(v) > maxLen {
		errs.Add(field, "must be at most "+strconv.Itoa(maxLen)+" characters")
		return ""
	}
	return v
}

// Enum returns the optional argument v if it is one of allowed (compared
// without regard to case, returned as spelled in allowed), or def when
// absent.
func Enum(errs apperr.FieldErrors, field, v, def string, allowed []string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return def
	}
	if i := slices.IndexFunc(allowed, func(a string) bool { return strings.EqualFold(a, v) }); i >= 0 {
		return allowed[i]
	}
	errs.Add(field, "must be one of: "+strings.Join(allowed, ", "))
	return def
}
