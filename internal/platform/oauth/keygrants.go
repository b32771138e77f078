package oauth

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// KeyGrants keeps a product's grants in its api_keys table, and lists and
// revokes them as their owner's connected apps. A grant is a live key
// that no one holds (its secret is thrown away; its tokens are this
// package's), marked with its client in oauth_client_id; a partial unique
// index of the product's migrations on (owner, oauth_client_id), for keys
// not revoked, keeps one per owner and client.
type KeyGrants struct {
	db    *store.DB
	clock clock.Clock
	set   []any // the values of KeyTable.Set

	// The statements, with the product's names in them.
	save, scopes, list, revoke string
}

var _ Grants = (*KeyGrants)(nil)

// KeyTable is what a product's api_keys table holds beyond what every
// product's does.
type KeyTable struct {
	// Owner is the column of the key's owner, whose id is Person.ID.
	Owner string
	// Set are the columns a new grant sets beyond those of every key, with
	// their values: how the product meters it, who confirms its actions.
	Set []Column
	// Open is an SQL condition on the key k that holds while its owner's
	// account is open, so that a closed account's grants stop; empty when
	// the product keeps no closed accounts.
	Open string
}

// Column is a column of a new grant and its value.
type Column struct {
	Name  string
	Value any
}

// NewKeyGrants returns the grants of the product whose api_keys table t
// describes, in db. t's names and condition are the product's constants,
// written into the statements; every value is bound.
func NewKeyGrants(db *store.DB, clk clock.Clock, t KeyTable) *KeyGrants {
	cols := []string{"id", t.Owner, "name", "key_prefix", "key_hash", "mode", "scopes", "created_at", "oauth_client_id"}
	set := make([]any, len(t.Set))
	for i, c := range t.Set {
		cols, set[i] = append(cols, c.Name), c.Value
	}
	marks := make([]string, len(cols))
	for i := range marks {
		marks[i] = "$" + strconv.Itoa(i+1)
	}
	open := ""
	if t.Open != "" {
		open = " AND " + t.Open
	}
	return &KeyGrants{db: db, clock: clk, set: set,
		// One statement, so that two approvals at once leave one grant
		// (the partial unique index is the arbiter).
		save: `INSERT INTO api_keys (` + strings.Join(cols, ", ") + `) VALUES (` + strings.Join(marks, ", ") + `)
			ON CONFLICT (` + t.Owner + `, oauth_client_id) WHERE oauth_client_id IS NOT NULL AND revoked_at IS NULL
			DO UPDATE SET scopes = excluded.scopes, name = excluded.name
			RETURNING id`,
		scopes: `SELECT k.scopes FROM api_keys k WHERE k.id = $1 AND k.oauth_client_id IS NOT NULL AND k.revoked_at IS NULL` + open,
		list: `SELECT k.id, k.oauth_client_id, k.name, c.uri, k.scopes, k.created_at, k.last_used_at
			FROM api_keys k LEFT JOIN oauth_clients c ON c.id = k.oauth_client_id
			WHERE k.` + t.Owner + ` = $1 AND k.oauth_client_id IS NOT NULL AND k.revoked_at IS NULL
			ORDER BY k.created_at DESC, k.id DESC`,
		revoke: `UPDATE api_keys SET revoked_at = $1
			WHERE id = $2 AND ` + t.Owner + ` = $3 AND oauth_client_id IS NOT NULL AND revoked_at IS NULL`,
	}
}

// SaveGrant gives the owner's grant to the client the scopes, in tx,
// creating it when the owner holds none, and returns its id.
func (g *KeyGrants) SaveGrant(ctx context.Context, tx *sql.Tx, owner string, c *Client, scopes []string) (_ string, err error) {
	defer store.Wrap(&err, "save OAuth grant of %s", owner)
	b, err := json.Marshal(scopes)
	if err != nil {
		return "", err
	}
	_, prefix, hash, err := auth.NewAPIKey("live")
	if err != nil {
		return "", err
	}
	args := append([]any{store.NewID(), owner, c.Name, prefix, hash, "live", string(b), g.clock.Now(), c.ID}, g.set...)
	var id string
	err = tx.QueryRowContext(ctx, g.save, args...).Scan(&id)
	return id, err
}

// GrantScopes returns the scopes of a grant that still stands (not
// revoked, its owner's account open). Errors: apperr.NotFound.
func (g *KeyGrants) GrantScopes(ctx context.Context, tx *sql.Tx, id string) (_ []string, err error) {
	defer store.Wrap(&err, "read OAuth grant %s", id)
	var b []byte
	err = tx.QueryRowContext(ctx, g.scopes, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "The grant was revoked.")
	} else if err != nil {
		return nil, err
	}
	return store.StringList(b), nil
}

// ConnectedApps lists the owner's grants that stand, newest first.
func (g *KeyGrants) ConnectedApps(ctx context.Context, owner string) (_ []ConnectedApp, err error) {
	defer store.Wrap(&err, "list connected apps of %s", owner)
	rows, err := g.db.QueryContext(ctx, g.list, owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	apps := []ConnectedApp{}
	for rows.Next() {
		var a ConnectedApp
		var uri sql.NullString
		var scopes []byte
		var used sql.NullTime
		if err := rows.Scan(&a.ID, &a.Client.ID, &a.Client.Name, &uri, &scopes, &a.CreatedAt, &used); err != nil {
			return nil, err
		}
		if uri.Valid && uri.String != "" {
			a.Client.URI = &uri.String
		}
		a.Scopes, a.LastUsedAt, a.CreatedAt = store.StringList(scopes), store.NullTime(used), a.CreatedAt.UTC()
		apps = append(apps, a)
	}
	return apps, rows.Err()
}

// RevokedApp is the answer to a connected app's revocation.
type RevokedApp struct {
	ID        string    `json:"id"`
	Revoked   bool      `json:"revoked"`
	RevokedAt time.Time `json:"revokedAt"`
}

// RevokeConnectedApp revokes a grant of the owner and deletes its tokens,
// so that neither an access token nor a refresh token of it works again.
// id is a UUID in upper or lower case (the answer names it in lower
// case); anything else names no grant. Errors: apperr.NotFound.
func (g *KeyGrants) RevokeConnectedApp(ctx context.Context, owner, id string) (_ *RevokedApp, err error) {
	u, perr := uuid.Parse(id)
	if perr != nil || len(id) != 36 {
		return nil, apperr.Errorf(apperr.NotFound, "No connected app with id %q.", id)
	}
	out := &RevokedApp{ID: u.String(), Revoked: true, RevokedAt: g.clock.Now()}
	defer store.Wrap(&err, "revoke connected app %s", out.ID)
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, g.revoke, out.RevokedAt, out.ID, owner)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return apperr.Errorf(apperr.NotFound, "No connected app with id %q.", out.ID)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE grant_id = $1`, out.ID); err != nil {
			return fmt.Errorf("forget tokens: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
