// Package apperr is the error type both APIs share: a stable code the
// caller can act on, a message safe to show, and per-field details.
package apperr

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
)

// Error codes. Each is stable, documented at /docs/errors/{code}, and maps to
// one HTTP status in the HTTP layer.
const (
	Validation       = "VALIDATION_ERROR"
	Unauthorized     = "UNAUTHORIZED"
	Forbidden        = "FORBIDDEN"
	Scope            = "INSUFFICIENT_SCOPE"
	NotFound         = "NOT_FOUND"
	MethodNotAllowed = "METHOD_NOT_ALLOWED"
	Conflict         = "CONFLICT"
	EmailTaken       = "EMAIL_ALREADY_REGISTERED"
	InvalidState     = "INVALID_STATE"
	TooLarge         = "PAYLOAD_TOO_LARGE"
	MediaType        = "UNSUPPORTED_MEDIA_TYPE"
	RateLimited      = "RATE_LIMITED"
	Internal         = "INTERNAL_ERROR"
	Unavailable      = "SERVICE_UNAVAILABLE"

	// Codes of the property platform API.
	StayUnavailable       = "UNAVAILABLE"             // the stay cannot be had; details.reason says why
	Gone                  = "GONE"                    // the resource existed but has expired (a quote)
	IdempotencyKeyReused  = "IDEMPOTENCY_KEY_REUSED"  // an Idempotency-Key sent again with another request
	IdempotencyInProgress = "IDEMPOTENCY_IN_PROGRESS" // the first request with the Idempotency-Key still runs
	InventoryConflict     = "INVENTORY_CONFLICT"      // a calendar update would offer fewer units than are booked and held
)

// PersonConfirmation: an API key tried to confirm a pending action that
// only the person may confirm, with a user token or the web session.
const PersonConfirmation = "PERSON_CONFIRMATION_REQUIRED"

// Error is a failure the caller can act on: a code from the list above, a
// message safe to show, and optional details (for validation errors, one
// entry per offending field).
type Error struct {
	Code       string
	Message    string
	Details    map[string]any
	RetryAfter int // seconds; set on rate-limit errors
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Code returns the code of err, or Internal when err is not an *Error.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
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
	return &Error{Code: Validation, Message: "The request has invalid fields; see details.", Details: details}
}

// Field returns a VALIDATION_ERROR about one field.
func Field(field, msg string) error {
	errs := FieldErrors{}
	errs.Add(field, msg)
	return errs.Err()
}

// Outage reports whether err says that a dependency of the service, the
// database or Redis, is unreachable or restarting: a connection refused or
// dropped, or PostgreSQL shutting down, starting up or out of
// connections. Such a failure is the caller's to retry (Unavailable), not
// a fault of the request.
func Outage(err error) bool {
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		switch c := state.SQLState(); {
		case strings.HasPrefix(c, "08"), // connection exceptions
			c == "57P01", c == "57P02", c == "57P03", // admin or crash shutdown, cannot connect now
			c == "53300": // too many connections
			return true
		}
		return false
	}
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}
