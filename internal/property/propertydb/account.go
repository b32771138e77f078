package propertydb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/property"
)

// CreateDeveloper creates a developer account.
func (s *Property) CreateDeveloper(ctx context.Context, nd property.NewDeveloper) (_ *property.Developer, err error) {
	defer store.Wrap(&err, "create developer")
	now := s.clock.Now()
	email := strings.TrimSpace(nd.Email)
	d := &property.Developer{ID: store.NewID(), Email: email, Name: nd.Name, CreatedAt: now}
	var hash any
	if nd.PasswordHash != "" {
		hash = nd.PasswordHash
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO developers (id, email, email_normalized, name, password_hash, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, d.ID, email, strings.ToLower(email), d.Name, hash, now)
	if store.IsUniqueViolation(err) {
		return nil, apperr.Errorf(apperr.EmailTaken, "A developer account with this e-mail address already exists.")
	} else if err != nil {
		return nil, err
	}
	return d, nil
}

// FindDeveloperByEmail returns the account with the e-mail and its
// password hash.
func (s *Property) FindDeveloperByEmail(ctx context.Context, email string) (_ *property.Developer, _ string, err error) {
	defer store.Wrap(&err, "find developer by e-mail")
	var d property.Developer
	var hash sql.NullString
	err = s.db.QueryRowContext(ctx, `SELECT id, email, name, created_at, password_hash FROM developers WHERE email_normalized = $1`,
		strings.ToLower(strings.TrimSpace(email))).Scan(&d.ID, &d.Email, &d.Name, &d.CreatedAt, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", apperr.Errorf(apperr.NotFound, "No developer account with this e-mail.")
	} else if err != nil {
		return nil, "", err
	}
	d.CreatedAt = d.CreatedAt.UTC()
	return &d, hash.String, nil
}

// FindDeveloperByID returns an account.
func (s *Property) FindDeveloperByID(ctx context.Context, id string) (_ *property.Developer, err error) {
	defer store.Wrap(&err, "find developer %s", id)
	var d property.Developer
	err = s.db.QueryRowContext(ctx, `SELECT id, email, name, created_at FROM developers WHERE id = $1`, id).
		Scan(&d.ID, &d.Email, &d.Name, &d.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No such developer account.")
	} else if err != nil {
		return nil, err
	}
	d.CreatedAt = d.CreatedAt.UTC()
	return &d, nil
}

// SetDemoPassword gives the demo developer account the password hash, or
// takes its password away when hash is empty, so that whether it can log in
// follows DEMO_PASSWORD at every start.
func (s *Property) SetDemoPassword(ctx context.Context, hash string) (err error) {
	defer store.Wrap(&err, "set demo password")
	var value any
	if hash != "" {
		value = hash
	}
	_, err = s.db.ExecContext(ctx, `UPDATE developers SET password_hash = $1, updated_at = $2 WHERE email_normalized = $3`,
		value, s.clock.Now(), property.DemoEmail)
	return err
}

// Setting returns the value of a setting of the property database,
// storing value first if the setting is absent, so that concurrent starts
// agree on one value (the portal's token secret).
func (s *Property) Setting(ctx context.Context, key, value string) (_ string, err error) {
	defer store.Wrap(&err, "setting %s", key)
	if _, err := s.db.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, key, value); err != nil {
		return "", err
	}
	var v string
	err = s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = $1`, key).Scan(&v)
	return v, err
}

// CreateKey stores a key by its hash.
func (s *Property) CreateKey(ctx context.Context, k *property.Key, hash string) (err error) {
	defer store.Wrap(&err, "create key of developer %s", k.DeveloperID)
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := createPropertyKey(ctx, tx, k, hash, s.clock.Now()); err != nil {
			return err
		}
		return idempotency.RecordResult(ctx, tx, k)
	})
}

func createPropertyKey(ctx context.Context, q store.Querier, k *property.Key, hash string, now time.Time) error {
	k.ID, k.CreatedAt = store.NewID(), now
	scopes, err := json.Marshal(k.Scopes)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO api_keys (id, developer_id, name, key_prefix, key_hash, mode, scopes, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, k.ID, k.DeveloperID, k.Name, k.KeyPrefix, hash, k.Mode, string(scopes), now)
	return err
}

const propertyKeyColumns = `k.id, k.developer_id, k.name, k.key_prefix, k.mode, k.scopes, k.last_used_at, k.expires_at, k.replaced_by, k.created_at, COALESCE(k.oauth_client_id, '')`

func scanPropertyKey(sc interface{ Scan(...any) error }, k *property.Key) error {
	var scopes []byte
	var used, expires sql.NullTime
	var replaced sql.NullString
	if err := sc.Scan(&k.ID, &k.DeveloperID, &k.Name, &k.KeyPrefix, &k.Mode, &scopes, &used, &expires, &replaced, &k.CreatedAt, &k.OAuthClientID); err != nil {
		return err
	}
	k.Scopes, k.LastUsedAt, k.ExpiresAt, k.ReplacedBy, k.CreatedAt = store.StringList(scopes), store.NullTime(used), store.NullTime(expires), store.NullString(replaced), k.CreatedAt.UTC()
	return nil
}

// propertyWorkingKey is the condition of a key that authenticates.
const propertyWorkingKey = `k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)`

// FindKeys lists the developer's working keys, newest first.
func (s *Property) FindKeys(ctx context.Context, developerID string) (_ []property.Key, err error) {
	defer store.Wrap(&err, "find keys of developer %s", developerID)
	rows, err := s.db.QueryContext(ctx, `SELECT `+propertyKeyColumns+` FROM api_keys k WHERE k.developer_id = $1 AND k.oauth_client_id IS NULL AND `+propertyWorkingKey+`
		ORDER BY k.created_at DESC, k.id DESC`, developerID, s.clock.Now())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keys := []property.Key{}
	for rows.Next() {
		var k property.Key
		if err := scanPropertyKey(rows, &k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// RevokeKey stops a working key of the developer.
func (s *Property) RevokeKey(ctx context.Context, developerID, id string) (_ time.Time, err error) {
	defer store.Wrap(&err, "revoke key %s", id)
	now := s.clock.Now()
	res, err := s.db.ExecContext(ctx, `UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND developer_id = $3 AND oauth_client_id IS NULL AND revoked_at IS NULL
		AND (expires_at IS NULL OR expires_at > $2)`, id, now, developerID)
	if err != nil {
		return time.Time{}, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return time.Time{}, err
	} else if n == 0 {
		return time.Time{}, apperr.Errorf(apperr.NotFound, "No working API key with id %q.", id)
	}
	return now, nil
}

// RotateKey replaces a working key; the old one works for grace more.
func (s *Property) RotateKey(ctx context.Context, developerID, id, newPrefix, newHash string, grace time.Duration) (_ *property.Key, err error) {
	defer store.Wrap(&err, "rotate key %s", id)
	var out *property.Key
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		now := s.clock.Now()
		var old property.Key
		err := scanPropertyKey(tx.QueryRowContext(ctx, `SELECT `+propertyKeyColumns+` FROM api_keys k WHERE k.id = $1 AND `+propertyWorkingKey+` AND k.developer_id = $3 AND k.oauth_client_id IS NULL`,
			id, now, developerID), &old)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.Errorf(apperr.NotFound, "No working API key with id %q.", id)
		} else if err != nil {
			return err
		}
		if err := old.CheckRotate(); err != nil {
			return err
		}
		k := &property.Key{DeveloperID: developerID, Name: old.Name, KeyPrefix: newPrefix, Mode: old.Mode, Scopes: old.Scopes}
		if err := createPropertyKey(ctx, tx, k, newHash, now); err != nil {
			return err
		}
		expires := now.Add(grace)
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET replaced_by = $1, expires_at = $2
			WHERE id = $3 AND replaced_by IS NULL AND revoked_at IS NULL`, k.ID, expires, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return apperr.Errorf(apperr.InvalidState, "This key was rotated or revoked meanwhile.")
		}
		out = k
		return idempotency.RecordResult(ctx, tx, k)
	})
	return out, err
}

