package guidehttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/oauth/oauthtest"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// oauthClient is an OAuth client of the test server.
func (e *env) oauthClient() *oauthtest.Client { return oauthtest.New(e.srv, publicURL) }

// consent plays the person's part of an authorization: it follows the
// authorization URL to the consent page and decides as the person with
// token, returning where the browser is sent next.
func (e *env) consent(t *testing.T, authorizeURL, token string, approve bool, scopes []string) *url.URL {
	t.Helper()
	id := e.oauthClient().Start(t, authorizeURL)
	var req struct {
		Data struct {
			Client struct{ ID, Name string }
			Scopes []string
		}
	}
	e.Get("/oauth/requests/"+id, bearer(token)...).Expect(200).Decode(&req)
	body := map[string]any{"approve": approve}
	if approve {
		if scopes == nil {
			scopes = req.Data.Scopes
		}
		body["scopes"] = scopes
	}
	var out struct{ Data struct{ RedirectTo string } }
	e.Do("POST", "/oauth/requests/"+id, body, bearer(token)...).Expect(200).Decode(&out)
	to, err := url.Parse(out.Data.RedirectTo)
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// sdkFetcher is the Go SDK's authorization code fetcher for a person who
// approves scopes (all asked for when nil) while *approve holds.
func (e *env) sdkFetcher(t *testing.T, token string, scopes []string, approve *bool) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		to := e.consent(t, args.URL, token, *approve, scopes)
		q := to.Query()
		if q.Get("error") != "" {
			return nil, errors.New(q.Get("error") + ": " + q.Get("error_description"))
		}
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
}

// TestOAuthConnectsAnMCPClient connects the official Go SDK's OAuth
// client with nothing but the server's URL: it is refused, discovers the
// authorization server, registers, has the person approve some scopes,
// and then calls tools as the person's grant, whose rules are an API
// key's.
func TestOAuthConnectsAnMCPClient(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			hc := b.oauthClient()
			approve := true
			handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
				DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
					ClientName: "Go SDK agent", RedirectURIs: []string{testRedirect}, GrantTypes: []string{"authorization_code", "refresh_token"},
				}},
				RedirectURL:              testRedirect,
				AuthorizationCodeFetcher: b.sdkFetcher(t, b.tourist.token, []string{"packages:read", "bookings:read", "bookings:write"}, &approve),
				Client:                   hc.Client,
			})
			if err != nil {
				t.Fatal(err)
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "oauth-test", Version: "1"}, nil)
			cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: publicURL + "/mcp", HTTPClient: hc.Client, OAuthHandler: handler}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			// The grant's scopes decide what is listed: no profile tool.
			if got := strings.Join(names, ","); !strings.Contains(got, "create_booking") || strings.Contains(got, "get_my_profile") {
				t.Fatalf("tools: %s", got)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_booking", Arguments: map[string]any{
				"packageId": b.packageID, "scheduledDate": b.clock.Now().Add(72 * time.Hour).Format(time.RFC3339), "idempotencyKey": "oauth-1",
			}})
			if err != nil || res.IsError {
				t.Fatalf("create_booking: %v %+v", err, res)
			}
			var created struct{ Data struct{ ID, Status string } }
			raw, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(raw, &created)
			if created.Data.Status != "PENDING" {
				t.Fatalf("booking: %s", raw)
			}
			// The booking is the person's, made through the grant.
			if n := b.count(t, `SELECT COUNT(*) FROM bookings WHERE id = $1 AND tourist_id = $2`, created.Data.ID, b.tourist.id); n != 1 {
				t.Fatalf("booking %s of the person: %d", created.Data.ID, n)
			}
			// Cancelling waits for the person, as for every MCP call.
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "cancel_booking", Arguments: map[string]any{"id": created.Data.ID}})
			if err != nil || res.IsError {
				t.Fatalf("cancel_booking: %v %+v", err, res)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM pending_actions WHERE target_id = $1 AND person_only = TRUE`, created.Data.ID); n != 1 {
				t.Fatalf("person-only pending actions: %d", n)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM bookings WHERE id = $1 AND status = 'PENDING'`, created.Data.ID); n != 1 {
				t.Fatal("the booking was cancelled without the person")
			}

			// The person sees the application and revokes it: the next call
			// is refused, and the person denies the application's new
			// request.
			var apps struct {
				Data []struct {
					ID     string
					Client struct{ ID, Name string }
					Scopes []string
				}
			}
			b.Get("/api/v1/profile/connected-apps", bearer(b.tourist.token)...).Expect(200).Decode(&apps)
			if len(apps.Data) != 1 || apps.Data[0].Client.Name != "Go SDK agent" || len(apps.Data[0].Scopes) != 3 {
				t.Fatalf("connected apps: %+v", apps)
			}
			// The grant is not an API key.
			var keys struct{ Data []any }
			b.Get("/api/v1/auth/api-keys", bearer(b.tourist.token)...).Expect(200).Decode(&keys)
			if len(keys.Data) != 0 {
				t.Fatalf("API keys: %+v", keys.Data)
			}
			b.Do("DELETE", "/api/v1/profile/connected-apps/"+apps.Data[0].ID, nil, bearer(b.tourist.token)...).Expect(200)
			if n := b.count(t, `SELECT COUNT(*) FROM oauth_tokens`); n != 0 {
				t.Fatalf("tokens left after the revocation: %d", n)
			}
			approve = false
			if _, err := cs.ListTools(t.Context(), nil); err == nil || !strings.Contains(err.Error(), "access_denied") {
				t.Fatalf("after the revocation: %v", err)
			}
		})
	}
}

