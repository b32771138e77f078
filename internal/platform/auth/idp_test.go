package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// jwksServer serves a JWKS whose answer a test switches: a key set, or a
// failure (slow, huge, broken, error), counting the fetches.
type jwksServer struct {
	*httptest.Server
	hits atomic.Int32
	mu   sync.Mutex
	mode string // "keys", "slow", "huge", "broken", "error"
	keys []map[string]any
}

func newJWKSServer(t *testing.T, mode string, keys ...map[string]any) *jwksServer {
	s := &jwksServer{mode: mode, keys: keys}
	block := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		mode, keys := s.mode, s.keys
		s.mu.Unlock()
		set := map[string]any{"keys": keys}
		switch mode {
		case "slow":
			select {
			case <-block:
			case <-r.Context().Done():
			}
		case "huge":
			// A valid set, padded past the cap: only the cap refuses it.
			set["padding"] = strings.Repeat("x", jwksMaxBytes)
			json.NewEncoder(w).Encode(set)
		case "broken":
			w.Write([]byte(`{"keys": [`))
		case "error":
			http.Error(w, "down", 500)
		default:
			json.NewEncoder(w).Encode(set)
		}
	}))
	t.Cleanup(func() { close(block); s.Close() })
	return s
}

func (s *jwksServer) set(mode string) {
	s.mu.Lock()
	s.mode = mode
	s.mu.Unlock()
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func rsaJWK(kid, use string, k *rsa.PrivateKey) map[string]any {
	m := map[string]any{"kty": "RSA", "kid": kid, "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
	if use != "" {
		m["use"] = use
	}
	return m
}

var testNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func signedToken(t *testing.T, kid string, method jwt.SigningMethod, key any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, jwt.MapClaims{"iss": "iss", "aud": "aud", "sub": "s",
		"iat": testNow.Unix(), "exp": testNow.Add(time.Hour).Unix()})
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func genRSA(t *testing.T, bits int) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestJWKSNeverHangsOrBloats(t *testing.T) {
	const timeout = 200 * time.Millisecond
	key := genRSA(t, 2048)
	good := signedToken(t, "k1", jwt.SigningMethodRS256, key)
	other := signedToken(t, "k2", jwt.SigningMethodRS256, key)
	clk := clock.NewFake(testNow)
	for _, mode := range []string{"slow", "huge", "broken", "error"} {
		srv := newJWKSServer(t, mode, rsaJWK("k1", "sig", key))
		start := time.Now()
		p, err := newIdentityProvider(t.Context(), "idp", "iss", []string{"aud"}, srv.URL, clk, timeout)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Verify(context.Background(), good); err == nil {
			t.Errorf("%s: a token was verified", mode)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: start and one lookup took %v", mode, d)
		}
		// A second unknown kid within the interval does not refetch.
		before := srv.hits.Load()
		p.Verify(context.Background(), other)
		if srv.hits.Load() != before {
			t.Errorf("%s: refetched within the minimum interval", mode)
		}
	}
	var nilProvider *IdentityProvider
	if _, err := nilProvider.Verify(context.Background(), "x"); err != ErrProviderNotConfigured {
		t.Errorf("nil provider: %v", err)
	}
}

func TestJWKSKeepsKeysWhenRefreshFails(t *testing.T) {
	key := genRSA(t, 2048)
	srv := newJWKSServer(t, "keys", rsaJWK("k1", "sig", key))
	p, err := newIdentityProvider(t.Context(), "idp", "iss", []string{"aud"}, srv.URL, clock.NewFake(testNow), 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	good := signedToken(t, "k1", jwt.SigningMethodRS256, key)
	if _, err := p.Verify(t.Context(), good); err != nil {
		t.Fatalf("known key: %v", err)
	}
	// The endpoint fails; an unknown kid forces a refresh, which fails.
	srv.set("error")
	before := srv.hits.Load()
	if _, err := p.Verify(t.Context(), signedToken(t, "k-new", jwt.SigningMethodRS256, key)); err == nil {
		t.Error("unknown kid verified")
	}
	if srv.hits.Load() != before+1 {
		t.Errorf("%d fetches for an unknown kid, want 1", srv.hits.Load()-before)
	}
	if _, err := p.Verify(t.Context(), good); err != nil {
		t.Errorf("known key lost after a failed refresh: %v", err)
	}
}

// TestJWKSKeyKinds holds the keys accepted: named by kid, for signing (or
// of no stated use), RSA of 2048 bits or more, with RS256 or ES256 only.
func TestJWKSKeyKinds(t *testing.T) {
	strong, weak := genRSA(t, 2048), genRSA(t, 1024)
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecJWK := func(kid, crv string, k *ecdsa.PrivateKey) map[string]any {
		size := (k.Curve.Params().BitSize + 7) / 8
		return map[string]any{"kty": "EC", "kid": kid, "crv": crv,
			"x": b64(k.X.FillBytes(make([]byte, size))), "y": b64(k.Y.FillBytes(make([]byte, size)))}
	}
	srv := newJWKSServer(t, "keys",
		rsaJWK("rsa", "sig", strong), rsaJWK("no-use", "", strong), rsaJWK("enc", "enc", strong), rsaJWK("weak", "sig", weak),
		ecJWK("p256", "P-256", p256), ecJWK("p384", "P-384", p384))
	p, err := newIdentityProvider(t.Context(), "idp", "iss", []string{"aud"}, srv.URL, clock.NewFake(testNow), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		token string
		ok    bool
	}{
		{"RSA", signedToken(t, "rsa", jwt.SigningMethodRS256, strong), true},
		{"RSA, no use", signedToken(t, "no-use", jwt.SigningMethodRS256, strong), true},
		{"EC P-256", signedToken(t, "p256", jwt.SigningMethodES256, p256), true},
		{"RSA for encryption", signedToken(t, "enc", jwt.SigningMethodRS256, strong), false},
		{"RSA 1024", signedToken(t, "weak", jwt.SigningMethodRS256, weak), false},
		{"ES384 (methods are pinned)", signedToken(t, "p384", jwt.SigningMethodES384, p384), false},
		{"no kid", signedToken(t, "", jwt.SigningMethodRS256, strong), false},
	} {
		if _, err := p.Verify(t.Context(), tc.token); (err == nil) != tc.ok {
			t.Errorf("%s: error %v", tc.name, err)
		}
	}
}
