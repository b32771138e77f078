package guidedb

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.ClosureStore = (*Guide)(nil)

// CheckDeletion lists what keeps the account from being closed.
func (g *Guide) CheckDeletion(ctx context.Context, userID string) (_ *guide.DeletionCheck, err error) {
	defer store.Wrap(&err, "check deletion of user %s", userID)
	return checkDeletion(ctx, g.db, userID)
}

func checkDeletion(ctx context.Context, q store.Querier, userID string) (*guide.DeletionCheck, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings b LEFT JOIN experts e ON e.id = b.expert_id
		WHERE (b.tourist_id = $1 OR e.user_id = $1) AND b.status IN ('PENDING', 'CONFIRMED', 'IN_PROGRESS')`, userID).Scan(&n)
	if err != nil {
		return nil, err
	}
	c := &guide.DeletionCheck{CanDelete: n == 0, Blockers: []guide.DeletionBlocker{}}
	if n > 0 {
		c.Blockers = append(c.Blockers, guide.DeletionBlocker{
			Type:    "active_bookings",
			Count:   n,
			Message: strconv.Itoa(n) + " booking(s) are still to happen (pending, confirmed or in progress); cancel or complete them first.",
		})
	}
	return c, nil
}

// CloseAccount anonymises the account and removes every way back into it.
func (g *Guide) CloseAccount(ctx context.Context, userID string) (_ time.Time, err error) {
	defer store.Wrap(&err, "close account of user %s", userID)
	var at time.Time
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		at, err = g.closeAccount(ctx, tx, userID)
		return err
	})
	return at, err
}

// closeAccount runs inside tx, so that a confirmed pending action can
// close the account in the same transaction that confirms it.
func (g *Guide) closeAccount(ctx context.Context, tx *sql.Tx, userID string) (time.Time, error) {
	now := g.clock.Now()
	// Taking the user's row first serialises a closure against a booking
	// being made in the meantime.
	res, err := tx.ExecContext(ctx, `UPDATE users SET updated_at = $1 WHERE id = $2 AND deleted_at IS NULL`, now, userID)
	if err != nil {
		return now, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return now, apperr.Errorf(apperr.NotFound, "No such account.")
	}
	check, err := checkDeletion(ctx, tx, userID)
	if err != nil {
		return now, err
	}
	if err := check.Check(); err != nil {
		return now, err
	}
	var avatarKey sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT avatar_key FROM users WHERE id = $1`, userID).Scan(&avatarKey); err != nil {
		return now, err
	}
	if avatarKey.Valid {
		if err := g.jobs.Enqueue(ctx, tx, guide.JobBlobDelete, map[string]string{"key": avatarKey.String}, now); err != nil {
			return now, err
		}
	}
	// Applications to guide hold a profile and identity documents: they
	// go, an open one leaving the admins' queue, and the documents' files
	// are removed now rather than at the end of their retention.
	docs, err := tx.QueryContext(ctx, `SELECT d.blob_key FROM expert_application_documents d
		JOIN expert_applications a ON a.id = d.application_id WHERE a.user_id = $1`, userID)
	if err != nil {
		return now, err
	}
	var keys []string
	for docs.Next() {
		var key string
		if err := docs.Scan(&key); err != nil {
			docs.Close()
			return now, err
		}
		keys = append(keys, key)
	}
	if err := docs.Close(); err != nil {
		return now, err
	}
	if err := docs.Err(); err != nil {
		return now, err
	}
	for _, key := range keys {
		if err := g.jobs.Enqueue(ctx, tx, guide.JobBlobDelete, map[string]string{"key": key}, now); err != nil {
			return now, err
		}
	}
	only := []any{userID}
	with := []any{userID, now}
	for _, st := range []struct {
		query string
		args  []any
	}{
		// Personal fields go; the row stays so bookings, messages, reviews
		// and travelogues keep their author, shown as "Deleted User". The
		// handle becomes opaque and the e-mail is released.
		{`UPDATE users SET email = NULL, email_normalized = NULL, email_verified = FALSE, password_hash = NULL,
			name = NULL, nickname = NULL, image = NULL, avatar = NULL, avatar_key = NULL, bio = NULL, bio_zh = NULL,
			handle = 'deleted-' || id, deleted_at = $2, updated_at = $2 WHERE id = $1`, with},
		{`UPDATE experts SET bio = NULL, profile_image = NULL, cover_image = NULL, social_links = '{}',
			messaging_enabled = FALSE, ai_auto_reply = FALSE, ai_instructions = NULL, updated_at = $2 WHERE user_id = $1`, with},
		{`DELETE FROM expert_translations WHERE expert_id IN (SELECT id FROM experts WHERE user_id = $1)`, only},
		{`DELETE FROM expert_application_documents WHERE application_id IN (SELECT id FROM expert_applications WHERE user_id = $1)`, only},
		{`DELETE FROM expert_applications WHERE user_id = $1`, only},
		{`DELETE FROM identities WHERE user_id = $1`, only},
		{`DELETE FROM api_keys WHERE user_id = $1`, only},
		{`DELETE FROM push_tokens WHERE user_id = $1`, only},
		{`DELETE FROM sessions WHERE user_id = $1`, only},
		// Webhook endpoints (their URLs and secrets) go with their deliveries.
		{`DELETE FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE owner = $1)`, []any{guide.Audience(userID)}},
		{`DELETE FROM webhook_endpoints WHERE owner = $1`, []any{guide.Audience(userID)}},
	} {
		if _, err := tx.ExecContext(ctx, st.query, st.args...); err != nil {
			return now, err
		}
	}
	return now, nil
}
