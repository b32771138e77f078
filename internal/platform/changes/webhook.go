package changes

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// RotationGrace is how long the secret before a rotation keeps signing
// deliveries, next to the new one.
const RotationGrace = 24 * time.Hour

// NewSecret returns a fresh signing secret: "whsec_" and 32 random bytes
// in base64.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// Sign returns the webhook-signature header of a delivery: one
// "v1,<base64 HMAC-SHA256 of id.timestamp.body>" for each secret,
// separated by spaces.
func Sign(secrets []string, id string, ts time.Time, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
		if err != nil {
			return "", fmt.Errorf("webhook secret: %w", err)
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	if len(sigs) == 0 {
		return "", errors.New("webhook: no secret to sign with")
	}
	return strings.Join(sigs, " "), nil
}

// Schedule is the wait before each retry of a failed delivery: after the
// last one the delivery is given up. With the jitter (up to a fifth more)
// the retries span 27 hours and a half to 33 hours.
var Schedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// MaxRetryAfter bounds how long a Retry-After header may push a retry.
const MaxRetryAfter = 10 * time.Hour

// NextDelay returns the wait after the failed attempt-th attempt (1-based),
// at least retryAfter (what the receiver asked for, bounded by
// MaxRetryAfter); false when the retries are spent.
func NextDelay(attempt int, retryAfter time.Duration) (time.Duration, bool) {
	if attempt < 1 || attempt > len(Schedule) {
		return 0, false
	}
	d := Schedule[attempt-1]
	// Jitter spreads the retries of many deliveries that failed together.
	d += time.Duration(mrand.Int64N(int64(d)/5 + 1)) // #nosec G404 -- jitter, not a secret
	return max(d, min(retryAfter, MaxRetryAfter)), true
}

// ParseRetryAfter reads a Retry-After header: seconds or an HTTP date.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := time.Parse(time.RFC1123, v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
