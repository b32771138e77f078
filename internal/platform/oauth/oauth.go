// Package oauth is the authorization server each API runs for the agents
// a person connects to its MCP endpoint (OAuth 2.1 as the MCP
// authorization specification profiles it): server metadata (RFC 8414),
// client registration by Client ID Metadata Document or by Dynamic Client
// Registration (RFC 7591), the authorization code grant with PKCE (S256
// only), refresh tokens rotated at each use with reuse detection,
// revocation (RFC 7009) and resource indicators (RFC 8707).
//
// A grant is one of the product's API keys (KeyGrants keeps it), so a token
// is a principal like any key: its scopes, rate limit, usage counting,
// idempotency and pending actions are the key's. This package keeps the
// clients, the authorization requests and the tokens, each secret stored
// as its SHA-256 hash, in tables every product's migrations create.
package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"log/slog"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Lifetimes.
const (
	// RequestTTL is how long a person has to decide on an authorization
	// request.
	RequestTTL = 10 * time.Minute
	// CodeTTL is how long an authorization code can be exchanged.
	CodeTTL = time.Minute
	// AccessTTL is the life of an access token: short, since only its
	// grant's revocation (checked at each use) ends it sooner.
	AccessTTL = 10 * time.Minute
	// RefreshTTL is the life of a refresh token; each use gives a new one.
	RefreshTTL = 30 * 24 * time.Hour
	// ClientTTL is how long a client's metadata document is kept before
	// it is fetched again.
	ClientTTL = time.Hour
	// FetchTimeout bounds the reading of a client's metadata document,
	// which a person waits for.
	FetchTimeout = 5 * time.Second
)

// Token prefixes, so that a door tells an access token from an API key or
// a user token without a lookup.
const (
	accessPrefix  = "wfo_at_"
	refreshPrefix = "wfo_rt_"
)

// IsAccessToken reports whether a bearer credential is an access token of
// this package.
func IsAccessToken(s string) bool { return strings.HasPrefix(s, accessPrefix) }

// Grants keeps the grants: one of the product's API keys each, owned by
// the person who approved it and marked as the grant of one client
// (KeyGrants).
type Grants interface {
	// SaveGrant gives the person's grant to the client the scopes, in tx,
	// creating it when the person holds none, and returns its id.
	SaveGrant(ctx context.Context, tx *sql.Tx, person string, c *Client, scopes []string) (string, error)
	// GrantScopes returns the scopes of a grant that still stands (not
	// revoked, its owner's account open). Errors: apperr.NotFound.
	GrantScopes(ctx context.Context, tx *sql.Tx, grantID string) ([]string, error)
}

// Fetcher reads a client's metadata document: the webhook sender's
// guarded client, which refuses loopback, private and metadata addresses
// unless allowed and bounds the time and the size of the answer.
type Fetcher interface {
	Fetch(ctx context.Context, url string, limit int64) (status int, body []byte, err error)
}

// Config is what a Server needs.
type Config struct {
	// Issuer is the API's public base URL (no trailing slash): the
	// issuer, and the base of every endpoint's URL.
	Issuer string
	// Resource is the one resource tokens are minted for (the MCP
	// endpoint's URL); the API's REST routes on the same server accept
	// them too.
	Resource string
	// Scopes are those a client may ask for: the API keys' scopes.
	Scopes []string
	// ConsentPage is the path of the consent page, which gets
	// ?request=<id>.
	ConsentPage string
	// Documentation is the URL of the integrators' guide to this server.
	Documentation string
	DB            *store.DB
	Grants        Grants
	Fetcher       Fetcher
	Clock         clock.Clock
	Logger        *slog.Logger
}

// Server is the authorization server of one API.
type Server struct {
	cfg Config
}

// New returns the authorization server cfg describes.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Server{cfg: cfg}
}

// Resource is the resource the server's tokens are minted for.
func (s *Server) Resource() string { return s.cfg.Resource }

// Issuer is the server's issuer identifier.
func (s *Server) Issuer() string { return s.cfg.Issuer }

// Metadata is the authorization server's metadata (RFC 8414).
type Metadata struct {
	Issuer                                 string   `json:"issuer"`
	AuthorizationEndpoint                  string   `json:"authorization_endpoint"`
	TokenEndpoint                          string   `json:"token_endpoint"`
	RegistrationEndpoint                   string   `json:"registration_endpoint"`
	RevocationEndpoint                     string   `json:"revocation_endpoint"`
	ScopesSupported                        []string `json:"scopes_supported"`
	ResponseTypesSupported                 []string `json:"response_types_supported"`
	ResponseModesSupported                 []string `json:"response_modes_supported"`
	GrantTypesSupported                    []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported      []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethodsSupported []string `json:"revocation_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported          []string `json:"code_challenge_methods_supported"`
	ServiceDocumentation                   string   `json:"service_documentation,omitempty"`
	ClientIDMetadataDocumentSupported      bool     `json:"client_id_metadata_document_supported"`
	AuthorizationResponseIssParameter      bool     `json:"authorization_response_iss_parameter_supported"`
}

// Paths of the endpoints, under the issuer.
const (
	MetadataPath  = "/.well-known/oauth-authorization-server"
	AuthorizePath = "/oauth/authorize"
	TokenPath     = "/oauth/token" // #nosec G101 -- a path, not a credential.
	RegisterPath  = "/oauth/register"
	RevokePath    = "/oauth/revoke"
	RequestsPath  = "/oauth/requests/"
)

// Metadata returns the server's metadata. Clients are public (they hold
// no secret; PKCE proves the code is theirs).
func (s *Server) Metadata() *Metadata {
	base := s.cfg.Issuer
	return &Metadata{
		Issuer:                                 base,
		AuthorizationEndpoint:                  base + AuthorizePath,
		TokenEndpoint:                          base + TokenPath,
		RegistrationEndpoint:                   base + RegisterPath,
		RevocationEndpoint:                     base + RevokePath,
		ScopesSupported:                        s.cfg.Scopes,
		ResponseTypesSupported:                 []string{"code"},
		ResponseModesSupported:                 []string{"query"},
		GrantTypesSupported:                    []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:      []string{"none"},
		RevocationEndpointAuthMethodsSupported: []string{"none"},
		CodeChallengeMethodsSupported:          []string{"S256"},
		ServiceDocumentation:                   s.cfg.Documentation,
		ClientIDMetadataDocumentSupported:      true,
		AuthorizationResponseIssParameter:      true,
	}
}

// secret returns a new random secret with prefix and the hash it is
// stored by.
func secret(prefix string) (value, hash string) {
	value = prefix + rand.Text()
	return value, hashOf(value)
}

// hashOf is the stored form of a secret: its SHA-256, in hex. The secrets
// are random and long, so no slow hash is needed.
func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// ConnectedApp is a person's grant to an application, as the person's
// list of connected apps shows it.
type ConnectedApp struct {
	ID         string          `json:"id"`
	Client     ConnectedClient `json:"client"`
	Scopes     []string        `json:"scopes"`
	CreatedAt  time.Time       `json:"createdAt"`
	LastUsedAt *time.Time      `json:"lastUsedAt"`
}

// ConnectedClient is the application of a ConnectedApp, as it describes
// itself.
type ConnectedClient struct {
	ID   string  `json:"id"`
	Name string  `json:"name"`
	URI  *string `json:"uri"`
}
