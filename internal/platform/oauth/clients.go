package oauth

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Client is an application a person may connect: registered here (its id
// is ours) or described by its metadata document (its id is that
// document's https URL).
type Client struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	URI          string   `json:"uri,omitempty"` // its home page, as it says
	RedirectURIs []string `json:"-"`
	// Document tells that the client is described by the document at ID.
	Document  bool      `json:"-"`
	FetchedAt time.Time `json:"-"`
}

// Bounds of a client's metadata.
const (
	maxRedirects   = 10
	maxURL         = 2000
	maxName        = 100
	maxDocument    = 64 << 10
	maxClientIDURL = 500
)

// RegisterClient registers a client from its metadata (RFC 7591). Every
// client is public: a request for another authentication method is
// answered with "none", which the client must use. Errors: *Error with
// invalid_redirect_uri or invalid_client_metadata.
func (s *Server) RegisterClient(ctx context.Context, m *oauthex.ClientRegistrationMetadata) (*oauthex.ClientRegistrationResponse, error) {
	c, err := checkMetadata(m)
	if err != nil {
		return nil, err
	}
	c.ID = store.NewID()
	now := s.cfg.Clock.Now().UTC().Truncate(time.Second)
	redirects, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return nil, err
	}
	if _, err := s.cfg.DB.ExecContext(ctx, `INSERT INTO oauth_clients (id, name, uri, redirect_uris, document, fetched_at, created_at)
		VALUES ($1, $2, $3, $4, FALSE, $5, $5)`, c.ID, c.Name, c.URI, string(redirects), now); err != nil {
		return nil, fmt.Errorf("register client: %w", err)
	}
	out := *m
	out.ClientName, out.ClientURI, out.RedirectURIs = c.Name, c.URI, c.RedirectURIs
	out.TokenEndpointAuthMethod = "none"
	out.GrantTypes = []string{"authorization_code", "refresh_token"}
	out.ResponseTypes = []string{"code"}
	return &oauthex.ClientRegistrationResponse{ClientRegistrationMetadata: out, ClientID: c.ID, ClientIDIssuedAt: now}, nil
}

// checkMetadata validates a client's metadata: its redirect URIs (1 to
// maxRedirects, each https, an http loopback address, or a private-use
// scheme of a native application, RFC 8252), its name and home page.
func checkMetadata(m *oauthex.ClientRegistrationMetadata) (*Client, error) {
	if len(m.RedirectURIs) == 0 || len(m.RedirectURIs) > maxRedirects {
		return nil, &Error{Code: "invalid_redirect_uri", Description: fmt.Sprintf("redirect_uris must list 1 to %d URIs.", maxRedirects)}
	}
	for _, r := range m.RedirectURIs {
		if why := checkRedirect(r); why != "" {
			return nil, &Error{Code: "invalid_redirect_uri", Description: "redirect_uris: " + why}
		}
	}
	if !checkText(m.ClientName, maxName) {
		return nil, &Error{Code: "invalid_client_metadata", Description: fmt.Sprintf("client_name must be text of at most %d characters.", maxName)}
	}
	name := strings.TrimSpace(m.ClientName)
	if name == "" {
		name = "Unnamed application"
	}
	var uri string
	if m.ClientURI != "" {
		u, err := url.Parse(m.ClientURI)
		if len(m.ClientURI) > maxURL || !checkText(m.ClientURI, maxURL) || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, &Error{Code: "invalid_client_metadata", Description: "client_uri must be an http(s) URL."}
		}
		uri = m.ClientURI
	}
	if m.TokenEndpointAuthMethod == "private_key_jwt" || m.JWKS != "" || m.JWKSURI != "" {
		return nil, &Error{Code: "invalid_client_metadata", Description: "Clients are public here: token_endpoint_auth_method is none, and no keys are taken."}
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, &Error{Code: "invalid_client_metadata", Description: "grant_types may hold authorization_code and refresh_token only."}
		}
	}
	for _, t := range m.ResponseTypes {
		if t != "code" {
			return nil, &Error{Code: "invalid_client_metadata", Description: "response_types may hold code only."}
		}
	}
	return &Client{Name: name, URI: uri, RedirectURIs: slices.Clone(m.RedirectURIs)}, nil
}

// checkRedirect tells what is wrong with a redirect URI, or "".
func checkRedirect(raw string) string {
	if len(raw) > maxURL || !checkText(raw, maxURL) {
		return fmt.Sprintf("each URI is text of at most %d characters.", maxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return strings.TrimSpace(fmt.Sprintf("%q is not an absolute URI.", raw))
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Sprintf("%q has a fragment.", raw)
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return fmt.Sprintf("%q has no host.", raw)
		}
	case "http":
		if !httpx.Loopback(u.Hostname()) {
			return fmt.Sprintf("%q: plain http is for loopback addresses only (127.0.0.1, [::1], localhost).", raw)
		}
	case "javascript", "data", "file", "vbscript", "blob", "about":
		return fmt.Sprintf("%q: the scheme %s is not a redirect.", raw, u.Scheme)
	default:
		// A native application's private-use scheme is a reversed domain
		// name it owns (RFC 8252, section 7.1).
		if !strings.Contains(u.Scheme, ".") {
			return fmt.Sprintf("%q: a private-use scheme is a reversed domain name, such as com.example.app.", raw)
		}
	}
	return ""
}

