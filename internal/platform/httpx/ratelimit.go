package httpx

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
)

// setRateLimitHeaders describes the budget a request was counted against,
// twice: the X-RateLimit-* fields clients know from GitHub, and the IETF
// fields of draft-ietf-httpapi-ratelimit-headers-11:
//
//	RateLimit-Policy: "per-key";q=60;w=60    (quota q requests per window w seconds)
//	RateLimit: "per-key";r=42;t=18           (r remaining, t seconds until the budget is full)
//
// The budget refills evenly (a token bucket), so t is the time until every
// spent request is back: (limit − remaining) × period / limit, rounded up,
// the same moment as X-RateLimit-Reset.
func setRateLimitHeaders(h http.Header, key string, l ratelimit.Limit, res ratelimit.Result) {
	name := strconv.Quote(policyName(key))
	var full time.Duration
	if l.Rate > 0 {
		full = time.Duration(int64(l.Rate-res.Remaining) * int64(l.Period) / int64(l.Rate))
	}
	// The keys in the canonical form Header.Set would give them, without
	// its canonicalization on every request, which showed in the
	// throughput of cached catalogue lists.
	h["X-Ratelimit-Limit"] = []string{strconv.Itoa(res.Limit)}
	h["X-Ratelimit-Remaining"] = []string{strconv.Itoa(res.Remaining)}
	h["X-Ratelimit-Reset"] = []string{strconv.FormatInt(int64(math.Ceil(float64(res.ResetAt.UnixNano())/1e9)), 10)}
	h["Ratelimit-Policy"] = []string{name + ";q=" + strconv.Itoa(l.Rate) + ";w=" + strconv.Itoa(int(math.Ceil(l.Period.Seconds())))}
	h["Ratelimit"] = []string{name + ";r=" + strconv.Itoa(res.Remaining) + ";t=" + strconv.Itoa(int(math.Ceil(full.Seconds())))}
}

// policyName names the budget of a limiter key ("api:kind:who") for the
// RateLimit fields: "per-ip" and "per-key" for the APIs' general budgets,
// the kind itself ("auth", "avatar", "portal", "portal-auth") for the
// budgets of particular endpoints.
func policyName(key string) string {
	_, rest, _ := strings.Cut(key, ":")
	kind, _, _ := strings.Cut(rest, ":")
	switch kind {
	case "public", "ip":
		return "per-ip"
	case "key":
		return "per-key"
	case "":
		return "default"
	}
	return kind
}