// FindKeyByHash returns a working key.
func (s *Property) FindKeyByHash(ctx context.Context, hash string) (_ *property.Key, err error) {
	defer store.Wrap(&err, "find key by hash")
	var k property.Key
	err = scanPropertyKey(s.db.QueryRowContext(ctx, `SELECT `+propertyKeyColumns+` FROM api_keys k WHERE k.key_hash = $1 AND k.oauth_client_id IS NULL AND `+propertyWorkingKey,
		hash, s.clock.Now()), &k)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.Unauthorized, "The API key is not valid: unknown, revoked, or rotated more than 24 hours ago.")
	} else if err != nil {
		return nil, err
	}
	return &k, nil
}

// AddUsage adds recorded counts to key_usage_daily and moves last uses
// forward, in one transaction.
func (s *Property) AddUsage(ctx context.Context, counts map[property.UsageKey]property.UsageCount) (err error) {
	defer store.Wrap(&err, "add usage")
	if len(counts) == 0 {
		return nil
	}
	keys := make([]property.UsageKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].KeyID != keys[j].KeyID {
			return keys[i].KeyID < keys[j].KeyID
		}
		return keys[i].Date.Before(keys[j].Date)
	})
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		last := map[string]time.Time{}
		for _, k := range keys {
			c := counts[k]
			if _, err := tx.ExecContext(ctx, `INSERT INTO key_usage_daily (key_id, day, requests, rate_limited) VALUES ($1, $2, $3, $4)
				ON CONFLICT (key_id, day) DO UPDATE SET requests = key_usage_daily.requests + excluded.requests,
					rate_limited = key_usage_daily.rate_limited + excluded.rate_limited`, k.KeyID, k.Date, c.Requests, c.RateLimited); err != nil {
				return err
			}
			if c.LastUsed.After(last[k.KeyID]) {
				last[k.KeyID] = c.LastUsed
			}
		}
		for _, k := range keys {
			at, ok := last[k.KeyID]
			if !ok {
				continue
			}
			delete(last, k.KeyID)
			if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)`,
				at, k.KeyID); err != nil {
				return err
			}
		}
		return nil
	})
}

// FlushUsage writes the counts u gathered in memory to the database; on a
// failure it puts them back to be written next time. The server calls it
// every few seconds and once at shutdown.
func (s *Property) FlushUsage(ctx context.Context, u *property.Usage) (err error) {
	defer store.Wrap(&err, "flush usage")
	counts := u.Take()
	if err := s.AddUsage(ctx, counts); err != nil {
		u.Restore(counts)
		return err
	}
	return nil
}

// FindUsage returns the developer's usage per day and key, oldest first,
// with pending (counts not yet flushed) added.
func (s *Property) FindUsage(ctx context.Context, developerID string, from, to property.Date, pending map[property.UsageKey]property.UsageCount) (_ []property.UsageDay, err error) {
	defer store.Wrap(&err, "find usage of developer %s", developerID)
	keys, err := s.keysOf(ctx, developerID)
	if err != nil {
		return nil, err
	}
	days := map[property.UsageKey]*property.UsageDay{}
	rows, err := s.db.QueryContext(ctx, `SELECT u.day, u.key_id, u.requests, u.rate_limited
		FROM key_usage_daily u JOIN api_keys k ON k.id = u.key_id
		WHERE k.developer_id = $1 AND u.day >= $2 AND u.day <= $3`, developerID, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var d property.UsageDay
		if err := rows.Scan(&d.Date, &d.KeyID, &d.Requests, &d.RateLimited); err != nil {
			return nil, err
		}
		days[property.UsageKey{KeyID: d.KeyID, Date: d.Date}] = &d
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for k, c := range pending {
		if _, mine := keys[k.KeyID]; !mine || k.Date.Before(from) || k.Date.After(to) {
			continue
		}
		d := days[k]
		if d == nil {
			d = &property.UsageDay{Date: k.Date, KeyID: k.KeyID}
			days[k] = d
		}
		d.Requests += c.Requests
		d.RateLimited += c.RateLimited
	}
	out := make([]property.UsageDay, 0, len(days))
	for _, d := range days {
		d.KeyPrefix = keys[d.KeyID].KeyPrefix
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Date.Equal(out[j].Date) {
			return out[i].Date.Before(out[j].Date)
		}
		ki, kj := keys[out[i].KeyID], keys[out[j].KeyID]
		if !ki.CreatedAt.Equal(kj.CreatedAt) {
			return ki.CreatedAt.Before(kj.CreatedAt)
		}
		return out[i].KeyID < out[j].KeyID
	})
	return out, nil
}

// keysOf returns every key of the developer, working or not, by id: the
// usage of a key outlives it.
func (s *Property) keysOf(ctx context.Context, developerID string) (map[string]property.Key, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+propertyKeyColumns+` FROM api_keys k WHERE k.developer_id = $1`, developerID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]property.Key{}
	for rows.Next() {
		var k property.Key
		if err := scanPropertyKey(rows, &k); err != nil {
			return nil, err
		}
		out[k.ID] = k
	}
	return out, rows.Err()
}
