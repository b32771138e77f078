package guidedb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.AccountStore = (*Guide)(nil)

const userColumns = `u.id, u.handle, u.email, u.name, u.image, u.nickname, u.avatar, u.role, u.locale, u.created_at, u.deleted_at`

func scanUser(s interface{ Scan(...any) error }, u *guide.User, extra ...any) error {
	var email, name, image, nickname, avatar sql.NullString
	var deleted sql.NullTime
	dest := append([]any{&u.ID, &u.Handle, &email, &name, &image, &nickname, &avatar, &u.Role, &u.Locale, &u.CreatedAt, &deleted}, extra...)
	if err := s.Scan(dest...); err != nil {
		return err
	}
	u.Email, u.Name, u.Image, u.Nickname, u.Avatar = store.NullString(email), store.NullString(name), store.NullString(image), store.NullString(nickname), store.NullString(avatar)
	u.CreatedAt, u.DeletedAt = u.CreatedAt.UTC(), store.NullTime(deleted)
	return nil
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// newHandle derives a public handle from a name or e-mail, with a random
// suffix so that it is unique without a lookup.
func newHandle(name *string, email string) string {
	base := strings.Split(email, "@")[0]
	if name != nil && *name != "" {
		base = *name
	}
	base = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(base), "-"), "-")
	if len(base) > 24 {
		base = strings.Trim(base[:24], "-")
	}
	if base == "" {
		base = "user"
	}
	var b [3]byte
	rand.Read(b[:])
	return base + "-" + hex.EncodeToString(b[:])
}

// CreateUser creates an account; an EXPERT gets an unverified expert
// profile. Errors: apperr.EmailTaken.
func (g *Guide) CreateUser(ctx context.Context, nu guide.NewUser) (_ *guide.User, err error) {
	defer store.Wrap(&err, "create user")
	var u *guide.User
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = g.createUser(ctx, tx, nu)
		return err
	})
	return u, err
}

