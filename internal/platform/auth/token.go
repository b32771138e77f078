package auth

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
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
	parser *jwt.Parser

	// A token's validity only changes when it expires, so a token that
	// verified is not parsed and its HMAC not computed again until then:
	// the parse is most of the allocations of an authenticated request.
	// Keyed by the whole token, so only that exact string is taken.
	mu       sync.Mutex
	verified map[string]verifiedToken
}

// verifiedToken is a token that passed Verify: its subject, and when it
// stops being valid.
type verifiedToken struct {
	subject string
	until   time.Time
}

// maxVerified bounds the tokens Verify remembers; past it, it starts over.
const maxVerified = 4096

// tokenLeeway is the clock skew allowed on a token's times.
const tokenLeeway = 5 * time.Second

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
	t := &Tokens{secret: secret, issuer: issuer, clock: c, verified: map[string]verifiedToken{}}
	t.parser = jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(c.Now),
		jwt.WithLeeway(tokenLeeway),
	)
	return t, nil
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
	now := t.clock.Now()
	t.mu.Lock()
	v, ok := t.verified[token]
	t.mu.Unlock()
	if ok && now.Before(v.until) {
		return v.subject, nil
	}
	var claims jwt.RegisteredClaims
	_, err := t.parser.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return t.secret, nil })
	if err != nil || claims.Subject == "" {
		return "", ErrInvalidToken
	}
	t.mu.Lock()
	if len(t.verified) >= maxVerified {
		clear(t.verified)
	}
	// As the parser checks it: valid until exp, give or take the leeway.
	t.verified[token] = verifiedToken{subject: claims.Subject, until: claims.ExpiresAt.Add(tokenLeeway)}
	t.mu.Unlock()
	return claims.Subject, nil
}
