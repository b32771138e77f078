package httpx

import (
	"sort"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// The APIs whose error codes are documented apart: each server's pages
// under /docs/errors/ list the codes it answers with, in its own words.
const (
	GuideAPI    = "guide"
	PropertyAPI = "property"
)

// propertyHelp words the shared codes for the property API: API keys in
// X-API-KEY, developers' accounts, properties and quotes rather than
// travellers, experts and avatars.
var propertyHelp = map[string]string{
	apperr.Unauthorized: "The API key is missing, malformed, revoked or expired: send it in the X-API-KEY header (or as \"Authorization: Bearer <key>\"). On the portal API, the session or portal token is missing or expired, or a login failed.",
	apperr.Forbidden:    "The key or account is authenticated but the resource or action is not its own: for example a booking made with another developer's keys, or a cross-site request to the portal.",
	apperr.Scope:        "The API key lacks the scope this endpoint needs (x-required-scope in the reference). error.details.requiredScope names it; create a key with that scope in the developer portal.",
	apperr.NotFound:     "No resource exists at this path or with this id, or this key may not see it: a property that is not on sale, a booking of another account or of the other mode (test or live), a revoked key.",
	apperr.Conflict:     "The request conflicts with the resource's current state, for example booking a quote that is already booked.",
	apperr.EmailTaken:   "A developer account with this e-mail address exists. Sign in to the portal instead, or sign up with another address.",
	apperr.MediaType:    "The request body is not of a type this endpoint accepts: send JSON (application/json).",
	apperr.InvalidState: "The action is not allowed in the resource's current state, for example cancelling a booking that is already cancelled.",
	apperr.RateLimited:  "Too many requests with this API key (or from this client IP without a valid key, or to the portal). Wait the number of seconds in the Retry-After header (also error.retry_after) and try again; the X-RateLimit-* and RateLimit-Policy/RateLimit headers tell the budget.",
}

// guideHelp words for the guide API the codes first written for the
// property API that the guide API answers with too.
var guideHelp = map[string]string{
	apperr.Gone:                 "The resource existed but has expired. Ask for a new one.",
	apperr.IdempotencyKeyReused: "This Idempotency-Key was first sent with another request (another method, path or body). Use a new Idempotency-Key for a different request; keys are remembered for 24 hours per user.",
}

// ErrorCodes returns the codes api answers with, in its words, ordered by
// status, then name: for the guide API the shared codes, its own and those
// of idempotency and expiry; for the property API the shared codes and its own.
func ErrorCodes(api string) []CodeInfo {
	out := append([]CodeInfo(nil), Codes...)
	if api != PropertyAPI {
		out = append(out, GuideCodes...)
	}
	for _, c := range PropertyCodes {
		if api == PropertyAPI || c.Code != apperr.StayUnavailable {
			out = append(out, c)
		}
	}
	words := guideHelp
	if api == PropertyAPI {
		words = propertyHelp
	}
	for i, c := range out {
		if h, ok := words[c.Code]; ok {
			out[i].Help = h
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Status != out[j].Status {
			return out[i].Status < out[j].Status
		}
		return out[i].Code < out[j].Code
	})
	return out
}