func (g *Guide) createUser(ctx context.Context, tx *sql.Tx, nu guide.NewUser) (*guide.User, error) {
	now := g.clock.Now()
	email := strings.TrimSpace(nu.Email)
	u := &guide.User{ID: store.NewID(), Handle: newHandle(nu.Name, email), Email: &email, Name: nu.Name, Role: nu.Role, Locale: guide.DefaultLocale, CreatedAt: now}
	var hash any
	if nu.PasswordHash != "" {
		hash = nu.PasswordHash
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO users (id, handle, email, email_normalized, email_verified, password_hash, name, role, locale, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
		u.ID, u.Handle, email, strings.ToLower(email), nu.EmailVerified, hash, nu.Name, nu.Role, u.Locale, now)
	if store.IsUniqueViolation(err) {
		return nil, apperr.Errorf(apperr.EmailTaken, "An account with this e-mail address already exists.")
	} else if err != nil {
		return nil, err
	}
	if nu.Role == guide.RoleExpert {
		// Unverified until the marketplace verifies the guide; currency and
		// time zone are placeholders the expert sets with the profile.
		if _, err := tx.ExecContext(ctx, `INSERT INTO experts (id, user_id, currency, timezone, created_at, updated_at)
			VALUES ($1, $2, 'USD', 'UTC', $3, $3)`, store.NewID(), u.ID, now); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// FindUserByEmail returns the open account with the e-mail and its password
// hash. Errors: apperr.NotFound.
func (g *Guide) FindUserByEmail(ctx context.Context, email string) (_ *guide.User, _ string, err error) {
	defer store.Wrap(&err, "find user by e-mail")
	var u guide.User
	var hash sql.NullString
	err = scanUser(g.db.QueryRowContext(ctx, `SELECT `+userColumns+`, u.password_hash FROM users u
		WHERE u.email_normalized = $1 AND u.deleted_at IS NULL`, strings.ToLower(strings.TrimSpace(email))), &u, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", apperr.Errorf(apperr.NotFound, "No account with this e-mail.")
	}
	return &u, hash.String, err
}

// FindUserByID returns an open account. Errors: apperr.NotFound.
func (g *Guide) FindUserByID(ctx context.Context, id string) (_ *guide.User, err error) {
	defer store.Wrap(&err, "find user %s", id)
	var u guide.User
	err = scanUser(g.db.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = $1 AND u.deleted_at IS NULL`, id), &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No such account.")
	}
	return &u, err
}

// SignInWithIdentity finds or creates the account of an external identity.
// Concurrent first sign-ins of one identity end with one account: the
// loser of the race on the identity's primary key reads the winner's link.
func (g *Guide) SignInWithIdentity(ctx context.Context, id guide.Identity, emailVerified bool, name *string) (_ *guide.User, _ bool, err error) {
	defer store.Wrap(&err, "sign in with %s identity", id.Provider)
	for attempt := 0; ; attempt++ {
		u, created, err := g.signInWithIdentity(ctx, id, emailVerified, name)
		if store.IsUniqueViolation(err) && attempt == 0 {
			continue
		}
		return u, created, err
	}
}

func (g *Guide) signInWithIdentity(ctx context.Context, id guide.Identity, emailVerified bool, name *string) (*guide.User, bool, error) {
	var u guide.User
	err := scanUser(g.db.QueryRowContext(ctx, `SELECT `+userColumns+` FROM identities i JOIN users u ON u.id = i.user_id
		WHERE i.provider = $1 AND i.subject = $2 AND u.deleted_at IS NULL`, id.Provider, id.Subject), &u)
	if err == nil {
		return &u, false, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, false, err
	}
	var out *guide.User
	created := false
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		now := g.clock.Now()
		var existing guide.User
		var err error
		if emailVerified && id.Email != "" {
			err = scanUser(tx.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users u
				WHERE u.email_normalized = $1 AND u.deleted_at IS NULL`, strings.ToLower(id.Email)), &existing)
		} else {
			err = sql.ErrNoRows
		}
		switch {
		case err == nil:
			out = &existing
		case errors.Is(err, sql.ErrNoRows):
			email := id.Email
			if email == "" || !emailVerified {
				// Unverified addresses are not trusted as account e-mails:
				// the account gets a private placeholder instead.
				email = id.Provider + "." + id.Subject + "@users.invalid"
			}
			out, err = g.createUser(ctx, tx, guide.NewUser{Email: email, EmailVerified: emailVerified, Name: name, Role: guide.RoleTourist})
			if err != nil {
				return err
			}
			created = true
		default:
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO identities (provider, subject, user_id, email, created_at) VALUES ($1, $2, $3, $4, $5)`,
			id.Provider, id.Subject, out.ID, nullIfEmpty(id.Email), now)
		return err
	})
	return out, created, err
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CreateAPIKey stores a key by its hash; a key without a Confirmation
// gets the specification's default, guide.ConfirmActor.
func (g *Guide) CreateAPIKey(ctx context.Context, k *guide.APIKey, hash string) (err error) {
	defer store.Wrap(&err, "create API key of user %s", k.UserID)
	k.ID, k.CreatedAt = store.NewID(), g.clock.Now()
	if k.Confirmation == "" {
		k.Confirmation = guide.ConfirmActor
	}
	scopes, err := json.Marshal(k.Scopes)
	if err != nil {
		return err
	}
	return g.db.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, user_id, name, key_prefix, key_hash, mode, scopes, rate_limit, expires_at, created_at, confirmation)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			k.ID, k.UserID, k.Name, k.KeyPrefix, hash, k.Mode, string(scopes), k.RateLimit, k.ExpiresAt, k.CreatedAt, k.Confirmation)
		if err != nil {
			return fmt.Errorf("insert api key: %w", err)
		}
		return idempotency.RecordResult(ctx, tx, k)
	})
}

// #nosec G101 -- column names, not a credential.
const apiKeyColumns = `k.id, k.user_id, k.name, k.key_prefix, k.mode, k.scopes, k.rate_limit, k.last_used_at, k.expires_at, k.created_at, k.confirmation, COALESCE(k.oauth_client_id, '')`

func scanAPIKey(s interface{ Scan(...any) error }, k *guide.APIKey, extra ...any) error {
	var scopes []byte
	var used, expires sql.NullTime
	dest := append([]any{&k.ID, &k.UserID, &k.Name, &k.KeyPrefix, &k.Mode, &scopes, &k.RateLimit, &used, &expires, &k.CreatedAt, &k.Confirmation, &k.OAuthClientID}, extra...)
	if err := s.Scan(dest...); err != nil {
		return err
	}
	k.Scopes, k.LastUsedAt, k.ExpiresAt, k.CreatedAt = store.StringList(scopes), store.NullTime(used), store.NullTime(expires), k.CreatedAt.UTC()
	return nil
}

// FindAPIKeys lists the user's active keys, newest first.
func (g *Guide) FindAPIKeys(ctx context.Context, userID string) (_ []guide.APIKey, err error) {
	defer store.Wrap(&err, "find API keys of user %s", userID)
	rows, err := g.db.QueryContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys k
		WHERE k.user_id = $1 AND k.oauth_client_id IS NULL AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)
		ORDER BY k.created_at DESC, k.id DESC`, userID, g.clock.Now())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keys := []guide.APIKey{}
	for rows.Next() {
		var k guide.APIKey
		if err := scanAPIKey(rows, &k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// RevokeAPIKey revokes an active key of the user. Errors: apperr.NotFound.
func (g *Guide) RevokeAPIKey(ctx context.Context, userID, id string) (_ time.Time, err error) {
	defer store.Wrap(&err, "revoke API key %s", id)
	now := g.clock.Now()
	res, err := g.db.ExecContext(ctx, `UPDATE api_keys SET revoked_at = $1
		WHERE id = $2 AND user_id = $3 AND oauth_client_id IS NULL AND revoked_at IS NULL`, now, id, userID)
	if err != nil {
		return time.Time{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return time.Time{}, apperr.Errorf(apperr.NotFound, "No active API key with id %q.", id)
	}
	return now, nil
}

// FindAPIKeyByHash returns an active key and its open account.
// Errors: apperr.Unauthorized.
func (g *Guide) FindAPIKeyByHash(ctx context.Context, hash string) (_ *guide.APIKey, _ *guide.User, err error) {
	defer store.Wrap(&err, "find API key by hash")
	return g.findKey(ctx, `k.key_hash = $1 AND k.oauth_client_id IS NULL`, hash)
}

// FindGrant returns an active OAuth grant and its open account.
// Errors: apperr.Unauthorized.
func (g *Guide) FindGrant(ctx context.Context, id string) (_ *guide.APIKey, _ *guide.User, err error) {
	defer store.Wrap(&err, "find OAuth grant %s", id)
	return g.findKey(ctx, `k.id = $1 AND k.oauth_client_id IS NOT NULL`, id)
}

// findKey returns the active key that cond (on k, with $1 its argument)
// selects, and its open account.
func (g *Guide) findKey(ctx context.Context, cond, arg string) (*guide.APIKey, *guide.User, error) {
	var k guide.APIKey
	var u guide.User
	var email, name, image, nickname, avatar sql.NullString
	var deleted sql.NullTime
	// #nosec G202 -- cond is one of the two constant conditions above.
	err := scanAPIKey(g.db.QueryRowContext(ctx, `SELECT `+apiKeyColumns+`, `+userColumns+`
		FROM api_keys k JOIN users u ON u.id = k.user_id
		WHERE `+cond+` AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2) AND u.deleted_at IS NULL`,
		arg, g.clock.Now()), &k, &u.ID, &u.Handle, &email, &name, &image, &nickname, &avatar, &u.Role, &u.Locale, &u.CreatedAt, &deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, apperr.Errorf(apperr.Unauthorized, "The API key or access token is not valid.")
	} else if err != nil {
		return nil, nil, err
	}
	u.Email, u.Name, u.Image, u.Nickname, u.Avatar = store.NullString(email), store.NullString(name), store.NullString(image), store.NullString(nickname), store.NullString(avatar)
	u.CreatedAt = u.CreatedAt.UTC()
	return &k, &u, nil
}

// TouchAPIKeys records when keys were last used, never moving a time back.
func (g *Guide) TouchAPIKeys(ctx context.Context, used map[string]time.Time) (err error) {
	defer store.Wrap(&err, "record use of %d API keys", len(used))
	return g.db.InTx(ctx, func(tx *sql.Tx) error {
		for id, at := range used {
			if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $1
				WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)`, at, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// CreateSession stores a web session by the hash of its cookie value.
func (g *Guide) CreateSession(ctx context.Context, hash, userID string, expires time.Time) (err error) {
	defer store.Wrap(&err, "create session of user %s", userID)
	_, err = g.db.ExecContext(ctx, `INSERT INTO sessions (id_hash, user_id, expires_at, created_at) VALUES ($1, $2, $3, $4)`,
		hash, userID, expires, g.clock.Now())
	return err
}

// FindSessionUser returns the open account of a live session.
// Errors: apperr.NotFound.
func (g *Guide) FindSessionUser(ctx context.Context, hash string) (_ *guide.User, err error) {
	defer store.Wrap(&err, "find session user")
	var u guide.User
	err = scanUser(g.db.QueryRowContext(ctx, `SELECT `+userColumns+` FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.id_hash = $1 AND s.expires_at > $2 AND u.deleted_at IS NULL`, hash, g.clock.Now()), &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No live session.")
	}
	return &u, err
}

// Setting returns the value of a setting, storing value first if the
// setting is absent, so that concurrent starts agree on one value.
func (g *Guide) Setting(ctx context.Context, key, value string) (_ string, err error) {
	defer store.Wrap(&err, "setting %s", key)
	if _, err := g.db.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, key, value); err != nil {
		return "", err
	}
	var v string
	err = g.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = $1`, key).Scan(&v)
	return v, err
}
