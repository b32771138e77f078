package auth

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// Each product names itself in its tokens, and takes only its own.
func TestTokenIssuers(t *testing.T) {
	t.Parallel()
	secret := []byte("one-secret-shared-by-mistake-0123456789")
	clk := clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	guide, _ := NewTokens(secret, clk)
	portal, _ := NewPortalTokens(secret, clk)
	for _, c := range []struct {
		tokens *Tokens
		want   string
	}{{guide, "wayfarer-guide"}, {portal, "wayfarer-property-portal"}} {
		tok, _, err := c.tokens.Issue("u1")
		if err != nil {
			t.Fatal(err)
		}
		var claims jwt.RegisteredClaims
		if _, _, err := jwt.NewParser().ParseUnverified(tok, &claims); err != nil || claims.Issuer != c.want {
			t.Fatalf("iss %q, want %q (%v)", claims.Issuer, c.want, err)
		}
		if id, err := c.tokens.Verify(tok); err != nil || id != "u1" {
			t.Fatalf("own token refused: %v", err)
		}
	}
	g, _, _ := guide.Issue("u1")
	if _, err := portal.Verify(g); err == nil {
		t.Fatal("the portal took a guide token")
	}
	p, _, _ := portal.Issue("u1")
	if _, err := guide.Verify(p); err == nil {
		t.Fatal("the guide API took a portal token")
	}
}

// A token that verified is remembered until it expires, and only that
// exact token: the remembered answer never outlives the token, and a
// token altered after one verified is still refused.
func TestVerifyRemembersUntilExpiry(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	tokens, err := NewTokens([]byte("a-secret-of-the-guide-api-0123456789"), clk)
	if err != nil {
		t.Fatal(err)
	}
	tok, exp, err := tokens.Issue("u1")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if id, err := tokens.Verify(tok); err != nil || id != "u1" {
			t.Fatalf("Verify = %q, %v", id, err)
		}
	}
	// The signature's first character changed: another string, parsed and refused.
	sig := strings.LastIndexByte(tok, '.') + 1
	forged := tok[:sig] + map[bool]string{true: "A", false: "B"}[tok[sig] != 'A'] + tok[sig+1:]
	if _, err := tokens.Verify(forged); err == nil {
		t.Fatal("an altered token was taken")
	}
	clk.Advance(exp.Add(tokenLeeway - time.Second).Sub(clk.Now()))
	if _, err := tokens.Verify(tok); err != nil {
		t.Fatalf("refused within the leeway: %v", err)
	}
	clk.Advance(time.Second)
	if _, err := tokens.Verify(tok); err == nil {
		t.Fatal("an expired token was taken from memory")
	}
}
