package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// bodyLimitKey carries a route's own JSON body limit (see LimitBody).
type bodyLimitKey struct{}

// LimitBody returns h reading JSON bodies of up to n bytes instead of
// MaxJSONBody, for the few routes whose documented maximum needs more
// room (a calendar push of 500 updates): Decode, CheckJSONBody and
// Idempotency.Wrap all read the limit from the request, so that the
// route's handlers agree on it whichever reads the body first.
func LimitBody(n int64, h HandlerFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		return h(w, r.WithContext(context.WithValue(r.Context(), bodyLimitKey{}, n)))
	}
}

// readJSONBody reads r's body up to its route's limit (MaxJSONBody unless
// LimitBody set another); past it the error is an *http.MaxBytesError.
func readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	limit := int64(MaxJSONBody)
	if n, ok := r.Context().Value(bodyLimitKey{}).(int64); ok {
		limit = n
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

// CheckJSONBody reads a JSON request body (up to MaxJSONBody, or the
// route's LimitBody) that another decoder will read, such as a JSON-RPC
// message for the MCP SDK, and checks its text as Decode does; r.Body
// then reads the same bytes again. Errors: apperr.TooLarge, apperr.Validation.
func CheckJSONBody(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSONBody(w, r)
	if err != nil {
		return decodeError(err)
	}
	if err := checkJSONText(body); err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}