// tokenGrant runs an authorization by hand, as a client would, and
// returns its tokens.
func (e *env) tokenGrant(t *testing.T, person user, clientID, _ string, scopes ...string) (map[string]any, string) {
	t.Helper()
	c := e.oauthClient()
	to := e.consent(t, c.AuthorizeURL(clientID, scopes...), person.token, true, nil)
	return c.Exchange(t, clientID, to), to.Query().Get("code")
}

// form posts a form to an OAuth endpoint and decodes its JSON answer.
func (e *env) form(t *testing.T, path string, v url.Values) (int, map[string]any) {
	t.Helper()
	return e.oauthClient().Form(t, path, v)
}

// registerClient registers a client by RFC 7591.
func (e *env) registerClient(t *testing.T, meta map[string]any) (int, map[string]any) {
	t.Helper()
	return e.oauthClient().Register(t, meta)
}

const (
	testRedirect = oauthtest.Redirect
	verifier     = oauthtest.Verifier
)

// TestOAuthRefusals drives every step of the grant that must refuse.
func TestOAuthRefusals(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, store.SQLite)
	status, reg := b.registerClient(t, map[string]any{"client_name": "Agent", "redirect_uris": []string{testRedirect}})
	if status != 201 || reg["token_endpoint_auth_method"] != "none" {
		t.Fatalf("register: %d %v", status, reg)
	}
	clientID := reg["client_id"].(string)

	t.Run("cors", func(t *testing.T) {
		// Browser-based clients call the protocol's endpoints from their
		// own origin; the consent page's requests stay same-origin.
		for path, want := range map[string]string{"/oauth/token": "*", "/oauth/register": "*", "/oauth/requests/x": ""} {
			res := b.Do("OPTIONS", path, nil, "Origin", "https://client.example", "Access-Control-Request-Method", "POST")
			if got := res.Header.Get("Access-Control-Allow-Origin"); got != want {
				t.Errorf("%s: Access-Control-Allow-Origin %q, want %q", path, got, want)
			}
		}
	})

	t.Run("registration", func(t *testing.T) {
		for _, c := range []struct {
			meta map[string]any
			code string
		}{
			{map[string]any{"redirect_uris": []string{}}, "invalid_redirect_uri"},
			{map[string]any{"redirect_uris": []string{"http://example.com/cb"}}, "invalid_redirect_uri"},
			{map[string]any{"redirect_uris": []string{"javascript:alert(1)"}}, "invalid_redirect_uri"},
			{map[string]any{"redirect_uris": []string{"https://example.com/cb#x"}}, "invalid_redirect_uri"},
			{map[string]any{"redirect_uris": []string{"https://example.com/cb"}, "client_name": "bad\x00name"}, "invalid_client_metadata"},
			{map[string]any{"redirect_uris": []string{"https://example.com/cb"}, "grant_types": []string{"client_credentials"}}, "invalid_client_metadata"},
		} {
			if status, out := b.registerClient(t, c.meta); status != 400 || out["error"] != c.code {
				t.Errorf("%v: %d %v", c.meta, status, out)
			}
		}
	})

	t.Run("authorize", func(t *testing.T) {
		hc := b.oauthClient()
		base := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {testRedirect}, "state": {"s"},
			"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}}
		for _, c := range []struct {
			change   url.Values
			toClient bool // the error goes to the client's redirect URI
			code     string
		}{
			{url.Values{"client_id": {"unknown"}}, false, "invalid_client"},
			{url.Values{"redirect_uri": {"http://127.0.0.1:5170/other"}}, false, "invalid_request"},
			{url.Values{"redirect_uri": {"https://evil.example/callback"}}, false, "invalid_request"},
			{url.Values{"code_challenge_method": {"plain"}}, true, "invalid_request"},
			{url.Values{"code_challenge": {""}}, true, "invalid_request"},
			{url.Values{"resource": {"https://property.api.test/mcp"}}, true, "invalid_target"},
			{url.Values{"response_type": {"token"}}, true, "unsupported_response_type"},
			{url.Values{"scope": {"admin:all"}}, true, "invalid_scope"},
		} {
			q := url.Values{}
			for k, v := range base {
				q[k] = v
			}
			for k, v := range c.change {
				q[k] = v
			}
			res, err := hc.Get(publicURL + "/oauth/authorize?" + q.Encode())
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			loc, _ := url.Parse(res.Header.Get("Location"))
			got := map[string]any{
				"status": res.StatusCode, "error": loc.Query().Get("error"), "toClient": strings.HasPrefix(loc.String(), testRedirect),
			}
			want := map[string]any{"status": 302, "error": c.code, "toClient": c.toClient}
			if c.toClient {
				got["state"] = loc.Query().Get("state")
				want["state"] = "s"
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%v (-want +got):\n%s", c.change, diff)
			}
		}
		// A loopback redirect may take any port.
		q := url.Values{}
		for k, v := range base {
			q[k] = v
		}
		q.Set("redirect_uri", "http://127.0.0.1:61000/callback")
		res, _ := hc.Get(publicURL + "/oauth/authorize?" + q.Encode())
		res.Body.Close()
		if !strings.HasPrefix(res.Header.Get("Location"), "/oauth/consent/?request=") {
			t.Errorf("loopback port: %s", res.Header.Get("Location"))
		}
	})

	t.Run("consent", func(t *testing.T) {
		q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {testRedirect}, "state": {"s"},
			"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}, "scope": {"bookings:read"}}
		res, _ := b.oauthClient().Get(publicURL + "/oauth/authorize?" + q.Encode())
		res.Body.Close()
		loc, _ := url.Parse(res.Header.Get("Location"))
		id := loc.Query().Get("request")
		b.Get("/oauth/requests/" + id).Expect(401)
		key := b.apiKey(t, b.tourist, "bookings:read")
		b.Get("/oauth/requests/"+id, bearer(key)...).Expect(403)
		// More than asked for, or nothing, is refused.
		b.Do("POST", "/oauth/requests/"+id, map[string]any{"approve": true, "scopes": []string{"bookings:write"}}, bearer(b.tourist.token)...).Expect(400)
		b.Do("POST", "/oauth/requests/"+id, map[string]any{"approve": true, "scopes": []string{}}, bearer(b.tourist.token)...).Expect(400)
		var out struct{ Data struct{ RedirectTo string } }
		b.Do("POST", "/oauth/requests/"+id, map[string]any{"approve": false}, bearer(b.tourist.token)...).Expect(200).Decode(&out)
		if to, _ := url.Parse(out.Data.RedirectTo); to.Query().Get("error") != "access_denied" || to.Query().Get("state") != "s" {
			t.Errorf("deny: %s", out.Data.RedirectTo)
		}
		// Decided: gone.
		b.Get("/oauth/requests/"+id, bearer(b.tourist.token)...).Expect(404)
		if n := b.count(t, `SELECT COUNT(*) FROM api_keys WHERE oauth_client_id IS NOT NULL`); n != 0 {
			t.Errorf("grants after a denial: %d", n)
		}
	})

	t.Run("code", func(t *testing.T) {
		q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {testRedirect},
			"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}, "scope": {"bookings:read"}}
		to := b.consent(t, "/oauth/authorize?"+q.Encode(), b.tourist.token, true, nil)
		code := to.Query().Get("code")
		exchange := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {clientID}, "redirect_uri": {testRedirect}, "code_verifier": {verifier}}
		for _, c := range []struct {
			key, value, code string
		}{
			{"code_verifier", "another-verifier-of-at-least-43-characters-012", "invalid_grant"},
			{"redirect_uri", "http://127.0.0.1:5170/other", "invalid_grant"},
			{"client_id", "someone-else", "invalid_grant"},
			{"resource", "https://property.api.test/mcp", "invalid_target"},
			{"grant_type", "password", "unsupported_grant_type"},
		} {
			v := url.Values{}
			for k, vs := range exchange {
				v[k] = vs
			}
			v.Set(c.key, c.value)
			if status, out := b.form(t, "/oauth/token", v); status != 400 || out["error"] != c.code {
				t.Errorf("%s=%s: %d %v", c.key, c.value, status, out)
			}
		}
		status, tokens := b.form(t, "/oauth/token", exchange)
		if diff := cmp.Diff(map[string]any{"status": 200, "token_type": "Bearer", "scope": "bookings:read", "expires_in": float64(600)},
			map[string]any{"status": status, "token_type": tokens["token_type"], "scope": tokens["scope"], "expires_in": tokens["expires_in"]}); diff != "" {
			t.Fatalf("exchange (-want +got):\n%s", diff)
		}
		access := tokens["access_token"].(string)
		b.Get("/api/v1/bookings", bearer(access)...).Expect(200)
		// Beyond the grant: 403 with the challenge naming the scope.
		res := b.Get("/api/v1/profile", bearer(access)...).Expect(403)
		if got := res.Header.Get("WWW-Authenticate"); !strings.Contains(got, `error="insufficient_scope"`) || !strings.Contains(got, `scope="profile:read"`) {
			t.Errorf("challenge: %q", got)
		}
		// Person-only routes refuse the token.
		b.Get("/api/v1/auth/api-keys", bearer(access)...).Expect(403)
		b.Get("/api/v1/profile/connected-apps", bearer(access)...).Expect(403)
		// The code again: refused, and what it gave is revoked.
		if status, out := b.form(t, "/oauth/token", exchange); status != 400 || out["error"] != "invalid_grant" {
			t.Errorf("replayed code: %d %v", status, out)
		}
		res = b.Get("/api/v1/bookings", bearer(access)...).Expect(401)
		if !strings.Contains(res.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("challenge of a revoked token: %q", res.Header.Get("WWW-Authenticate"))
		}
	})

	t.Run("refresh", func(t *testing.T) {
		tokens, _ := b.tokenGrant(t, b.tourist, clientID, verifier, "bookings:read")
		refresh := tokens["refresh_token"].(string)
		// A refresh may not widen the grant; the refusal spends nothing.
		if status, out := b.form(t, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh},
			"client_id": {clientID}, "scope": {"bookings:read profile:write"}}); status != 400 || out["error"] != "invalid_scope" {
			t.Fatalf("widening refresh: %d %v", status, out)
		}
		status, next := b.form(t, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}})
		if status != 200 || next["refresh_token"] == refresh {
			t.Fatalf("refresh: %d %v", status, next)
		}
		b.Get("/api/v1/bookings", bearer(next["access_token"].(string))...).Expect(200)
		// The old refresh token again: the whole chain dies.
		if status, out := b.form(t, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}}); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("reused refresh token: %d %v", status, out)
		}
		b.Get("/api/v1/bookings", bearer(next["access_token"].(string))...).Expect(401)
		if status, _ := b.form(t, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {next["refresh_token"].(string)}, "client_id": {clientID}}); status != 400 {
			t.Fatalf("refresh of a dead chain: %d", status)
		}
	})

	t.Run("expiry and revocation", func(t *testing.T) {
		tokens, _ := b.tokenGrant(t, b.tourist, clientID, verifier, "bookings:read")
		access, refresh := tokens["access_token"].(string), tokens["refresh_token"].(string)
		b.clock.Advance(11 * time.Minute)
		b.Get("/api/v1/bookings", bearer(access)...).Expect(401)
		status, next := b.form(t, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}})
		if status != 200 {
			t.Fatalf("refresh after expiry: %d %v", status, next)
		}
		// RFC 7009: revoking the refresh token ends its chain; an unknown
		// token is answered the same.
		if status, _ := b.form(t, "/oauth/revoke", url.Values{"token": {"wfo_rt_unknown"}, "client_id": {clientID}}); status != 200 {
			t.Errorf("revoke unknown: %d", status)
		}
		if status, _ := b.form(t, "/oauth/revoke", url.Values{"token": {next["refresh_token"].(string)}, "client_id": {clientID}}); status != 200 {
			t.Errorf("revoke: %d", status)
		}
		b.Get("/api/v1/bookings", bearer(next["access_token"].(string))...).Expect(401)
	})

	t.Run("closed account", func(t *testing.T) {
		person := b.register(t, "closing@example.com", "TOURIST")
		tokens, _ := b.tokenGrant(t, person, clientID, verifier, "bookings:read")
		b.Get("/api/v1/bookings", bearer(tokens["access_token"].(string))...).Expect(200)
		b.Do("POST", "/api/v1/profile/delete", map[string]any{"confirmation": "DELETE"}, bearer(person.token)...).Expect(200)
		b.Get("/api/v1/bookings", bearer(tokens["access_token"].(string))...).Expect(401)
		if status, _ := b.form(t, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tokens["refresh_token"].(string)}, "client_id": {clientID}}); status != 400 {
			t.Errorf("refresh after closing: %d", status)
		}
	})
}

