package propertydb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/property"
)

var _ oauth.Grants = (*Property)(nil)

// SaveGrant gives the developer's grant to the client the scopes,
// creating it when they hold none: a live key that no one holds (its
// secret is thrown away; its tokens are the oauth package's), metered and
// counted as any key of the account.
func (s *Property) SaveGrant(ctx context.Context, tx *sql.Tx, developer string, c *oauth.Client, scopes []string) (_ string, err error) {
	defer store.Wrap(&err, "save OAuth grant of developer %s", developer)
	b, err := json.Marshal(scopes)
	if err != nil {
		return "", err
	}
	_, prefix, hash, err := auth.NewAPIKey(property.ModeLive)
	if err != nil {
		return "", err
	}
	// One statement, so that two approvals at once leave one grant (the
	// partial unique index of migration 00025 is the arbiter).
	var id string
	err = tx.QueryRowContext(ctx, `INSERT INTO api_keys (id, developer_id, name, key_prefix, key_hash, mode, scopes, created_at, oauth_client_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (developer_id, oauth_client_id) WHERE oauth_client_id IS NOT NULL AND revoked_at IS NULL
		DO UPDATE SET scopes = excluded.scopes, name = excluded.name
		RETURNING id`,
		store.NewID(), developer, c.Name, prefix, hash, property.ModeLive, string(b), s.clock.Now(), c.ID).Scan(&id)
	return id, err
}

// GrantScopes returns the scopes of a working grant. Errors:
// apperr.NotFound.
func (s *Property) GrantScopes(ctx context.Context, tx *sql.Tx, id string) (_ []string, err error) {
	defer store.Wrap(&err, "read OAuth grant %s", id)
	var b []byte
	err = tx.QueryRowContext(ctx, `SELECT scopes FROM api_keys WHERE id = $1 AND oauth_client_id IS NOT NULL AND revoked_at IS NULL`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "The grant was revoked.")
	} else if err != nil {
		return nil, err
	}
	return store.StringList(b), nil
}

// FindGrant returns a working grant.
func (s *Property) FindGrant(ctx context.Context, id string) (_ *property.Key, err error) {
	defer store.Wrap(&err, "find OAuth grant %s", id)
	var k property.Key
	err = scanPropertyKey(s.db.QueryRowContext(ctx, `SELECT `+propertyKeyColumns+` FROM api_keys k
		WHERE k.id = $1 AND k.oauth_client_id IS NOT NULL AND `+propertyWorkingKey, id, s.clock.Now()), &k)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.Unauthorized, "The access token's grant was revoked.")
	} else if err != nil {
		return nil, err
	}
	return &k, nil
}

// ConnectedApps lists the developer's working grants, newest first.
func (s *Property) ConnectedApps(ctx context.Context, developerID string) (_ []oauth.ConnectedApp, err error) {
	defer store.Wrap(&err, "list connected apps of developer %s", developerID)
	rows, err := s.db.QueryContext(ctx, `SELECT k.id, k.oauth_client_id, k.name, c.uri, k.scopes, k.created_at, k.last_used_at
		FROM api_keys k LEFT JOIN oauth_clients c ON c.id = k.oauth_client_id
		WHERE k.developer_id = $1 AND k.oauth_client_id IS NOT NULL AND k.revoked_at IS NULL
		ORDER BY k.created_at DESC, k.id DESC`, developerID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return oauth.ScanConnectedApps(rows)
}

// RevokeConnectedApp revokes a grant of the developer and deletes its
// tokens. Errors: apperr.NotFound.
func (s *Property) RevokeConnectedApp(ctx context.Context, developerID, id string) (at time.Time, err error) {
	defer store.Wrap(&err, "revoke connected app %s", id)
	at = s.clock.Now()
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = $1
			WHERE id = $2 AND developer_id = $3 AND oauth_client_id IS NOT NULL AND revoked_at IS NULL`, at, id, developerID)
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
