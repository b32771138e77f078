// Package oauthtest plays an OAuth client against a server in process, for
// the products' tests: it registers, follows the authorization to the
// consent page, lets the test decide as the person, and posts token
// requests, each step as a client would over HTTP.
package oauthtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// Redirect is the redirect URI the tests' clients register.
const Redirect = "http://127.0.0.1:5170/callback"

// Verifier is a PKCE verifier of the tests' authorizations.
const Verifier = "a-verifier-of-at-least-43-characters-0123456789"

// Client is an OAuth client of the server h, whose public URL is base.
type Client struct {
	*http.Client
	Base string
}

// New returns a client that carries every request to h in process,
// whatever host it names, and does not follow redirects: a browser's
// steps are read one at a time.
func New(h http.Handler, base string) *Client {
	return &Client{Base: base, Client: &http.Client{Transport: transport{h},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type transport struct{ h http.Handler }

func (t transport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	in := r.Clone(r.Context())
	in.RemoteAddr = "192.0.2.7:4321"
	in.RequestURI = in.URL.RequestURI()
	t.h.ServeHTTP(rec, in)
	return rec.Result(), nil
}

// Register registers a client (RFC 7591) and returns the status and the
// answer.
func (c *Client) Register(t testing.TB, meta map[string]any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(meta)
	req, _ := http.NewRequest("POST", c.Base+"/oauth/register", strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	return c.do(t, req)
}

// Form posts a form to an OAuth endpoint and decodes its JSON answer; the
// answer must not be stored by caches.
func (c *Client) Form(t testing.TB, path string, v url.Values) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", c.Base+path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	status, out := c.do(t, req)
	return status, out
}

func (c *Client) do(t testing.TB, req *http.Request) (int, map[string]any) {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("%s: Cache-Control %q", req.URL.Path, res.Header.Get("Cache-Control"))
	}
	var out map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: %d %s", req.URL.Path, res.StatusCode, b)
		}
	}
	return res.StatusCode, out
}

// AuthorizeURL is the authorization request of clientID for scopes, with
// the tests' redirect, state "s1" and PKCE verifier.
func (c *Client) AuthorizeURL(clientID string, scopes ...string) string {
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {Redirect}, "state": {"s1"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(Verifier)}, "code_challenge_method": {"S256"},
		"resource": {c.Base + "/mcp"}, "scope": {strings.Join(scopes, " ")}}
	return c.Base + "/oauth/authorize?" + q.Encode()
}

// Start follows an authorization URL to the consent page and returns the
// request's id.
func (c *Client) Start(t testing.TB, authorizeURL string) string {
	t.Helper()
	res, err := c.Get(authorizeURL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil || loc.Path != "/oauth/consent/" || loc.Query().Get("request") == "" {
		t.Fatalf("authorize: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	return loc.Query().Get("request")
}

// Exchange trades the code that came back on redirect for tokens.
func (c *Client) Exchange(t testing.TB, clientID string, redirect *url.URL) map[string]any {
	t.Helper()
	if redirect.Query().Get("state") != "s1" || redirect.Query().Get("iss") != c.Base || redirect.Query().Get("code") == "" {
		t.Fatalf("redirect: %s", redirect)
	}
	status, body := c.Form(t, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {redirect.Query().Get("code")},
		"client_id": {clientID}, "redirect_uri": {Redirect}, "code_verifier": {Verifier}, "resource": {c.Base + "/mcp"}})
	if status != 200 {
		t.Fatalf("token: %d %v", status, body)
	}
	return body
}
