package httpx

import (
	"net/url"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
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
	return field.Text(q.Errs, name, q.values.Get(name), maxLen)
}

// Int returns the parameter as an integer in [min, max], or def when absent.
func (q *Query) Int(name string, def, min, max int) int {
	r := field.Range[int]{Min: min, Max: max}
	return r.Check(q.Errs, name, r.Parse(q.Errs, name, q.values.Get(name)), def)
}

// Whole returns the parameter as a whole number, nil when absent; its
// range is the service's to check, r names it when the parameter is no
// whole number.
func (q *Query) Whole(name string, r field.Range[int]) *int {
	return r.Parse(q.Errs, name, q.values.Get(name))
}

// Enum returns the parameter if it is one of allowed (compared without
// regard to case, returned as spelled in allowed), or def when absent.
func (q *Query) Enum(name, def string, allowed []string) string {
	return field.Enum(q.Errs, name, q.values.Get(name), def, allowed)
}

// Err returns the collected validation error, if any.
func (q *Query) Err() error { return q.Errs.Err() }
