package guideocto

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// OCTO error codes: the error field of an OCTO error body.
const (
	codeInvalidProductID      = "INVALID_PRODUCT_ID"
	codeInvalidOptionID       = "INVALID_OPTION_ID"
	codeInvalidUnitID         = "INVALID_UNIT_ID"
	codeInvalidAvailabilityID = "INVALID_AVAILABILITY_ID"
	codeInvalidBookingUUID    = "INVALID_BOOKING_UUID"
	codeUnprocessable         = "UNPROCESSABLE_ENTITY"
	codeBadRequest            = "BAD_REQUEST"
	codeUnauthorized          = "UNAUTHORIZED"
	codeForbidden             = "FORBIDDEN"
	codeInternal              = "INTERNAL_SERVER_ERROR"
)

// idCodes are the codes of the ids the service names in an error's
// details when it finds nothing for one (apperr.NotFound) or the id is
// taken (apperr.Conflict).
var idCodes = map[string]string{
	"productId":      codeInvalidProductID,
	"optionId":       codeInvalidOptionID,
	"unitId":         codeInvalidUnitID,
	"availabilityId": codeInvalidAvailabilityID,
	"uuid":           codeInvalidBookingUUID,
}

// idCode returns the OCTO code of an error naming an id, with the id.
func idCode(e *apperr.Error) (code, field string, ok bool) {
	if e.Code != apperr.NotFound && e.Code != apperr.Conflict || len(e.Details) != 1 {
		return "", "", false
	}
	for f := range e.Details {
		code, ok = idCodes[f]
		return code, f, ok
	}
	return "", "", false
}

// writeError answers err in OCTO's error body: the one adapter from the
// service's apperr codes to OCTO's. OCTO answers every error of the
// request 400 (UNAUTHORIZED and FORBIDDEN too, as its document and
// validator do), with the code of the id at fault and that id when the
// service names one; a state that does not allow the request, or a start
// taken, is UNPROCESSABLE_ENTITY; anything else the request got wrong
// BAD_REQUEST. A spent rate limit is 429 with Retry-After, an internal
// error 500 (logged) and an outage 503. Only the router answers an unknown
// path (404) or a wrong method (405, with Allow), as BAD_REQUEST.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, code := http.StatusBadRequest, codeBadRequest
	e := httpx.AppError(r, err, "There was an un-recoverable error, please try again.")
	body := map[string]any{}
	msg := e.Message
	if c, field, ok := idCode(e); ok {
		code, body[field] = c, e.Details[field]
	} else {
		switch e.Code {
		case apperr.Unauthorized:
			code = codeUnauthorized
		case apperr.Forbidden, apperr.Scope:
			code = codeForbidden
		case apperr.InvalidState, apperr.Conflict:
			code = codeUnprocessable
		case apperr.Validation:
			if len(e.Details) > 0 {
				msg = fieldList(e.Details)
			}
		case apperr.NotFound:
			status = http.StatusNotFound
		case apperr.MethodNotAllowed:
			status = http.StatusMethodNotAllowed
		case apperr.RateLimited:
			status = http.StatusTooManyRequests
		case apperr.Unavailable:
			status, code = http.StatusServiceUnavailable, codeInternal
		case apperr.Internal:
			status, code = http.StatusInternalServerError, codeInternal
		}
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	body["error"], body["errorMessage"] = code, msg
	w.Header().Del("Content-Language")
	w.Header().Del("Available-Languages")
	httpx.WriteJSON(w, status, body)
}

// fieldList names each field at fault with its reason, sorted.
func fieldList(details map[string]any) string {
	var parts []string
	for f, m := range details {
		parts = append(parts, f+" "+toString(m))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

// bookingError words the service's field errors about a booking as one
// sentence, as OCTO's errorMessage has always named them; the door's own
// (a body it cannot read) stay as writeError lists them.
func bookingError(err error) error {
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.Validation || len(e.Details) == 0 {
		return err
	}
	return apperr.Errorf(apperr.Validation, "%s.", fieldList(e.Details))
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
