package property

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
)

// Key scopes.
const (
	ScopePropertiesRead = "properties:read"
	ScopeBookingsRead   = "bookings:read"
	ScopeBookingsWrite  = "bookings:write"
	// ScopePropertiesWrite and ScopeCalendarWrite let a host manage its
	// own properties and room types, and their calendars.
	ScopePropertiesWrite = "properties:write"
	ScopeCalendarWrite   = "calendar:write"
	ScopeEventsRead      = "events:read"
)

// Scopes lists the scopes a key can hold; a key created without scopes
// holds them all.
var Scopes = []string{ScopePropertiesRead, ScopeBookingsRead, ScopeBookingsWrite, ScopePropertiesWrite, ScopeCalendarWrite, ScopeEventsRead}

// Key modes.
const (
	ModeTest = "test"
	ModeLive = "live"
)

// RotationGrace is how long a rotated key keeps working.
const RotationGrace = 24 * time.Hour

// DemoEmail is the sample developer account that DEMO_PASSWORD unlocks.
const DemoEmail = "developer@example.com"

// Developer is a developer account of the portal.
type Developer struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// NewDeveloper is an account to create.
type NewDeveloper struct {
	Email        string
	Name         string
	PasswordHash string
}

// Key is an API key as listed; the key itself and its hash are never
// shown after creation.
type Key struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	KeyPrefix  string     `json:"keyPrefix"`
	Mode       string     `json:"mode"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	// ExpiresAt is set on a rotated key: it stops working then.
	ExpiresAt *time.Time `json:"expiresAt"`
	// ReplacedBy is the id of the key that replaced this one by rotation.
	// A key is rotated once (CheckRotate).
	ReplacedBy  *string `json:"replacedBy"`
	DeveloperID string  `json:"-"`
	// OAuthClientID is set on a developer's grant to an application
	// connected through OAuth: a key of its own kind, listed and revoked
	// as a connected app, never as an API key.
	OAuthClientID string `json:"-"`
}

// HasScope reports whether the key holds scope.
func (k *Key) HasScope(scope string) bool { return slices.Contains(k.Scopes, scope) }

// Test reports whether the key is a test key.
func (k *Key) Test() bool { return k.Mode == ModeTest }

// UsageDay is what one key did on one day (UTC).
type UsageDay struct {
	Date        Date   `json:"date"`
	KeyID       string `json:"keyId"`
	KeyPrefix   string `json:"keyPrefix"`
	Requests    int    `json:"requests"`
	RateLimited int    `json:"rateLimited"`
}

// AccountStore keeps developer accounts, their keys and key usage.
type AccountStore interface {
	// CreateDeveloper creates an account. Errors: apperr.EmailTaken.
	CreateDeveloper(ctx context.Context, nd NewDeveloper) (*Developer, error)
	// FindDeveloperByEmail returns the account with the e-mail (any case)
	// and its password hash ("" when it has none). Errors: apperr.NotFound.
	FindDeveloperByEmail(ctx context.Context, email string) (*Developer, string, error)
	// FindDeveloperByID returns an account. Errors: apperr.NotFound.
	FindDeveloperByID(ctx context.Context, id string) (*Developer, error)

	// CreateKey stores a key of k.DeveloperID by its hash, filling in its
	// id and creation time.
	CreateKey(ctx context.Context, k *Key, hash string) error
	// FindKeys lists the developer's working keys (not revoked, not
	// expired), newest first.
	FindKeys(ctx context.Context, developerID string) ([]Key, error)
	// RevokeKey stops a working key of the developer at once.
	// Errors: apperr.NotFound.
	RevokeKey(ctx context.Context, developerID, id string) (time.Time, error)
	// RotateKey replaces a working key with a new one of the same name,
	// mode and scopes, stored by newHash; the old key keeps working for
	// grace. It returns the new key. Errors: apperr.NotFound,
	// apperr.InvalidState (the key was already rotated).
	RotateKey(ctx context.Context, developerID, id, newPrefix, newHash string, grace time.Duration) (*Key, error)
	// FindKeyByHash returns a working key. Errors: apperr.Unauthorized.
	FindKeyByHash(ctx context.Context, hash string) (*Key, error)
	// FindGrant returns a working OAuth grant (a key of that kind).
	// Errors: apperr.Unauthorized.
	FindGrant(ctx context.Context, id string) (*Key, error)
	// ConnectedApps lists the developer's working OAuth grants, newest
	// first.
	ConnectedApps(ctx context.Context, developerID string) ([]oauth.ConnectedApp, error)
	// RevokeConnectedApp revokes an OAuth grant of the developer and its
	// tokens; id is a UUID in either case. Errors: apperr.NotFound.
	RevokeConnectedApp(ctx context.Context, developerID, id string) (*oauth.RevokedApp, error)

	// AddUsage adds counts recorded in memory to the daily usage table and
	// moves the keys' last use forward.
	AddUsage(ctx context.Context, counts map[UsageKey]UsageCount) error
	// FindUsage returns the developer's usage per day and key for the days
	// from from to to, both included, oldest first, with the counts of
	// pending (those not yet flushed) added.
	FindUsage(ctx context.Context, developerID string, from, to Date, pending map[UsageKey]UsageCount) ([]UsageDay, error)
}

// UsageKey is a key on a day (UTC).
type UsageKey struct {
	KeyID string
	Date  Date
}

// UsageCount is what a key did on a day.
type UsageCount struct {
	Requests    int
	RateLimited int
	LastUsed    time.Time
}

// Usage counts requests and rate-limited requests per key and day in
// memory, so that requests do not write to the database; a periodic job
// flushes it with AccountStore.AddUsage.
type Usage struct {
	mu     sync.Mutex
	counts map[UsageKey]UsageCount
}

// NewUsage returns an empty recorder.
func NewUsage() *Usage { return &Usage{counts: make(map[UsageKey]UsageCount)} }

// Record counts one request of the key at t; limited tells that it was
// refused by the rate limit.
func (u *Usage) Record(keyID string, t time.Time, limited bool) {
	k := UsageKey{KeyID: keyID, Date: DateOf(t.UTC())}
	u.mu.Lock()
	c := u.counts[k]
	c.Requests++
	if limited {
		c.RateLimited++
	}
	if t.After(c.LastUsed) {
		c.LastUsed = t
	}
	u.counts[k] = c
	u.mu.Unlock()
}

// Take returns the counts and forgets them.
func (u *Usage) Take() map[UsageKey]UsageCount {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := u.counts
	u.counts = make(map[UsageKey]UsageCount, len(out))
	return out
}

// Restore adds counts back, after a flush that failed.
func (u *Usage) Restore(counts map[UsageKey]UsageCount) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for k, c := range counts {
		have := u.counts[k]
		have.Requests += c.Requests
		have.RateLimited += c.RateLimited
		if c.LastUsed.After(have.LastUsed) {
			have.LastUsed = c.LastUsed
		}
		u.counts[k] = have
	}
}

// Pending returns a copy of the counts not yet flushed.
func (u *Usage) Pending() map[UsageKey]UsageCount {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make(map[UsageKey]UsageCount, len(u.counts))
	for k, c := range u.counts {
		out[k] = c
	}
	return out
}

// CheckRotate tells whether a working key may be rotated: one not rotated
// already, whose replacement is named in details.replacedBy. Errors:
// apperr.InvalidState.
func (k *Key) CheckRotate() error {
	if k.ReplacedBy == nil {
		return nil
	}
	e := apperr.Errorf(apperr.InvalidState, "This key was already rotated; rotate its replacement %s instead.", *k.ReplacedBy)
	e.Details = map[string]any{"replacedBy": *k.ReplacedBy}
	return e
}
