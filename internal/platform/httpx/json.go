package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// MaxJSONBody is the largest JSON request body an endpoint reads, unless
// its route sets another with LimitBody.
const MaxJSONBody = 64 << 10

// WriteJSON answers with v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		// Only a programming error gets here: every response type marshals.
		http.Error(w, `{"error":{"code":"INTERNAL_ERROR"}}`, http.StatusInternalServerError)
		return
	}
	WriteJSONBytes(w, status, body)
}

// WriteJSONBytes answers with an already encoded JSON body.
func WriteJSONBytes(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// Decode reads the JSON object in r's body into dst. Bodies over
// MaxJSONBody (or the route's LimitBody), strings (keys too) that are not UTF-8 text without NUL,
// unknown fields, wrong types, trailing data and malformed JSON are refused
// with a VALIDATION_ERROR (or PAYLOAD_TOO_LARGE) whose details name the
// field at fault. The body is judged by its content, not
// its Content-Type, so that a JSON body sent by a client that forgot the
// header (curl -d sends a form type) still works; only a multipart upload
// is refused as the wrong media type.
func Decode(w http.ResponseWriter, r *http.Request, dst any) error {
	return decode(w, r, dst, true)
}

// DecodeOpen is Decode for a protocol whose clients may send fields an
// implementation does not know (OCTO's capabilities add request fields,
// which a supplier without them ignores): unknown fields are skipped, and
// an empty body leaves dst as it is. Everything else is checked as Decode
// checks it.
func DecodeOpen(w http.ResponseWriter, r *http.Request, dst any) error {
	return decode(w, r, dst, false)
}

func decode(w http.ResponseWriter, r *http.Request, dst any, strict bool) error {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && strings.HasPrefix(mt, "multipart/") {
		return apperr.Errorf(apperr.MediaType, "Send the body as application/json.")
	}
	body, err := readJSONBody(w, r, routeLimit(r))
	if err != nil {
		return decodeError(err)
	}
	if !strict && len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := checkJSONText(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return bodyError("the body must hold a single JSON object")
	}
	return nil
}

func decodeError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return apperr.Errorf(apperr.TooLarge, "The body is larger than %d bytes.", tooBig.Limit)
	case errors.Is(err, io.EOF):
		return bodyError("a JSON object is required")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return bodyError("the JSON ends too early")
	case errors.As(err, &syntax):
		return bodyError(fmt.Sprintf("malformed JSON at byte %d", syntax.Offset))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return bodyError("the body must be a JSON object")
		}
		return apperr.Field(typ.Field, "must be "+jsonKind(typ.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apperr.Field(name, "is not a field of this request")
	}
	return bodyError("the body could not be read as JSON")
}

func jsonKind(goKind string) string {
	switch {
	case goKind == "string":
		return "a string"
	case goKind == "bool":
		return "true or false"
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"):
		return "a whole number"
	case strings.HasPrefix(goKind, "float"):
		return "a number"
	case goKind == "slice" || goKind == "array":
		return "an array"
	}
	return "an object"
}

func bodyError(msg string) error { return apperr.Field("body", msg) }
