package auth

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wayfarer-asia/platform/internal/clock"
)

// UserTokenTTL is the lifetime of a user token.
const UserTokenTTL = 30 * 24 * time.Hour

// MinSecretLen is the shortest HS256 secret accepted.
const MinSecretLen = 32

// The issuer (iss) of each product's tokens: a token of one is never taken
// for a token of the other, even under a shared secret.
const (
	GuideIssuer  = "wayfarer-guide"
	PortalIssuer = "wayfarer-property-portal"
)

// Tokens issues and verifies user tokens: HS256 JWTs whose subject is the
// user id. Only HS256 is accepted, whatever a token's header claims.
type Tokens struct {
	secret []byte
	issuer string
	clock  clock.Clock
}

// NewTokens returns the guide API's token service, signing with secret.
func NewTokens(secret []byte, c clock.Clock) (*Tokens, error) {
	return newTokens(secret, GuideIssuer, c)
}

// NewPortalTokens returns the property developer portal's token service,
// signing with secret under the portal's own issuer name.
func NewPortalTokens(secret []byte, c clock.Clock) (*Tokens, error) {
	return newTokens(secret, PortalIssuer, c)
}

func newTokens(secret []byte, issuer string, c clock.Clock) (*Tokens, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("token secret is %d bytes; at least %d are needed", len(secret), MinSecretLen)
	}
	return &Tokens{secret: secret, issuer: issuer, clock: c}, nil
}

// Issue returns a token for the user, valid for UserTokenTTL.
func (t *Tokens) Issue(userID string) (string, time.Time, error) {
	now := t.clock.Now()
	exp := now.Add(UserTokenTTL)
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Issuer:    t.issuer,
		Subject:   userID,
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
	})
	s, err := tok.SignedString(t.secret)
	return s, exp, err
}

// ErrInvalidToken is returned for every token that must be refused; the
// reason is deliberately not told apart to callers.
var ErrInvalidToken = errors.New("invalid or expired token")

// Verify returns the user id of a valid token.
func (t *Tokens) Verify(token string) (string, error) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(t.issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(t.clock.Now),
		jwt.WithLeeway(5*time.Second),
	)
	if err != nil || claims.Subject == "" {
		return "", ErrInvalidToken
	}
	return claims.Subject, nil
}
