package httpapi

import (
	"bytes"
	"io"
	"net/http"
)

// CheckJSONBody reads a JSON request body (up to MaxJSONBody) that
// another decoder will read, such as a JSON-RPC message for the MCP SDK,
// and checks its text as Decode does; r.Body then reads the same bytes
// again. Errors: apperr.TooLarge, apperr.Validation.
func CheckJSONBody(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxJSONBody))
	if err != nil {
		return decodeError(err)
	}
	if err := checkJSONText(body); err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}
