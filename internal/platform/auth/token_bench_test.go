package auth

import (
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// The per-request work of authentication in the load benchmark
// (bench/run.sh): verifying a user token, and hashing an API key to look
// it up.

func BenchmarkTokenVerify(b *testing.B) {
	tokens, err := NewTokens([]byte("0123456789abcdef0123456789abcdef"), clock.System{})
	if err != nil {
		b.Fatal(err)
	}
	tok, _, err := tokens.Issue("01994afb-53a8-7985-a053-c532f8e6b2f4")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tokens.Verify(tok); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHashAPIKey(b *testing.B) {
	key, _, _, err := NewAPIKey("live")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		HashAPIKey(key)
	}
}
