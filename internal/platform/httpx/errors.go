// Package httpx is the HTTP plumbing both APIs share: the error envelope,
// JSON decoding and encoding, query parsing and middleware.
package httpx

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// HandlerFunc is an HTTP handler that returns its failure instead of
// writing it; Adapt turns the failure into the error envelope.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// CodeInfo documents one error code.
type CodeInfo struct {
	Code      string
	Status    int
	Title     string
	Retriable bool
	Help      string // what the caller should do
}

// Codes lists every error code the APIs answer with.
var Codes = []CodeInfo{
	{apperr.Validation, 400, "Validation error", false, "A path parameter, query parameter or body field is missing, malformed or out of bounds, or holds text that is not UTF-8 or contains a NUL character. error.details names each offending field (or \"body\" for JSON that cannot be read) with the reason. Fix the request and send it again."},
	{apperr.Unauthorized, 401, "Unauthorized", false, "Credentials are missing, malformed, expired or revoked, or a login failed. Send a valid user token or API key in the Authorization header as \"Bearer <token>\"."},
	{apperr.Forbidden, 403, "Forbidden", false, "The caller is authenticated but this resource or action is not theirs: for example a booking of another traveller, or a key trying to manage keys."},
	{apperr.Scope, 403, "Insufficient scope", false, "The API key lacks the scope this endpoint needs. error.details.requiredScope names it; create a key with that scope."},
	{apperr.NotFound, 404, "Not found", false, "No resource exists at this path or with this id, handle or slug, or it is not public (an unverified expert, an inactive package, a draft travelogue)."},
	{apperr.MethodNotAllowed, 405, "Method not allowed", false, "The path exists but does not accept this HTTP method. The Allow response header lists the methods it does accept."},
	{apperr.Conflict, 409, "Conflict", false, "The request conflicts with the resource's current state, for example a review of a booking that is not completed or already reviewed."},
	{apperr.EmailTaken, 409, "E-mail already registered", false, "An account with this e-mail address exists. Log in instead, or register with another address."},
	{apperr.TooLarge, 413, "Payload too large", false, "The request body is larger than this endpoint accepts. Send a smaller body."},
	{apperr.MediaType, 415, "Unsupported media type", false, "The request body is not of a type this endpoint accepts (JSON, or for the avatar a JPEG, PNG or WebP image)."},
	{apperr.InvalidState, 422, "Invalid state", false, "The action is not allowed in the resource's current state, for example cancelling a booking that is already cancelled or completed, or confirming an expired action."},
	{apperr.RateLimited, 429, "Rate limited", true, "Too many requests from this client or key. Wait the number of seconds in the Retry-After header (also error.retry_after) and try again; the X-RateLimit-* and RateLimit-Policy/RateLimit headers tell the budget."},
	{apperr.Internal, 500, "Internal error", true, "The server failed unexpectedly. The failure is logged under the requestId of the response; retrying later may succeed."},
	{apperr.Unavailable, 503, "Service unavailable", true, "A dependency of the service is unreachable. Retry after a short wait."},
}

// GuideCodes lists the codes only the guide marketplace API answers with.
var GuideCodes = []CodeInfo{
	{apperr.PersonConfirmation, 403, "Person confirmation required", false, "The pending action is the person's alone to confirm: it was asked for through the MCP endpoint, or by a key created with \"confirmation\": \"person\". No API key can confirm it, the one that asked included. The person confirms it with their user token (in the app) or signed in on the confirmation page; the action stays pending until then."},
}

