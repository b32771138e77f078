package field

import (
	"strconv"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// Range is the whole numbers a field admits. A domain checks a value
// against it; a door that receives numbers as text names the same range
// when the text is no whole number, so that both say it alike.
type Range[T ~int | ~int64] struct {
	Min, Max T
	// Message replaces "must be a whole number from Min to Max".
	Message string
}

func (r Range[T]) message() string {
	if r.Message != "" {
		return r.Message
	}
	return "must be a whole number from " + strconv.FormatInt(int64(r.Min), 10) + " to " + strconv.FormatInt(int64(r.Max), 10)
}

// Check returns *v when in the range, def when v is nil; a value out of
// the range is an error (and def).
func (r Range[T]) Check(errs apperr.FieldErrors, field string, v *T, def T) T {
	if v == nil {
		return def
	}
	if *v < r.Min || *v > r.Max {
		errs.Add(field, r.message())
		return def
	}
	return *v
}

// Parse reads the whole number written in s, nil when s is empty or white
// space. Text that is no whole number of T is an error (and nil); the
// range itself is Check's.
func (r Range[T]) Parse(errs apperr.FieldErrors, field, s string) *T {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || int64(T(n)) != n {
		errs.Add(field, r.message())
		return nil
	}
	v := T(n)
	return &v
}
