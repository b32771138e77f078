package propertyhttp_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/oauth/oauthtest"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// consent follows an authorization to the consent page and decides as
// the developer with the portal token, returning where the browser is
// sent next.
func (e *env) consent(t *testing.T, authorizeURL, token string, approve bool, scopes []string) *url.URL {
	t.Helper()
	id := oauthtest.New(e.srv, publicURL).Start(t, authorizeURL)
	var req struct{ Data struct{ Scopes []string } }
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

// grant registers a client and has the developer approve scopes; it
// returns the client's id and its tokens.
func (e *env) grant(t *testing.T, d dev, scopes ...string) (string, map[string]any) {
	t.Helper()
	c := oauthtest.New(e.srv, publicURL)
	status, reg := c.Register(t, map[string]any{"client_name": "Channel agent", "redirect_uris": []string{oauthtest.Redirect}})
	if status != 201 {
		t.Fatalf("register: %d %v", status, reg)
	}
	clientID := reg["client_id"].(string)
	return clientID, c.Exchange(t, clientID, e.consent(t, c.AuthorizeURL(clientID, scopes...), d.token, true, nil))
}

// TestOAuthConnectsAnMCPClient: the official Go SDK's OAuth client
// connects to the property MCP endpoint with nothing but its URL; the
// developer approves some scopes; its calls are the grant's, metered and
// counted as any key's, and stop when the developer revokes it.
func TestOAuthConnectsAnMCPClient(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			d := e.signup(t)
			hc := oauthtest.New(e.srv, publicURL)
			approve := true
			handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
				DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
					ClientName: "Go SDK channel manager", RedirectURIs: []string{oauthtest.Redirect}, GrantTypes: []string{"authorization_code", "refresh_token"},
				}},
				RedirectURL: oauthtest.Redirect,
				AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
					q := e.consent(t, args.URL, d.token, approve, []string{"properties:read", "bookings:read"}).Query()
					if q.Get("error") != "" {
						return nil, errors.New(q.Get("error"))
					}
					return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
				},
				Client: hc.Client,
			})
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "oauth-test", Version: "1"}, nil).Connect(t.Context(),
				&mcp.StreamableClientTransport{Endpoint: publicURL + "/mcp", HTTPClient: hc.Client, OAuthHandler: handler}, nil)
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
			if got := strings.Join(names, ","); !strings.Contains(got, "search_properties") || strings.Contains(got, "create_quote") {
				t.Fatalf("tools: %s", got)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_properties"})
			if err != nil || res.IsError {
				t.Fatalf("search_properties: %v %+v", err, res)
			}
			// Beyond the grant: HTTP 403 with the scope to ask for, which the
			// SDK turns into a new authorization; the developer denies it.
			approve = false
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_quote", Arguments: map[string]any{}}); err == nil {
				t.Fatal("a tool beyond the grant ran")
			}
			var apps struct {
				Data []struct {
					ID     string
					Client struct{ Name string }
					Scopes []string
				}
			}
			e.Get("/portal/api/connected-apps", bearer(d.token)...).Expect(200).Decode(&apps)
			if len(apps.Data) != 1 || apps.Data[0].Client.Name != "Go SDK channel manager" || len(apps.Data[0].Scopes) != 2 {
				t.Fatalf("connected apps: %+v", apps)
			}
			// Counted as a key's requests: usage of the grant.
			counted := 0
			for uk, n := range e.usage.Pending() {
				if uk.KeyID == apps.Data[0].ID {
					counted += n.Requests
				}
			}
			if counted < 3 {
				t.Errorf("requests counted for the grant: %d", counted)
			}
			// The grant is not an API key.
			var keys struct{ Data []any }
			e.Get("/portal/api/keys", bearer(d.token)...).Expect(200).Decode(&keys)
			if len(keys.Data) != 0 {
				t.Fatalf("keys: %+v", keys.Data)
			}
			e.Do("DELETE", "/portal/api/connected-apps/"+apps.Data[0].ID, nil, bearer(d.token)...).Expect(200)
			if _, err := cs.ListTools(t.Context(), nil); err == nil {
				t.Fatal("a revoked grant still lists tools")
			}
		})
	}
}

