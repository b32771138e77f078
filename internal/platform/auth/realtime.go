package auth

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// RealtimeTokenTTL is the lifetime of a realtime channel credential.
const RealtimeTokenTTL = time.Hour

// Realtime issues credentials for the realtime chat channel: HS256 JWTs
// whose subject is the user and whose audience is the app id, signed with
// a secret the channel service shares.
type Realtime struct {
	AppID  string
	secret []byte
	clock  clock.Clock
}

// NewRealtime returns a realtime credential issuer.
func NewRealtime(appID string, secret []byte, c clock.Clock) *Realtime {
	return &Realtime{AppID: appID, secret: secret, clock: c}
}

// Issue returns a credential for the user and when it expires.
func (r *Realtime) Issue(userID string) (string, time.Time, error) {
	now := r.clock.Now()
	exp := now.Add(RealtimeTokenTTL)
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject:   userID,
		Audience:  jwt.ClaimStrings{r.AppID},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
	}).SignedString(r.secret)
	return s, exp, err
}

// ErrRealtimeToken reports a realtime credential that is not valid: badly
// signed, for another app, or expired.
var ErrRealtimeToken = errors.New("invalid realtime credential")

// Verify checks a credential that Issue made (HS256 only, signed with the
// secret, audience the app id, not expired by the clock) and returns its
// user and expiry. Errors wrap ErrRealtimeToken.
func (r *Realtime) Verify(token string) (userID string, exp time.Time, err error) {
	var claims jwt.RegisteredClaims
	_, err = jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return r.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithAudience(r.AppID),
		jwt.WithExpirationRequired(), jwt.WithTimeFunc(r.clock.Now))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%w: %w", ErrRealtimeToken, err)
	}
	if claims.Subject == "" {
		return "", time.Time{}, fmt.Errorf("%w: no subject", ErrRealtimeToken)
	}
	return claims.Subject, claims.ExpiresAt.Time, nil
}
