// Package guide is the guide marketplace domain: its resources, the rules
// that govern them and the services that the store implements and the HTTP
// layer calls.
package guide

import (
	"errors"
	"fmt"
)

// Error codes. Each is stable, documented at /docs/errors/{code}, and maps to
// one HTTP status in the HTTP layer.
const (
	EVALIDATION   = "VALIDATION_ERROR"
	EUNAUTHORIZED = "UNAUTHORIZED"
	EFORBIDDEN    = "FORBIDDEN"
	ESCOPE        = "INSUFFICIENT_SCOPE"
	ENOTFOUND     = "NOT_FOUND"
	EMETHOD       = "METHOD_NOT_ALLOWED"
	ECONFLICT     = "CONFLICT"
	EEMAILTAKEN   = "EMAIL_ALREADY_REGISTERED"
	EINVALIDSTATE = "INVALID_STATE"
	ETOOLARGE     = "PAYLOAD_TOO_LARGE"
	EMEDIATYPE    = "UNSUPPORTED_MEDIA_TYPE"
	ERATELIMITED  = "RATE_LIMITED"
	EINTERNAL     = "INTERNAL_ERROR"
	EUNAVAILABLE  = "SERVICE_UNAVAILABLE"
)

// Error is a failure the caller can act on: a code from the list above, a
// message safe to show, and optional details (for validation errors, one
// entry per offending field).
type Error struct {
	Code    string
	Message string
	Details map[string]any
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, or EINTERNAL when err is not an *Error.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// FieldErrors collects per-field validation failures.
type FieldErrors map[string]string

// Add records a failure for field; the first one recorded wins.
func (f FieldErrors) Add(field, msg string) {
	if _, ok := f[field]; !ok {
		f[field] = msg
	}
}

// Err returns nil when nothing was recorded, else a VALIDATION_ERROR whose
// details name every offending field.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	details := make(map[string]any, len(f))
	for k, v := range f {
		details[k] = v
	}
	return &Error{Code: EVALIDATION, Message: "The request has invalid fields; see details.", Details: details}
}
