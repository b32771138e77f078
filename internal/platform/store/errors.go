package store

import (
	"errors"
	"fmt"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// Wrap prefixes the error in *errp with the operation that failed, so that
// a logged 500 says where it came from: "find booking 42: <err>". Domain
// errors (apperr) are left as they are: their code and message are the
// answer. The wrapped error still matches errors.Is and errors.As. Defer it
// on the named error result of an exported method:
//
//	defer store.Wrap(&err, "find booking %s", id)
func Wrap(errp *error, format string, args ...any) {
	var domain *apperr.Error
	if *errp == nil || errors.As(*errp, &domain) {
		return
	}
	*errp = fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), *errp)
}
