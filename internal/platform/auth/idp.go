package auth

import (
	"bytes"
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// IdentityProvider verifies the ID tokens of one external identity
// provider against its published keys (JWKS).
type IdentityProvider struct {
	Name      string
	Issuer    string
	Audiences []string // accepted client ids
	keys      keyfunc.Keyfunc
	clock     clock.Clock
}

// IdentityClaims are what a verified identity token tells about the person.
type IdentityClaims struct {
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
}

// ErrProviderNotConfigured is returned by a nil provider.
var ErrProviderNotConfigured = errors.New("identity provider is not configured")

const (
	jwksTimeout     = 3 * time.Second
	jwksMaxBytes    = 256 << 10
	jwksTTL         = time.Hour
	jwksMinInterval = 30 * time.Second // between refreshes forced by an unknown kid
)

// NewIdentityProvider returns a provider whose keys come from jwksURL,
// through keyfunc and jwkset: fetched once before it returns, then every
// jwksTTL until ctx ends, and again for an unknown kid at most once per
// jwksMinInterval. A failed fetch is logged and keeps the keys already
// known. Each fetch is bounded in time and size, so a slow or huge
// endpoint cannot hang or exhaust a request.
func NewIdentityProvider(ctx context.Context, name, issuer string, audiences []string, jwksURL string, c clock.Clock) (*IdentityProvider, error) {
	return newIdentityProvider(ctx, name, issuer, audiences, jwksURL, c, jwksTimeout)
}

// newIdentityProvider is NewIdentityProvider with the fetch timeout as a
// parameter, for tests.
func newIdentityProvider(ctx context.Context, name, issuer string, audiences []string, jwksURL string, c clock.Clock, timeout time.Duration) (*IdentityProvider, error) {
	fetched, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{jwksURL}, keyfunc.Override{
		Client:      &http.Client{Timeout: timeout, Transport: cappedTransport{http.DefaultTransport}},
		HTTPTimeout: timeout,
		// The time an unknown kid may wait for the limiter and then the
		// refresh, together: one fetch's time. A kid that would wait longer
		// fails at once instead.
		RateLimitWaitMax:  timeout,
		RefreshInterval:   jwksTTL,
		RefreshUnknownKID: rate.NewLimiter(rate.Every(jwksMinInterval), 1),
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				slog.WarnContext(ctx, "JWKS refresh failed", "provider", name, "url", u, "err", err)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%s JWKS: %w", name, err)
	}
	// Keys published for encryption are not for verifying; a key with no
	// "use" is.
	keys, err := keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: fetched.Storage(), UseWhitelist: []jwkset.USE{jwkset.UseSig, ""}})
	if err != nil {
		return nil, fmt.Errorf("%s JWKS: %w", name, err)
	}
	return &IdentityProvider{Name: name, Issuer: issuer, Audiences: audiences, keys: keys, clock: c}, nil
}

// cappedTransport refuses a response body over jwksMaxBytes (jwkset reads
// bodies whole).
type cappedTransport struct{ base http.RoundTripper }

func (t cappedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, jwksMaxBytes+1))
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(body) > jwksMaxBytes {
		return nil, fmt.Errorf("JWKS larger than %d bytes", jwksMaxBytes)
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res, nil
}

// Leeway allowed on exp, nbf and iat for clock drift between us and the
// provider.
const idpLeeway = 60 * time.Second

type idpClaims struct {
	jwt.RegisteredClaims
	Email         string `json:"email"`
	EmailVerified any    `json:"email_verified"` // true or "true" depending on the provider
	Name          string `json:"name"`
}

// Verify checks the token's signature (RS256 or ES256 only, with a key
// named by kid), issuer, audience and validity times.
func (p *IdentityProvider) Verify(ctx context.Context, token string) (*IdentityClaims, error) {
	if p == nil {
		return nil, ErrProviderNotConfigured
	}
	var claims idpClaims
	_, err := jwt.ParseWithClaims(token, &claims, p.key(ctx),
		jwt.WithValidMethods([]string{"RS256", "ES256"}),
		jwt.WithIssuer(p.Issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(idpLeeway),
		jwt.WithTimeFunc(p.clock.Now),
	)
	if err != nil {
		return nil, fmt.Errorf("%s token: %w", p.Name, err)
	}
	if claims.Subject == "" || !slices.ContainsFunc(claims.Audience, func(a string) bool { return slices.Contains(p.Audiences, a) }) {
		return nil, fmt.Errorf("%s token: no subject or audience not accepted", p.Name)
	}
	verified := claims.EmailVerified == true || claims.EmailVerified == "true"
	return &IdentityClaims{Subject: claims.Subject, Email: claims.Email, EmailVerified: verified, Name: claims.Name}, nil
}

// key finds the key that signed a token: the one its kid names, never one
// that a jku or x5u header points at. A token with no kid is refused (keyfunc
// would try every key), and so is an RSA key under 2048 bits. The methods
// are pinned by Verify: RS256 takes only RSA keys, ES256 only EC keys.
func (p *IdentityProvider) key(ctx context.Context) jwt.Keyfunc {
	byKid := p.keys.KeyfuncCtx(ctx)
	return func(t *jwt.Token) (any, error) {
		if kid, _ := t.Header["kid"].(string); kid == "" {
			return nil, errors.New("token has no kid")
		}
		k, err := byKid(t)
		if err != nil {
			return nil, err
		}
		// jwt takes RSA keys from 1024 bits.
		if rk, ok := k.(*rsa.PublicKey); ok && (rk.N.BitLen() < 2048 || rk.E < 3) {
			return nil, errors.New("RSA key under 2048 bits or with a bad exponent")
		}
		return k, nil
	}
}
