package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/clock"
)

func TestJWKSNeverHangsOrBloats(t *testing.T) {
	var hits atomic.Int32
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/slow":
			select {
			case <-block:
			case <-r.Context().Done():
			}
		case "/huge":
			w.Write([]byte(`{"keys":[` + strings.Repeat(`{"kty":"oct"},`, 40000) + `{}]}`))
		case "/broken":
			w.Write([]byte(`{"keys": [`))
		case "/error":
			http.Error(w, "down", 500)
		}
	}))
	t.Cleanup(srv.Close)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, path := range []string{"/slow", "/huge", "/broken", "/error"} {
		p := NewIdentityProvider("idp", "iss", []string{"aud"}, srv.URL+path, clk)
		p.keys.client.Timeout = 200 * time.Millisecond
		start := time.Now()
		_, err := p.keys.key(context.Background(), "k1")
		if err == nil {
			t.Errorf("%s: a key was found", path)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: lookup took %v", path, d)
		}
		// A second unknown kid within the interval does not refetch.
		before := hits.Load()
		p.keys.key(context.Background(), "k2")
		if hits.Load() != before {
			t.Errorf("%s: refetched within the minimum interval", path)
		}
	}
	var nilProvider *IdentityProvider
	if _, err := nilProvider.Verify(context.Background(), "x"); err != ErrProviderNotConfigured {
		t.Errorf("nil provider: %v", err)
	}
}