// tlsFetcher reads client metadata documents from a test server whose
// certificate the guarded client would not trust.
type tlsFetcher struct{ c *http.Client }

func (f tlsFetcher) Fetch(ctx context.Context, u string, limit int64) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return 0, nil, err
	}
	res, err := f.c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, limit))
	return res.StatusCode, b, err
}

// TestOAuthClientMetadataDocument: a client whose id is the https URL of
// its metadata document needs no registration; the document is read once
// an hour, must name itself, and its redirect URIs bind the client.
func TestOAuthClientMetadataDocument(t *testing.T) {
	t.Parallel()
	var fetches atomic.Int32
	var ts *httptest.Server
	ts = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		id := ts.URL + r.URL.Path
		if r.URL.Path == "/impostor.json" {
			id = ts.URL + "/client.json"
		}
		json.NewEncoder(w).Encode(map[string]any{"client_id": id, "client_name": "Document agent", "client_uri": "https://agent.example",
			"redirect_uris": []string{testRedirect}, "grant_types": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_method": "none"})
	}))
	defer ts.Close()
	e := newEnv(t, options{oauthFetcher: tlsFetcher{ts.Client()}})
	person := e.register(t, "doc@example.com", "TOURIST")
	clientID := ts.URL + "/client.json"
	tokens, _ := e.tokenGrant(t, person, clientID, verifier, "packages:read")
	e.Get("/api/v1/packages", bearer(tokens["access_token"].(string))...).Expect(200)
	var apps struct {
		Data []struct {
			Client struct{ ID, Name, URI string }
		}
	}
	e.Get("/api/v1/profile/connected-apps", bearer(person.token)...).Expect(200).Decode(&apps)
	gotApps := map[string]any{"apps": len(apps.Data)}
	if len(apps.Data) == 1 {
		gotApps["client"] = apps.Data[0].Client
	}
	wantApps := map[string]any{
		"apps": 1, "client": struct{ ID, Name, URI string }{clientID, "Document agent", "https://agent.example"},
	}
	if diff := cmp.Diff(wantApps, gotApps); diff != "" {
		t.Fatalf("connected apps (-want +got):\n%s", diff)
	}
	// Known for an hour: a second authorization does not read it again.
	e.tokenGrant(t, person, clientID, verifier, "packages:read")
	if n := fetches.Load(); n != 1 {
		t.Errorf("fetches within the hour: %d", n)
	}
	e.clock.Advance(61 * time.Minute)
	e.tokenGrant(t, person, clientID, verifier, "packages:read")
	if n := fetches.Load(); n != 2 {
		t.Errorf("fetches after the hour: %d", n)
	}
	// A document that names another client is refused, and the person is
	// told so instead of the client.
	q := url.Values{"response_type": {"code"}, "client_id": {ts.URL + "/impostor.json"}, "redirect_uri": {testRedirect},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}}
	res, _ := e.oauthClient().Get(publicURL + "/oauth/authorize?" + q.Encode())
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	if loc.Path != "/oauth/consent/" || loc.Query().Get("error") != "invalid_client" {
		t.Errorf("impostor: %s", loc)
	}
	// The guarded client refuses a document on a loopback address that
	// is not allowed.
	guarded := newEnv(t, options{noSample: true, oauthFetcher: changes.NewClientTimeout(changes.Policy{}, oauth.FetchTimeout)})
	q.Set("client_id", clientID)
	res, _ = guarded.oauthClient().Get(publicURL + "/oauth/authorize?" + q.Encode())
	res.Body.Close()
	if loc, _ := url.Parse(res.Header.Get("Location")); loc.Query().Get("error") != "invalid_client" {
		t.Errorf("a document on a loopback https address: %s", loc)
	}
}

