package guidehttp_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// testIdP is a local identity provider: a JWKS endpoint with one RSA and
// one EC key, and a signer of ID tokens.
type testIdP struct {
	url              string
	issuerA, issuerB string
	rsaKey           *rsa.PrivateKey
	ecKey            *ecdsa.PrivateKey
	fetches          atomic.Int32
}

// idpKey and idpECKey sign the test identity providers' tokens; made
// once for the package, as generating an RSA key is costly and each
// environment starts its own provider.
var (
	idpKey   = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })
	idpECKey = sync.OnceValues(func() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) })
)

func newTestIdP(t testing.TB) *testIdP {
	t.Helper()
	rk, err := idpKey()
	if err != nil {
		t.Fatal(err)
	}
	ek, err := idpECKey()
	if err != nil {
		t.Fatal(err)
	}
	p := &testIdP{issuerA: "https://idp-a.test", issuerB: "https://idp-b.test", rsaKey: rk, ecKey: ek}
	b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	set := map[string]any{"keys": []map[string]any{
		{"kty": "RSA", "kid": "rsa-1", "use": "sig", "alg": "RS256", "n": b64(rk.N.Bytes()), "e": b64(big.NewInt(int64(rk.E)).Bytes())},
		{"kty": "EC", "kid": "ec-1", "use": "sig", "alg": "ES256", "crv": "P-256", "x": b64(ek.X.FillBytes(make([]byte, 32))), "y": b64(ek.Y.FillBytes(make([]byte, 32)))},
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.fetches.Add(1)
		json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// token signs claims with the RSA key (kid rsa-1) or, for ES256, the EC key.
func (p *testIdP) token(t *testing.T, method jwt.SigningMethod, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = kid
	var key any = p.rsaKey
	if method == jwt.SigningMethodES256 {
		key = p.ecKey
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// claims returns valid claims for provider A at now.
func (p *testIdP) claims(now time.Time, sub, email string) jwt.MapClaims {
	return jwt.MapClaims{
		"iss": p.issuerA, "aud": "client-a", "sub": sub, "email": email, "email_verified": true,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
}