// PropertyCodes lists the codes only the property platform API answers
// with. They are kept apart from Codes, whose every entry the guide API's
// document describes; both lists are served by the /docs/errors pages.
var PropertyCodes = []CodeInfo{
	{apperr.StayUnavailable, 409, "Unavailable", false, "The stay cannot be had as asked. error.details.reason says why: sold_out (no unit left for the night in details.date), min_stay (the arrival night requires at least details.minStay nights), closed (the property does not sell the night in details.date), closed_to_arrival (no arrival on details.date), closed_to_departure (no departure on details.date) or max_guests (the room type takes at most details.maxGuests guests). Change the dates, the room type or the number of guests; the availability calendar shows every restriction."},
	{apperr.Gone, 410, "Gone", false, "The resource existed but has expired: a quote whose hold ran out (see its expiresAt). Its units were released; ask for a new quote."},
	{apperr.IdempotencyKeyReused, 422, "Idempotency key reused", false, "This Idempotency-Key was first sent with another request (another method, path or body, or another key mode). Use a new Idempotency-Key for a different request; keys are remembered for 24 hours per account."},
	{apperr.InventoryConflict, 409, "Inventory conflict", false, "A calendar update would offer fewer units on some nights than are already booked or held there. error.details.conflicts lists each night (roomTypeId, date, units asked, booked, held); nothing was changed. Offer at least booked + held units on those nights, or close them instead."},
	{apperr.IdempotencyInProgress, 409, "Idempotency key in progress", true, "The first request sent with this Idempotency-Key is still being processed. Retry after a moment: once it has finished, the same request replays its response."},
}

var codeIndex = func() map[string]CodeInfo {
	m := make(map[string]CodeInfo, len(Codes)+len(GuideCodes)+len(PropertyCodes))
	for _, c := range slices.Concat(Codes, GuideCodes, PropertyCodes) {
		m[c.Code] = c
	}
	return m
}()

type errorBody struct {
	Error     errorDetail `json:"error"`
	RequestID string      `json:"requestId,omitempty"`
}

type errorDetail struct {
	Code        string         `json:"code"`
	Message     string         `json:"message"`
	Details     map[string]any `json:"details,omitempty"`
	DocURL      string         `json:"doc_url"`
	IsRetriable bool           `json:"is_retriable"`
	RetryAfter  int            `json:"retry_after,omitempty"`
}

// AppError returns err as the *apperr.Error a door renders: err itself
// when it is one; SERVICE_UNAVAILABLE with Retry-After when a dependency
// is down (apperr.Outage); else INTERNAL_ERROR with internalMessage, so
// that no internal detail reaches the caller. The last two are logged in
// full with the request.
func AppError(r *http.Request, err error, internalMessage string) *apperr.Error {
	var e *apperr.Error
	switch {
	case errors.As(err, &e):
	case apperr.Outage(err):
		slog.WarnContext(r.Context(), "request failed: a dependency is unavailable", "err", err, "method", r.Method, "path", r.URL.Path)
		e = &apperr.Error{Code: apperr.Unavailable, Message: "The service is briefly unavailable; retry shortly.", RetryAfter: 1}
	default:
		slog.ErrorContext(r.Context(), "request failed", "err", err, "method", r.Method, "path", r.URL.Path)
		e = &apperr.Error{Code: apperr.Internal, Message: internalMessage}
	}
	return e
}

// WriteError answers with the error envelope. An error that is not an
// *apperr.Error is logged in full and answered as a generic 500, so no
// internal detail reaches the caller; one that says a dependency is down
// (apperr.Outage) is answered 503 with Retry-After, since the same
// request will succeed once it is back.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	e := AppError(r, err, "An internal error occurred; it has been logged.")
	info, ok := codeIndex[e.Code]
	if !ok {
		info = codeIndex[apperr.Internal]
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	WriteJSON(w, info.Status, errorBody{
		Error: errorDetail{
			Code:        e.Code,
			Message:     e.Message,
			Details:     e.Details,
			DocURL:      DocURL(r, e.Code),
			IsRetriable: info.Retriable,
			RetryAfter:  e.RetryAfter,
		},
		RequestID: RequestID(r.Context()),
	})
}

// DocURL is the absolute address of the page that explains code, on the
// public URL of the server that answered.
func DocURL(r *http.Request, code string) string {
	return AbsoluteURL(r.Context(), "/docs/errors/"+code)
}

// Adapt turns h into an http.Handler that writes its error, if any.
func Adapt(h HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			WriteError(w, r, err)
		}
	})
}
