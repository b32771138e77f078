package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/wayfarer-asia/platform/internal/apperr"
	"github.com/wayfarer-asia/platform/internal/property"
)

// BeginIdempotent claims an Idempotency-Key of an account. The claim is a
// single INSERT that only one request can make: a concurrent request with
// the same key finds the row and is told the first is in progress.
func (s *Property) BeginIdempotent(ctx context.Context, account, key, hash string) (*property.StoredResponse, error) {
	for range 4 {
		now := s.clock.Now()
		res, err := s.db.ExecContext(ctx, `INSERT INTO idempotency_keys (account, key, request_hash, status, created_at)
			VALUES ($1, $2, $3, 'in_progress', $4) ON CONFLICT (account, key) DO NOTHING`, account, key, hash, now)
		if err != nil {
			return nil, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, err
		} else if n == 1 {
			return nil, nil
		}
		var storedHash, status string
		var respStatus sql.NullInt64
		var body []byte
		var created time.Time
		err = s.db.QueryRowContext(ctx, `SELECT request_hash, status, response_status, response_body, created_at
			FROM idempotency_keys WHERE account = $1 AND key = $2`, account, key).Scan(&storedHash, &status, &respStatus, &body, &created)
		if errors.Is(err, sql.ErrNoRows) {
			continue // forgotten meanwhile: claim it again
		} else if err != nil {
			return nil, err
		}
		if !created.After(now.Add(-property.IdempotencyTTL)) {
			// Remembered too long: forget it and claim it anew.
			if _, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE account = $1 AND key = $2 AND created_at <= $3`,
				account, key, now.Add(-property.IdempotencyTTL)); err != nil {
				return nil, err
			}
			continue
		}
		if status == "in_progress" {
			if created.After(now.Add(-property.IdempotencyLockTTL)) {
				e := apperr.Errorf(apperr.IdempotencyInProgress, "A request with this Idempotency-Key is still in progress; retry in a moment.")
				e.RetryAfter = 1
				return nil, e
			}
			if storedHash == hash {
				// Abandoned by a server that stopped mid-request: take it over.
				res, err := s.db.ExecContext(ctx, `UPDATE idempotency_keys SET created_at = $1
					WHERE account = $2 AND key = $3 AND status = 'in_progress' AND created_at <= $4`,
					now, account, key, now.Add(-property.IdempotencyLockTTL))
				if err != nil {
					return nil, err
				}
				if n, err := res.RowsAffected(); err != nil {
					return nil, err
				} else if n == 1 {
					return nil, nil
				}
				continue
			}
		}
		if storedHash != hash {
			return nil, apperr.Errorf(apperr.IdempotencyKeyReused,
				"This Idempotency-Key was already used for a different request; use a new key for a new request.")
		}
		return &property.StoredResponse{Status: int(respStatus.Int64), Body: body}, nil
	}
	return nil, fmt.Errorf("idempotency key %q of %s: could not be claimed", key, account)
}

// FinishIdempotent records the response of the request.
func (s *Property) FinishIdempotent(ctx context.Context, account, key string, status int, body []byte) error {
	_, err := s.db.ExecContext(ctx, `UPDATE idempotency_keys SET status = 'done', response_status = $1, response_body = $2
		WHERE account = $3 AND key = $4`, status, body, account, key)
	return err
}

// AbandonIdempotent forgets a key still in progress.
func (s *Property) AbandonIdempotent(ctx context.Context, account, key string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE account = $1 AND key = $2 AND status = 'in_progress'`, account, key)
	return err
}

// PurgeIdempotencyKeys forgets keys older than property.IdempotencyTTL.
func (s *Property) PurgeIdempotencyKeys(ctx context.Context) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_at <= $1`, s.clock.Now().Add(-property.IdempotencyTTL))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
