package guidedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ oauth.Grants = (*Guide)(nil)

// grantRateLimit is a grant's budget, as an API key's default.
const grantRateLimit = 300

// SaveGrant gives the person's grant to the client the scopes, creating
// it when they hold none. A grant is a live key that no one holds (its
// secret is thrown away; its tokens are the oauth package's) whose
// pending actions are the person's alone to confirm.
func (g *Guide) SaveGrant(ctx context.Context, tx *sql.Tx, person string, c *oauth.Client, scopes []string) (_ string, err error) {
	defer store.Wrap(&err, "save OAuth grant of user %s", person)
	b, err := json.Marshal(scopes)
	if err != nil {
		return "", err
	}
	_, prefix, hash, err := auth.NewAPIKey("live")
	if err != nil {
		return "", err
	}
	// One statement, so that two approvals at once leave one grant (the
	// partial unique index of migration 00026 is the arbiter).
	var id string
	err = tx.QueryRowContext(ctx, `INSERT INTO api_keys (id, user_id, name, key_prefix, key_hash, mode, scopes, rate_limit, created_at, confirmation, oauth_client_id)
		VALUES ($1, $2, $3, $4, $5, 'live', $6, $7, $8, $9, $10)
		ON CONFLICT (user_id, oauth_client_id) WHERE oauth_client_id IS NOT NULL AND revoked_at IS NULL
		DO UPDATE SET scopes = excluded.scopes, name = excluded.name
		RETURNING id`,
		store.NewID(), person, c.Name, prefix, hash, string(b), grantRateLimit, g.clock.Now(), guide.ConfirmPerson, c.ID).Scan(&id)
	return id, err
}

// GrantScopes returns the scopes of a grant that stands. Errors:
// apperr.NotFound.
func (g *Guide) GrantScopes(ctx context.Context, tx *sql.Tx, id string) (_ []string, err error) {
	defer store.Wrap(&err, "read OAuth grant %s", id)
	var b []byte
	err = tx.QueryRowContext(ctx, `SELECT k.scopes FROM api_keys k JOIN users u ON u.id = k.user_id
		WHERE k.id = $1 AND k.oauth_client_id IS NOT NULL AND k.revoked_at IS NULL AND u.deleted_at IS NULL`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "The grant was revoked.")
	} else if err != nil {
		return nil, err
	}
	return store.StringList(b), nil
}

// ConnectedApps lists the user's active grants, newest first.
func (g *Guide) ConnectedApps(ctx context.Context, userID string) (_ []oauth.ConnectedApp, err error) {
	defer store.Wrap(&err, "list connected apps of user %s", userID)
	rows, err := g.db.QueryContext(ctx, `SELECT k.id, k.oauth_client_id, k.name, c.uri, k.scopes, k.created_at, k.last_used_at
		FROM api_keys k LEFT JOIN oauth_clients c ON c.id = k.oauth_client_id
		WHERE k.user_id = $1 AND k.oauth_client_id IS NOT NULL AND k.revoked_at IS NULL
		ORDER BY k.created_at DESC, k.id DESC`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return oauth.ScanConnectedApps(rows)
}

// RevokeConnectedApp revokes a grant of the user and deletes its tokens,
// so that neither an access token nor a refresh token of it works again.
// Errors: apperr.NotFound.
func (g *Guide) RevokeConnectedApp(ctx context.Context, userID, id string) (at time.Time, err error) {
	defer store.Wrap(&err, "revoke connected app %s", id)
	at = g.clock.Now()
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = $1
			WHERE id = $2 AND user_id = $3 AND oauth_client_id IS NOT NULL AND revoked_at IS NULL`, at, id, userID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return apperr.Errorf(apperr.NotFound, "No connected app with id %q.", id)
		}
		if err := oauth.ForgetGrant(ctx, tx, id); err != nil {
			return fmt.Errorf("forget tokens: %w", err)
		}
		return nil
	})
	return at, err
}
