package httpx

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// bodyLimitKey carries a route's own JSON body limit (see LimitBody).
type bodyLimitKey struct{}

// LimitBody returns h reading JSON bodies of up to n bytes instead of
// MaxJSONBody, for the few routes whose documented maximum needs more
// room (a calendar push of 500 updates): Decode and ReadBody (which the
// Idempotency-Key middleware reads with) both take the limit from the
// request, so that the
// route's handlers agree on it whichever reads the body first.
func LimitBody(n int64, h HandlerFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		return h(w, r.WithContext(context.WithValue(r.Context(), bodyLimitKey{}, n)))
	}
}

// readJSONBody reads r's body up to limit; past it the error is an
// *http.MaxBytesError.
func readJSONBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

// ReadBody reads r's body, up to the route's limit (MaxJSONBody unless
// LimitBody set another), for a middleware that must see the body before
// the handler decodes it; r.Body then reads the same bytes again. Errors:
// apperr.TooLarge, apperr.Validation (details.body).
func ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := readJSONBody(w, r, routeLimit(r))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, apperr.Errorf(apperr.TooLarge, "The body is larger than %d bytes.", tooBig.Limit)
		}
		return nil, apperr.Field("body", "the body could not be read")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// routeLimit is the JSON body limit of r's route: MaxJSONBody unless
// LimitBody set another.
func routeLimit(r *http.Request) int64 {
	if n, ok := r.Context().Value(bodyLimitKey{}).(int64); ok {
		return n
	}
	return MaxJSONBody
}

// CheckJSONBody reads a JSON request body of up to limit bytes that
// another decoder will read, such as a JSON-RPC message for the MCP SDK,
// and checks its text as Decode does; r.Body then reads the same bytes
// again. The limit is explicit, not the route's context value, so that it
// cannot reach the requests a handler makes from r's context. Errors:
// apperr.TooLarge, apperr.Validation.
func CheckJSONBody(w http.ResponseWriter, r *http.Request, limit int64) error {
	body, err := readJSONBody(w, r, limit)
	if err != nil {
		return decodeError(err)
	}
	if err := checkJSONText(body); err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}
