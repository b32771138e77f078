package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wayfarer-asia/platform/internal/clock"
)

// IdentityProvider verifies the ID tokens of one external identity
// provider against its published keys (JWKS).
type IdentityProvider struct {
	Name      string
	Issuer    string
	Audiences []string // accepted client ids
	keys      *jwks
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

// NewIdentityProvider returns a provider that fetches keys from jwksURL.
func NewIdentityProvider(name, issuer string, audiences []string, jwksURL string, c clock.Clock) *IdentityProvider {
	return &IdentityProvider{Name: name, Issuer: issuer, Audiences: audiences, clock: c,
		keys: &jwks{url: jwksURL, clock: c, client: &http.Client{Timeout: jwksTimeout}}}
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
	_, err := jwt.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("token has no kid")
		}
		return p.keys.key(ctx, kid)
	},
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

const (
	jwksTimeout     = 3 * time.Second
	jwksMaxBytes    = 256 << 10
	jwksTTL         = time.Hour
	jwksMinInterval = 30 * time.Second // between refreshes forced by an unknown kid
)

// jwks caches a provider's keys. An unknown kid triggers at most one
// refresh per jwksMinInterval; a failed refresh keeps the old keys. Fetches
// are bounded in time and size, so a slow or huge endpoint cannot hang or
// exhaust a request.
type jwks struct {
	url    string
	client *http.Client
	clock  clock.Clock

	mu        sync.Mutex
	keys      map[string]crypto.PublicKey
	fetchedAt time.Time
	triedAt   time.Time
}

func (j *jwks) key(ctx context.Context, kid string) (crypto.PublicKey, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := j.clock.Now()
	k, ok := j.keys[kid]
	stale := now.Sub(j.fetchedAt) > jwksTTL
	if (!ok || stale) && now.Sub(j.triedAt) >= jwksMinInterval {
		j.triedAt = now
		keys, err := j.fetch(ctx)
		if err != nil {
			slog.WarnContext(ctx, "JWKS refresh failed", "url", j.url, "err", err)
		} else {
			j.keys, j.fetchedAt = keys, now
			k, ok = keys[kid]
		}
	}
	if !ok {
		return nil, fmt.Errorf("unknown key id %q", kid)
	}
	return k, nil
}

func (j *jwks) fetch(ctx context.Context) (map[string]crypto.PublicKey, error) {
	ctx, cancel := context.WithTimeout(ctx, jwksTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.url, nil)
	if err != nil {
		return nil, err
	}
	res, err := j.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", res.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > jwksMaxBytes {
		return nil, fmt.Errorf("JWKS larger than %d bytes", jwksMaxBytes)
	}
	var set struct {
		Keys []struct {
			Kid string `json:"kid"`
			Kty string `json:"kty"`
			Use string `json:"use"`
			N   string `json:"n"`
			E   string `json:"e"`
			Crv string `json:"crv"`
			X   string `json:"x"`
			Y   string `json:"y"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, err
	}
	keys := make(map[string]crypto.PublicKey, len(set.Keys))
	for _, k := range set.Keys {
		if k.Kid == "" || (k.Use != "" && k.Use != "sig") {
			continue
		}
		switch k.Kty {
		case "RSA":
			n, e := b64int(k.N), b64int(k.E)
			if n == nil || e == nil || n.BitLen() < 2048 || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31 {
				continue
			}
			keys[k.Kid] = &rsa.PublicKey{N: n, E: int(e.Int64())}
		case "EC":
			x, errX := base64.RawURLEncoding.DecodeString(k.X)
			y, errY := base64.RawURLEncoding.DecodeString(k.Y)
			if k.Crv != "P-256" || errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
				continue
			}
			// Parsing the uncompressed point checks that it is on the curve.
			pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
			if err != nil {
				continue
			}
			keys[k.Kid] = pub
		}
	}
	return keys, nil
}

func b64int(s string) *big.Int {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil
	}
	return new(big.Int).SetBytes(b)
}
