package httpx

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// Query reads query parameters, collecting a message for each bad one so
// that one 400 can name them all. An empty value counts as absent.
type Query struct {
	values url.Values
	Errs   apperr.FieldErrors
}

// NewQuery wraps the query of a request.
func NewQuery(v url.Values) *Query { return &Query{values: v, Errs: apperr.FieldErrors{}} }

// String returns the trimmed parameter, cut to no more than maxLen bytes
// being an error.
func (q *Query) String(name string, maxLen int) string {
	s := strings.TrimSpace(q.values.Get(name))
	if len(s) > maxLen {
		q.Errs.Add(name, "must be at most "+strconv.Itoa(maxLen)+" characters")
		return ""
	}
	return s
}

// Int returns the parameter as an integer in [min, max], or def when absent.
func (q *Query) Int(name string, def, min, max int) int {
	s := strings.TrimSpace(q.values.Get(name))
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < min || n > max {
		q.Errs.Add(name, "must be a whole number from "+strconv.Itoa(min)+" to "+strconv.Itoa(max))
		return def
	}
	return n
}

// Enum returns the parameter if it is one of allowed (compared without
// regard to case, returned as spelled in allowed), or def when absent.
func (q *Query) Enum(name, def string, allowed []string) string {
	s := strings.TrimSpace(q.values.Get(name))
	if s == "" {
		return def
	}
	if i := slices.IndexFunc(allowed, func(a string) bool { return strings.EqualFold(a, s) }); i >= 0 {
		return allowed[i]
	}
	q.Errs.Add(name, "must be one of: "+strings.Join(allowed, ", "))
	return def
}

// Err returns the collected validation error, if any.
func (q *Query) Err() error { return q.Errs.Err() }