// TestOAuthTokenBoundaries: a token works where a key with its scopes
// does, never on the portal, and never on another server.
func TestOAuthTokenBoundaries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	d := e.signup(t)
	_, tokens := e.grant(t, d, "properties:read")
	access := tokens["access_token"].(string)
	e.Get("/api/v1/properties", bearer(access)...).Expect(200)
	e.Get("/api/v1/properties", xkey(access)...).Expect(200)
	res := e.Get("/api/v1/bookings", bearer(access)...).Expect(403)
	if got := res.Header.Get("WWW-Authenticate"); !strings.Contains(got, `error="insufficient_scope"`) || !strings.Contains(got, `scope="bookings:read"`) {
		t.Errorf("challenge: %q", got)
	}
	e.Get("/portal/api/keys", bearer(access)...).Expect(401)
	e.Get("/portal/api/connected-apps", bearer(access)...).Expect(401)
	// Another server (another database, another issuer) knows nothing of it.
	other := newEnv(t, options{})
	res = other.Get("/api/v1/properties", bearer(access)...).Expect(401)
	if !strings.Contains(res.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("challenge of a foreign token: %q", res.Header.Get("WWW-Authenticate"))
	}
	// A key cannot decide on an authorization request.
	c := oauthtest.New(e.srv, publicURL)
	_, reg := c.Register(t, map[string]any{"client_name": "x", "redirect_uris": []string{oauthtest.Redirect}})
	id := c.Start(t, c.AuthorizeURL(reg["client_id"].(string), "properties:read"))
	e.Get("/oauth/requests/"+id, xkey(e.key(t, d, "live"))...).Expect(401)
	e.Get("/oauth/requests/"+id, bearer(access)...).Expect(401)
}

// TestConnectedAppIDs: a connected app's id is a UUID in either case,
// named back in lower case, as on the guide API; anything else, and an
// app revoked already, is no app.
func TestConnectedAppIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	d := e.signup(t)
	_, tokens := e.grant(t, d, "properties:read")
	access := bearer(tokens["access_token"].(string))
	e.Get("/api/v1/properties", access...).Expect(200)
	var apps struct{ Data []struct{ ID string } }
	e.Get("/portal/api/connected-apps", bearer(d.token)...).Expect(200).Decode(&apps)
	if len(apps.Data) != 1 {
		t.Fatalf("connected apps: %+v", apps)
	}
	id := apps.Data[0].ID

	type refusal struct{ Code, Message string }
	for _, raw := range []string{"not-a-uuid", strings.ReplaceAll(id, "-", ""), "{" + id + "}", "urn:uuid:" + id, "00000000-0000-4000-8000-000000000000"} {
		var got struct{ Error refusal }
		e.Do("DELETE", "/portal/api/connected-apps/"+url.PathEscape(raw), nil, bearer(d.token)...).Expect(404).Decode(&got)
		want := refusal{Code: "NOT_FOUND", Message: `No connected app with id "` + raw + `".`}
		if diff := cmp.Diff(want, got.Error); diff != "" {
			t.Errorf("DELETE %s (-want +got):\n%s", raw, diff)
		}
	}

	var got struct{ Data oauth.RevokedApp }
	e.Do("DELETE", "/portal/api/connected-apps/"+strings.ToUpper(id), nil, bearer(d.token)...).Expect(200).Decode(&got)
	if diff := cmp.Diff(oauth.RevokedApp{ID: id, Revoked: true, RevokedAt: e.clock.Now()}, got.Data); diff != "" {
		t.Errorf("revoked (-want +got):\n%s", diff)
	}
	e.Get("/api/v1/properties", access...).Expect(401)
	e.Do("DELETE", "/portal/api/connected-apps/"+id, nil, bearer(d.token)...).Expect(404)
}
