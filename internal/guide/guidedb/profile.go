package guidedb

import (
	"context"
	"database/sql"
	"errors"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.ProfileStore = (*Guide)(nil)

// FindProfile returns the open account's profile. Errors: apperr.NotFound.
func (g *Guide) FindProfile(ctx context.Context, userID string) (_ *guide.Profile, err error) {
	defer store.Wrap(&err, "find profile of user %s", userID)
	var p guide.Profile
	var name, email, image, nickname, avatar, bio, bioZh sql.NullString
	var expertID, handle, location, country sql.NullString
	var rate, rating sql.NullFloat64
	var reviews sql.NullInt64
	err = g.db.QueryRowContext(ctx, `
		SELECT u.id, u.name, u.email, u.image, u.nickname, u.avatar, u.bio, u.bio_zh, u.role, u.created_at,
			e.id, u.handle, e.location, e.country_code, e.hourly_rate, e.rating, e.review_count
		FROM users u LEFT JOIN experts e ON e.user_id = u.id
		WHERE u.id = $1 AND u.deleted_at IS NULL`, userID).Scan(
		&p.ID, &name, &email, &image, &nickname, &avatar, &bio, &bioZh, &p.Role, &p.CreatedAt,
		&expertID, &handle, &location, &country, &rate, &rating, &reviews)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No such account.")
	} else if err != nil {
		return nil, err
	}
	p.Name, p.Email, p.Image, p.Nickname = store.NullString(name), store.NullString(email), store.NullString(image), store.NullString(nickname)
	p.Avatar, p.Bio, p.BioZh, p.CreatedAt = store.NullString(avatar), store.NullString(bio), store.NullString(bioZh), p.CreatedAt.UTC()
	if expertID.Valid && p.Role == guide.RoleExpert {
		x := []guide.ExpertSummary{{ID: expertID.String}}
		if err := g.loadExpertTags(ctx, x); err != nil {
			return nil, err
		}
		p.Expert = &guide.ExpertProfile{
			Handle: handle.String, Specialties: x[0].Specialties, Languages: x[0].Languages,
			HourlyRate: store.NullFloat(rate), Location: store.NullString(location), CountryCode: store.NullString(country),
			Rating: rating.Float64, ReviewCount: int(reviews.Int64),
		}
	}
	return &p, nil
}

// UpdateProfile changes the fields named in u.
func (g *Guide) UpdateProfile(ctx context.Context, userID string, u guide.ProfileUpdate) (_ *guide.Profile, err error) {
	defer store.Wrap(&err, "update profile of user %s", userID)
	w := &store.Where{}
	set := "updated_at = " + w.Arg(g.clock.Now())
	for _, f := range []struct {
		column string
		change *guide.Change
	}{{"name", u.Name}, {"nickname", u.Nickname}, {"bio", u.Bio}, {"bio_zh", u.BioZh}} {
		if f.change != nil {
			set += ", " + f.column + " = " + w.Arg(f.change.Value)
		}
	}
	w.And("id = " + w.Arg(userID))
	w.And("deleted_at IS NULL")
	res, err := g.db.ExecContext(ctx, `UPDATE users SET `+set+w.String(), w.Args...)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, apperr.Errorf(apperr.NotFound, "No such account.")
	}
	return g.FindProfile(ctx, userID)
}

// SetAvatar records the user's new avatar, its path on the API and its
// blob key, and returns the key it replaces. Errors: apperr.NotFound.
func (g *Guide) SetAvatar(ctx context.Context, userID, path, key string) (_ string, err error) {
	defer store.Wrap(&err, "set avatar of user %s", userID)
	var old sql.NullString
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT avatar_key FROM users WHERE id = $1 AND deleted_at IS NULL`, userID).Scan(&old)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.Errorf(apperr.NotFound, "No such account.")
		} else if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE users SET avatar = $1, avatar_key = $2, updated_at = $3 WHERE id = $4`, path, key, g.clock.Now(), userID)
		return err
	})
	if old.String == key {
		return "", err // the same picture again: nothing to remove
	}
	return old.String, err
}

// RegisterPushToken stores a device token for the user; a token already
// registered, to this user or another, moves to this user with the new
// details.
func (g *Guide) RegisterPushToken(ctx context.Context, t guide.PushToken) (err error) {
	defer store.Wrap(&err, "register push token of user %s", t.UserID)
	now := g.clock.Now()
	_, err = g.db.ExecContext(ctx, `
		INSERT INTO push_tokens (token, user_id, device, platform, app_version, build_number, device_locale, timezone, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
		ON CONFLICT (token) DO UPDATE SET user_id = excluded.user_id, device = excluded.device, platform = excluded.platform,
			app_version = excluded.app_version, build_number = excluded.build_number,
			device_locale = excluded.device_locale, timezone = excluded.timezone, updated_at = excluded.updated_at`,
		t.Token, t.UserID, t.Device, t.Platform, t.AppVersion, t.BuildNumber, t.DeviceLocale, t.Timezone, now)
	return err
}

// UnregisterPushToken removes the user's device token.
func (g *Guide) UnregisterPushToken(ctx context.Context, userID, token string) (_ bool, err error) {
	defer store.Wrap(&err, "unregister push token of user %s", userID)
	res, err := g.db.ExecContext(ctx, `DELETE FROM push_tokens WHERE token = $1 AND user_id = $2`, token, userID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
