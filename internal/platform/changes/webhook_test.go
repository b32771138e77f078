package changes_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/wayfarer-asia/platform/internal/platform/changes"
)

// TestSignVerifiesWithReferenceLibrary: the signature is the one the
// Standard Webhooks library computes and accepts.
func TestSignVerifiesWithReferenceLibrary(t *testing.T) {
	t.Parallel()
	secret, err := changes.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"id":"x","type":"booking.created"}`)
	ts := time.Now()
	h, err := changes.Headers([]string{secret}, "msg_1", ts, body)
	if err != nil {
		t.Fatal(err)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(body, h); err != nil {
		t.Errorf("verify: %v", err)
	}
	want, _ := wh.Sign("msg_1", ts, body)
	if h.Get("webhook-signature") != want {
		t.Errorf("signature %q, library %q", h.Get("webhook-signature"), want)
	}
	if err := wh.Verify([]byte(`{"id":"y"}`), h); err == nil {
		t.Error("a changed body verified")
	}
}

func TestNextDelay(t *testing.T) {
	t.Parallel()
	var total time.Duration
	for i := 1; ; i++ {
		d, ok := changes.NextDelay(i, 0)
		if !ok {
			break
		}
		if base := changes.Schedule[i-1]; d < base || d > base+base/5 {
			t.Errorf("attempt %d: %s outside [%s, +20%%]", i, d, base)
		}
		total += d
	}
	if total < 24*time.Hour {
		t.Errorf("retries span %s, want at least a day", total)
	}
	if d, _ := changes.NextDelay(1, time.Hour); d != time.Hour {
		t.Errorf("Retry-After: %s", d)
	}
	if d, _ := changes.NextDelay(1, 100*time.Hour); d != changes.MaxRetryAfter {
		t.Errorf("Retry-After is bounded: %s", d)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := changes.ParseRetryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now); got != 90*time.Second {
		t.Errorf("HTTP date: %s", got)
	}
}

func TestPublic(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"93.184.216.34": true, "2606:2800:220:1::1": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "0.0.0.0": false, "::1": false, "fd00::1": false, "fe80::1": false, "::ffff:127.0.0.1": false,
		"224.0.0.1": false, "64:ff9b::a00:1": false,
		// IPv6 forms that carry an IPv4 address are judged by it.
		"64:ff9b:1::a9fe:a9fe": false, "64:ff9b::a9fe:a9fe": false, "2002:a9fe:a9fe::1": false, "::a9fe:a9fe": false,
		"::ffff:0:a9fe:a9fe": false, "::ffff:a9fe:a9fe": false, "2002:a00:1::1": false, "::7f00:1": false,
		"2001:0:4136:e378:8000:63bf:3fff:fdd2": true, "2001:0:a9fe:a9fe::1": false, "2001:0:4136:e378::f5ff:fffe": false,
		"64:ff9b::5db8:d822": true, "2002:5db8:d822::1": true, "::ffff:0:5db8:d822": true,
	} {
		if got := changes.Public(netip.MustParseAddr(s)); got != want {
			t.Errorf("Public(%s) = %v", s, got)
		}
	}
}

// TestClientRefusesInternalAddresses: a name that resolves to loopback is
// refused when the connection is made, unless allowed; redirects are not
// followed; a large answer is read only in part.
func TestClientRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	redirected := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "/target", http.StatusFound)
		case "/target":
			redirected = true
		case "/big":
			w.Write([]byte(strings.Repeat("x", 1<<20)))
		}
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	strict := changes.NewClient(changes.Policy{})
	for _, u := range []string{srv.URL + "/x", "http://localhost" + port + "/x"} {
		if _, err := strict.Post(t.Context(), u, http.Header{}, []byte("{}")); !errors.Is(err, changes.ErrBlocked) {
			t.Errorf("%s: err = %v, want ErrBlocked", u, err)
		}
	}
	// What the owner reads names neither the address a name resolved to
	// nor the server's resolver.
	_, err := strict.Post(t.Context(), "http://localhost"+port+"/x", http.Header{}, []byte("{}"))
	if got := changes.Describe(err); got != "address not allowed" {
		t.Errorf("blocked: Describe = %q (%v)", got, err)
	}
	_, err = strict.Post(t.Context(), "https://no-such-host.invalid/x", http.Header{}, []byte("{}"))
	if got := changes.Describe(err); got != "name did not resolve" {
		t.Errorf("unknown name: Describe = %q (%v)", got, err)
	}
	allowed := changes.NewClient(changes.Policy{AllowHosts: []string{"127.0.0.1"}})
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	_, err = allowed.Post(t.Context(), closed.URL, http.Header{}, []byte("{}"))
	if got := changes.Describe(err); got != "connection refused" {
		t.Errorf("closed port: Describe = %q (%v)", got, err)
	}
	res, err := allowed.Post(t.Context(), srv.URL+"/redirect", http.Header{}, []byte("{}"))
	if err != nil || res.Status != http.StatusFound || redirected {
		t.Errorf("redirect: %+v, %v, followed %v", res, err, redirected)
	}
	if res, err := allowed.Post(t.Context(), srv.URL+"/big", http.Header{}, []byte("{}")); err != nil || res.Status != 200 {
		t.Errorf("big answer: %+v, %v", res, err)
	}
	byName := changes.NewClient(changes.Policy{AllowHosts: []string{"localhost"}})
	if _, err := byName.Post(t.Context(), "http://localhost"+port+"/x", http.Header{}, []byte("{}")); err != nil {
		t.Errorf("allowed by name: %v", err)
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	p := changes.Policy{AllowHosts: []string{"127.0.0.1", "hooks.internal", "10.9.0.0/16"}}
	for u, ok := range map[string]bool{
		"https://example.com/hooks":                     true,
		"http://127.0.0.1:8080/hooks":                   true,
		"http://hooks.internal/in":                      true,
		"https://10.9.1.1/in":                           true,
		"http://example.com/hooks":                      false,
		"https://10.8.1.1/in":                           false,
		"https://[fe80::1]/in":                          false,
		"https://[64:ff9b:1::a9fe:a9fe]/in":             false,
		"https://[2002:a9fe:a9fe::1]/in":                false,
		"https://[::ffff:0:a9fe:a9fe]/in":               false,
		"https://a@example.com/":                        false,
		"https://example.com/#frag":                     false,
		"mailto:a@example.com":                          false,
		"https://" + strings.Repeat("a", 2100) + ".com": false,
	} {
		if got := p.CheckURL(u) == ""; got != ok {
			t.Errorf("CheckURL(%.40s) ok = %v: %s", u, got, p.CheckURL(u))
		}
	}
}

// TestFetchIsGuarded: reading a document (a client's metadata, for the
// authorization server) passes the same checks as a delivery: loopback
// only when allowed, plain http only to allowed hosts, bounded size.
func TestFetchIsGuarded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Write(bytes.Repeat([]byte("x"), 2048))
			return
		}
		w.Write([]byte(`{"client_id":"x"}`))
	}))
	defer srv.Close()
	if _, _, err := changes.NewClient(changes.Policy{}).Fetch(t.Context(), srv.URL+"/doc", 1024); err == nil {
		t.Error("a loopback address over http was fetched without being allowed")
	}
	if _, _, err := changes.NewClient(changes.Policy{}).Fetch(t.Context(), "https://127.0.0.1:1/doc", 1024); err == nil {
		t.Error("a loopback address over https was fetched without being allowed")
	}
	allowed := changes.NewClient(changes.Policy{AllowHosts: []string{"127.0.0.1"}})
	status, body, err := allowed.Fetch(t.Context(), srv.URL+"/doc", 1024)
	if err != nil || status != 200 || string(body) != `{"client_id":"x"}` {
		t.Errorf("allowed host: %d %q %v", status, body, err)
	}
	if _, _, err := allowed.Fetch(t.Context(), srv.URL+"/big", 1024); err == nil {
		t.Error("an answer over the limit was read")
	}
}
