package idempotency

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Keys keeps the Idempotency-Key records of one database (each product's
// database has its own idempotency_keys table, in its migrations).
type Keys struct {
	db      *store.DB
	clock   clock.Clock
	lockTTL time.Duration
}

var _ Store = (*Keys)(nil)

// NewKeys returns the key records of db; a claim older than lockTTL is
// taken to be abandoned (zero: DefaultLockTTL).
func NewKeys(db *store.DB, clk clock.Clock, lockTTL time.Duration) *Keys {
	if lockTTL <= 0 {
		lockTTL = DefaultLockTTL
	}
	return &Keys{db: db, clock: clk, lockTTL: lockTTL}
}

// Begin claims a key. The claim is a single INSERT that only one request
// can make: a concurrent request with the same key finds the row and is
// told the first is in progress. Errors: apperr.IdempotencyKeyReused,
// apperr.IdempotencyInProgress.
func (s *Keys) Begin(ctx context.Context, account, key, hash string) (string, *Response, error) {
	token := rand.Text()
	for range 4 {
		now := s.clock.Now()
		res, err := s.db.ExecContext(ctx, `INSERT INTO idempotency_keys (account, key, request_hash, status, token, created_at, locked_at)
			VALUES ($1, $2, $3, 'in_progress', $4, $5, $5) ON CONFLICT (account, key) DO NOTHING`, account, key, hash, token, now)
		if err != nil {
			return "", nil, fmt.Errorf("claim idempotency key: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return "", nil, fmt.Errorf("claim idempotency key: %w", err)
		} else if n == 1 {
			return token, nil, nil
		}
		var storedHash, status string
		var respStatus sql.NullInt64
		var body []byte
		var created, locked time.Time
		err = s.db.QueryRowContext(ctx, `SELECT request_hash, status, response_status, response_body, created_at, locked_at
			FROM idempotency_keys WHERE account = $1 AND key = $2`, account, key).Scan(&storedHash, &status, &respStatus, &body, &created, &locked)
		if errors.Is(err, sql.ErrNoRows) {
			continue // forgotten meanwhile: claim it again
		} else if err != nil {
			return "", nil, fmt.Errorf("read idempotency key: %w", err)
		}
		if !created.After(now.Add(-TTL)) {
			// Remembered too long: forget it and claim it anew.
			if _, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE account = $1 AND key = $2 AND created_at <= $3`,
				account, key, now.Add(-TTL)); err != nil {
				return "", nil, fmt.Errorf("forget expired idempotency key: %w", err)
			}
			continue
		}
		if status == "in_progress" && locked.After(now.Add(-s.lockTTL)) {
			e := apperr.Errorf(apperr.IdempotencyInProgress, "A request with this Idempotency-Key is still in progress; retry in a moment.")
			e.RetryAfter = 1
			return "", nil, e
		}
		if storedHash != hash {
			return "", nil, apperr.Errorf(apperr.IdempotencyKeyReused,
				"This Idempotency-Key was already used for a different request; use a new key for a new request.")
		}
		if status == "done" {
			return "", &Response{Status: int(respStatus.Int64), Body: body}, nil
		}
		// Abandoned by a server that stopped mid-request, before its effect
		// committed (the effect commits with the answer): take it over. The
		// new token makes a late commit of the first request roll back.
		res, err = s.db.ExecContext(ctx, `UPDATE idempotency_keys SET token = $1, locked_at = $2
			WHERE account = $3 AND key = $4 AND status = 'in_progress' AND locked_at <= $5`,
			token, now, account, key, now.Add(-s.lockTTL))
		if err != nil {
			return "", nil, fmt.Errorf("take over idempotency key: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return "", nil, fmt.Errorf("take over idempotency key: %w", err)
		} else if n == 1 {
			return token, nil, nil
		}
	}
	return "", nil, fmt.Errorf("idempotency key %q of %s: could not be claimed", key, account)
}

// Hold renews the claim's lease every third of the lock TTL until
// release, so that a request that runs long keeps its key while one whose
// process died gives it up within the TTL. A failed renewal is retried
// at the next tick: the claim lapses only if renewals keep failing for a
// whole TTL, and then the request's commit rolls back (its token is gone)
// rather than apply twice.
func (s *Keys) Hold(ctx context.Context, c *Claim) (release func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The cadence is wall time; the lease's timestamps come from the
		// clock, as the takeover's comparison does.
		t := time.NewTicker(s.lockTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.db.ExecContext(ctx, `UPDATE idempotency_keys SET locked_at = $1
					WHERE account = $2 AND key = $3 AND token = $4 AND status = 'in_progress'`, s.clock.Now(), c.Account, c.Key, c.Token)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// Finish records the answer of a request whose claim is still held.
func (s *Keys) Finish(ctx context.Context, c *Claim, status int, body []byte) error {
	if _, err := finishClaim(ctx, s.db, c, status, body); err != nil {
		return fmt.Errorf("record idempotent response: %w", err)
	}
	return nil
}

// Abandon forgets a claim still in progress.
func (s *Keys) Abandon(ctx context.Context, c *Claim) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE account = $1 AND key = $2 AND token = $3 AND status = 'in_progress'`,
		c.Account, c.Key, c.Token)
	if err != nil {
		return fmt.Errorf("abandon idempotency key: %w", err)
	}
	return nil
}

// Purge forgets keys older than TTL.
func (s *Keys) Purge(ctx context.Context) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_at <= $1`, s.clock.Now().Add(-TTL))
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	return int(n), nil
}

// RecordResult commits the answer of the request in ctx, if it carries an
// Idempotency-Key claim, in tx: the transaction of the effect, which the
// product's store passes with the effect's result just before it commits
// (so that the effect, its answer and its change event commit together).
// When a retry
// has taken the claim over meanwhile, it fails with
// apperr.IdempotencyInProgress and the effect rolls back, so that only the
// retry's effect remains.
func RecordResult(ctx context.Context, tx *sql.Tx, result any) error {
	c := FromContext(ctx)
	if c == nil {
		return nil
	}
	body, err := c.Render(result)
	if err != nil {
		return fmt.Errorf("render idempotent response: %w", err)
	}
	ok, err := finishClaim(ctx, tx, c, c.Status, body)
	if err != nil {
		return fmt.Errorf("record idempotent response: %w", err)
	}
	if !ok {
		e := apperr.Errorf(apperr.IdempotencyInProgress, "A retry with this Idempotency-Key took the request over; its answer stands.")
		e.RetryAfter = 1
		return e
	}
	return nil
}

func finishClaim(ctx context.Context, q store.Querier, c *Claim, status int, body []byte) (bool, error) {
	res, err := q.ExecContext(ctx, `UPDATE idempotency_keys SET status = 'done', response_status = $1, response_body = $2
		WHERE account = $3 AND key = $4 AND token = $5 AND status = 'in_progress'`, status, body, c.Account, c.Key, c.Token)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
