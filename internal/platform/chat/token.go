package chat

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// TokenTTL is the lifetime of a channel credential.
const TokenTTL = time.Hour

// Credentials issues credentials for the channel (the product's GET
// /api/realtime/token answers them) and verifies them as connections
// present them: HS256 JWTs whose subject is the user and whose audience is
// the app id, signed with a secret the channel service shares.
type Credentials struct {
	AppID  string
	secret []byte
	clock  clock.Clock
}

// NewCredentials returns a credential issuer and verifier.
func NewCredentials(appID string, secret []byte, c clock.Clock) *Credentials {
	return &Credentials{AppID: appID, secret: secret, clock: c}
}

// Issue returns a credential for the user and when it expires.
func (r *Credentials) Issue(userID string) (string, time.Time, error) {
	now := r.clock.Now()
	exp := now.Add(TokenTTL)
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject:   userID,
		Audience:  jwt.ClaimStrings{r.AppID},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
	}).SignedString(r.secret)
	return s, exp, err
}

// ErrToken reports a channel credential that is not valid: badly signed,
// for another app, or expired.
var ErrToken = errors.New("invalid realtime credential")

// Verify checks a credential that Issue made (HS256 only, signed with the
// secret, audience the app id, not expired by the clock) and returns its
// user and expiry. Errors wrap ErrToken.
func (r *Credentials) Verify(token string) (userID string, exp time.Time, err error) {
	var claims jwt.RegisteredClaims
	_, err = jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return r.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithAudience(r.AppID),
		jwt.WithExpirationRequired(), jwt.WithTimeFunc(r.clock.Now))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%w: %w", ErrToken, err)
	}
	if claims.Subject == "" {
		return "", time.Time{}, fmt.Errorf("%w: no subject", ErrToken)
	}
	return claims.Subject, claims.ExpiresAt.Time, nil
}