// TestOAuthOneGrantPerApplication: approving an application again
// replaces the scopes of the person's one grant to it, and two approvals
// at once still leave one.
func TestOAuthOneGrantPerApplication(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			_, reg := b.registerClient(t, map[string]any{"client_name": "Agent", "redirect_uris": []string{testRedirect}})
			clientID := reg["client_id"].(string)
			b.tokenGrant(t, b.tourist, clientID, verifier, "bookings:read")
			b.tokenGrant(t, b.tourist, clientID, verifier, "profile:read")
			c := b.oauthClient()
			ids := []string{c.Start(t, c.AuthorizeURL(clientID, "packages:read")), c.Start(t, c.AuthorizeURL(clientID, "packages:read"))}
			var wg sync.WaitGroup
			for _, id := range ids {
				wg.Go(func() {
					b.Do("POST", "/oauth/requests/"+id, map[string]any{"approve": true, "scopes": []string{"packages:read"}}, bearer(b.tourist.token)...).Expect(200)
				})
			}
			wg.Wait()
			var apps struct{ Data []struct{ Scopes []string } }
			b.Get("/api/v1/profile/connected-apps", bearer(b.tourist.token)...).Expect(200).Decode(&apps)
			if len(apps.Data) != 1 || strings.Join(apps.Data[0].Scopes, " ") != "packages:read" {
				t.Fatalf("connected apps: %+v", apps.Data)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM api_keys WHERE oauth_client_id = $1`, clientID); n != 1 {
				t.Fatalf("grants of the client: %d", n)
			}
		})
	}
}

// TestConnectedAppIDs: a connected app's id is a UUID in either case,
// named back in lower case, as on the property API; anything else, and
// an app revoked already, is no app.
func TestConnectedAppIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	person := e.register(t, "ids@example.com", "TOURIST")
	_, reg := e.registerClient(t, map[string]any{"client_name": "Id agent", "redirect_uris": []string{testRedirect}})
	tokens, _ := e.tokenGrant(t, person, reg["client_id"].(string), verifier, "profile:read")
	access := bearer(tokens["access_token"].(string))
	e.Get("/api/v1/profile", access...).Expect(200)
	var apps struct{ Data []struct{ ID string } }
	e.Get("/api/v1/profile/connected-apps", bearer(person.token)...).Expect(200).Decode(&apps)
	if len(apps.Data) != 1 {
		t.Fatalf("connected apps: %+v", apps)
	}
	id := apps.Data[0].ID

	type refusal struct{ Code, Message string }
	for _, raw := range []string{"not-a-uuid", strings.ReplaceAll(id, "-", ""), "{" + id + "}", "urn:uuid:" + id, "00000000-0000-4000-8000-000000000000"} {
		var got struct{ Error refusal }
		e.Do("DELETE", "/api/v1/profile/connected-apps/"+url.PathEscape(raw), nil, bearer(person.token)...).Expect(404).Decode(&got)
		want := refusal{Code: "NOT_FOUND", Message: `No connected app with id "` + raw + `".`}
		if diff := cmp.Diff(want, got.Error); diff != "" {
			t.Errorf("DELETE %s (-want +got):\n%s", raw, diff)
		}
	}

	var got struct{ Data oauth.RevokedApp }
	e.Do("DELETE", "/api/v1/profile/connected-apps/"+strings.ToUpper(id), nil, bearer(person.token)...).Expect(200).Decode(&got)
	if diff := cmp.Diff(oauth.RevokedApp{ID: id, Revoked: true, RevokedAt: e.clock.Now()}, got.Data); diff != "" {
		t.Errorf("revoked (-want +got):\n%s", diff)
	}
	e.Get("/api/v1/profile", access...).Expect(401)
	e.Do("DELETE", "/api/v1/profile/connected-apps/"+id, nil, bearer(person.token)...).Expect(404)
}
