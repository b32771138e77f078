package guide

import (
	"context"
	"slices"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/oauth"
)

// Roles of an account.
const (
	RoleTourist = "TOURIST"
	RoleExpert  = "EXPERT"
	RoleAdmin   = "ADMIN"
)

// Scopes an API key can hold.
var Scopes = []string{
	"experts:read", "packages:read", "travelogues:read",
	"bookings:read", "bookings:write", "profile:read", "profile:write", "events:read",
	ScopeOctoSell,
}

// User is an account, as the API shows it (UserResponse).
type User struct {
	ID        string     `json:"id"`
	Email     *string    `json:"email"`
	Name      *string    `json:"name"`
	Image     *string    `json:"image"`
	Nickname  *string    `json:"nickname"`
	Avatar    *string    `json:"avatar"`
	Role      string     `json:"role"`
	Handle    string     `json:"-"`
	Locale    string     `json:"-"`
	CreatedAt time.Time  `json:"-"`
	DeletedAt *time.Time `json:"-"`
}

// APIKey is a key as listed; the key itself and its hash are never shown.
type APIKey struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	KeyPrefix  string     `json:"keyPrefix"`
	Scopes     []string   `json:"scopes"`
	RateLimit  int        `json:"rateLimit"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	ExpiresAt  *time.Time `json:"expiresAt"`
	CreatedAt  time.Time  `json:"createdAt"`
	Mode       string     `json:"mode"`
	// Confirmation says who may confirm the high-risk actions the key asks
	// for: ConfirmActor or ConfirmPerson.
	Confirmation string `json:"confirmation"`
	UserID       string `json:"-"`
	// OAuthClientID is set on a person's grant to an application they
	// connected through OAuth (an oauth.ConnectedApp), which is a key of its own
	// kind: listed and revoked as a connected app, never as an API key.
	OAuthClientID string `json:"-"`
}

// Who confirms the pending actions of a key (APIKey.Confirmation).
const (
	// ConfirmActor is the specification's default: the original actor,
	// the key that asked as well as its owner.
	ConfirmActor = "actor"
	// ConfirmPerson leaves every action to the owner, with a user token or
	// the web session: no key confirms one, the one that asked included.
	ConfirmPerson = "person"
)

// HasScope reports whether the key holds scope.
func (k *APIKey) HasScope(scope string) bool { return slices.Contains(k.Scopes, scope) }

// Caller is who makes a request: a user, through a user token, a web
// session or one of their API keys.
type Caller struct {
	User    *User
	APIKey  *APIKey // nil unless the request used an API key
	Session bool    // authenticated by the web session cookie
	// MCP: the request came through the MCP endpoint. The pending actions
	// it asks for are the person's to confirm, not the key's.
	MCP bool
}

// PersonConfirms reports whether the pending actions the caller asks for
// are the person's alone to confirm: those asked through the MCP endpoint,
// and those of a key made with ConfirmPerson.
func (c *Caller) PersonConfirms() bool {
	return c.MCP || c.APIKey != nil && c.APIKey.Confirmation == ConfirmPerson
}

// NewUser is an account to create.
type NewUser struct {
	Email         string
	EmailVerified bool
	PasswordHash  string // empty: no password login
	Name          *string
	Role          string
}

// Identity is a link from an external identity provider's subject to an
// account.
type Identity struct {
	Provider string
	Subject  string
	Email    string
}

// AccountStore keeps accounts, their credentials and keys.
type AccountStore interface {
	// CreateUser creates an account; an EXPERT gets an unverified expert
	// profile with a handle. Errors: apperr.EmailTaken.
	CreateUser(ctx context.Context, u NewUser) (*User, error)
	// FindUserByEmail returns the open account with the e-mail (any case)
	// and its password hash ("" when it has none). Errors: apperr.NotFound.
	FindUserByEmail(ctx context.Context, email string) (*User, string, error)
	// FindUserByID returns an open account. Errors: apperr.NotFound.
	FindUserByID(ctx context.Context, id string) (*User, error)
	// SignInWithIdentity returns the account linked to the identity,
	// linking an open account with the same verified e-mail, or creating a
	// TOURIST account named name. created tells whether it is new.
	SignInWithIdentity(ctx context.Context, id Identity, emailVerified bool, name *string) (u *User, created bool, err error)

	// CreateAPIKey stores a key of user by its hash.
	CreateAPIKey(ctx context.Context, k *APIKey, hash string) error
	// FindAPIKeys lists the user's active (not revoked, not expired) keys.
	FindAPIKeys(ctx context.Context, userID string) ([]APIKey, error)
	// RevokeAPIKey revokes a key of user. Errors: apperr.NotFound.
	RevokeAPIKey(ctx context.Context, userID, id string) (time.Time, error)
	// FindAPIKeyByHash returns an active key and its open account.
	// Errors: apperr.Unauthorized.
	FindAPIKeyByHash(ctx context.Context, hash string) (*APIKey, *User, error)
	// FindGrant returns an active OAuth grant (an API key of that kind)
	// and its open account. Errors: apperr.Unauthorized.
	FindGrant(ctx context.Context, id string) (*APIKey, *User, error)
	// ConnectedApps lists the user's active OAuth grants, newest first.
	ConnectedApps(ctx context.Context, userID string) ([]oauth.ConnectedApp, error)
	// RevokeConnectedApp revokes an OAuth grant of user and its tokens;
	// id is a UUID in either case. Errors: apperr.NotFound.
	RevokeConnectedApp(ctx context.Context, userID, id string) (*oauth.RevokedApp, error)
	// TouchAPIKeys records when keys were last used.
	TouchAPIKeys(ctx context.Context, used map[string]time.Time) error

	// CreateSession stores a web session by the hash of its cookie value.
	CreateSession(ctx context.Context, hash, userID string, expires time.Time) error
	// FindSessionUser returns the open account of a live session.
	// Errors: apperr.NotFound.
	FindSessionUser(ctx context.Context, hash string) (*User, error)
}