// redirectAllowed tells whether the client may be sent to redirect: one
// of its URIs exactly, or, for a loopback URI, the same with any port
// (RFC 8252, section 7.3: a native client listens on a port it is given
// at run time).
func (c *Client) redirectAllowed(redirect string) bool {
	if slices.Contains(c.RedirectURIs, redirect) {
		return true
	}
	got, err := url.Parse(redirect)
	if err != nil || got.Scheme != "http" || !httpx.Loopback(got.Hostname()) {
		return false
	}
	for _, r := range c.RedirectURIs {
		want, err := url.Parse(r)
		if err == nil && want.Scheme == "http" && want.Hostname() == got.Hostname() &&
			want.EscapedPath() == got.EscapedPath() && want.RawQuery == got.RawQuery && want.User == nil && got.User == nil {
			return true
		}
	}
	return false
}

// client returns the client of id: a registered one, or the one the
// metadata document at id describes, fetched when not known or known for
// longer than ClientTTL. Errors: *Error invalid_client.
func (s *Server) client(ctx context.Context, id string) (*Client, error) {
	if !checkText(id, maxClientIDURL) || id == "" {
		return nil, &Error{Code: "invalid_client", Description: "client_id is missing or not valid."}
	}
	c, err := s.findClient(ctx, id)
	if err != nil {
		return nil, err
	}
	document := strings.HasPrefix(id, "https://")
	if c != nil && (!document || s.cfg.Clock.Now().Sub(c.FetchedAt) < ClientTTL) {
		return c, nil
	}
	if !document {
		return nil, &Error{Code: "invalid_client", Description: "No client is registered with this client_id; register (" + RegisterPath + ") or use the https URL of a client metadata document."}
	}
	fetched, err := s.fetchClient(ctx, id)
	if err != nil {
		if c != nil {
			// The document's host is down: what was read before holds.
			s.cfg.Logger.WarnContext(ctx, "oauth: client metadata document unreachable; using the copy held", "client_id", id, "err", err)
			return c, nil
		}
		return nil, err
	}
	return fetched, nil
}

func (s *Server) findClient(ctx context.Context, id string) (*Client, error) {
	var c Client
	var redirects []byte
	err := s.cfg.DB.QueryRowContext(ctx, `SELECT id, name, uri, redirect_uris, document, fetched_at FROM oauth_clients WHERE id = $1`, id).
		Scan(&c.ID, &c.Name, &c.URI, &redirects, &c.Document, &c.FetchedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("find client: %w", err)
	}
	c.RedirectURIs = store.StringList(redirects)
	return &c, nil
}

// fetchClient reads the client metadata document at id, checks it and
// keeps it. Errors: *Error invalid_client.
func (s *Server) fetchClient(ctx context.Context, id string) (*Client, error) {
	u, err := url.Parse(id)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" || u.User != nil {
		return nil, &Error{Code: "invalid_client", Description: "A client_id URL is an https URL with a path, without fragment or credentials."}
	}
	status, body, err := s.cfg.Fetcher.Fetch(ctx, id, maxDocument)
	if err != nil {
		return nil, &Error{Code: "invalid_client", Description: "The client metadata document could not be fetched: " + err.Error()}
	}
	if status != 200 {
		return nil, &Error{Code: "invalid_client", Description: fmt.Sprintf("The client metadata document answered HTTP %d.", status)}
	}
	var doc struct {
		oauthex.ClientRegistrationMetadata
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, &Error{Code: "invalid_client", Description: "The client metadata document is not a JSON object of client metadata."}
	}
	if doc.ClientID != id {
		return nil, &Error{Code: "invalid_client", Description: "The client metadata document's client_id is not its own URL."}
	}
	if doc.ClientSecret != "" || doc.TokenEndpointAuthMethod == "client_secret_basic" || doc.TokenEndpointAuthMethod == "client_secret_post" {
		return nil, &Error{Code: "invalid_client", Description: "A client metadata document describes a public client: no client secret."}
	}
	c, err := checkMetadata(&doc.ClientRegistrationMetadata)
	if err != nil {
		e := err.(*Error)
		return nil, &Error{Code: "invalid_client", Description: "The client metadata document: " + e.Description}
	}
	c.ID, c.Document, c.FetchedAt = id, true, s.cfg.Clock.Now().UTC()
	redirects, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return nil, err
	}
	if _, err := s.cfg.DB.ExecContext(ctx, `INSERT INTO oauth_clients (id, name, uri, redirect_uris, document, fetched_at, created_at)
		VALUES ($1, $2, $3, $4, TRUE, $5, $5)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, uri = excluded.uri, redirect_uris = excluded.redirect_uris, fetched_at = excluded.fetched_at`,
		c.ID, c.Name, c.URI, string(redirects), c.FetchedAt); err != nil {
		return nil, fmt.Errorf("keep client metadata: %w", err)
	}
	return c, nil
}
