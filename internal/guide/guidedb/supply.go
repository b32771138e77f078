package guidedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.SupplyStore = (*Guide)(nil)

// Change events of the experts' supply side.
const (
	EventPackageUpdated      = guide.EventPackageUpdated
	EventAvailabilityUpdated = guide.EventAvailabilityUpdated
)

// expertPackage reads a package with every translation, in q.
func expertPackage(ctx context.Context, q store.Querier, id string) (*guide.ExpertPackage, string, error) {
	var p guide.ExpertPackage
	var excluded []byte
	var expertUser string
	err := scanPackage(q.QueryRowContext(ctx, `SELECT `+packageColumns+`, p.excluded, p.status, e.user_id`+packageFrom+`'' WHERE p.id = $1`, id),
		&p.PackageSummary, &excluded, &p.Status, &expertUser)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", apperr.Errorf(apperr.NotFound, "No package with id %q.", id)
	} else if err != nil {
		return nil, "", err
	}
	p.Excluded = store.StringList(excluded)
	p.Translations = map[string]guide.PackageText{guide.DefaultLocale: {Title: p.Title, Description: p.Description}}
	rows, err := q.QueryContext(ctx, `SELECT locale, COALESCE(title, ''), COALESCE(description, '') FROM package_translations
		WHERE package_id = $1 ORDER BY locale`, id)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	for rows.Next() {
		var loc string
		var t guide.PackageText
		if err := rows.Scan(&loc, &t.Title, &t.Description); err != nil {
			return nil, "", err
		}
		if loc != guide.DefaultLocale && (t.Title != "" || t.Description != "") {
			p.Translations[loc] = t
		}
	}
	return &p, expertUser, rows.Err()
}

// writePackage stores the content of package id: the English text in the
// package row, the other locales in package_translations (keeping their
// other translated fields).
func writePackage(ctx context.Context, tx *sql.Tx, id string, c guide.PackageContent, now any) error {
	images, err := json.Marshal(c.Images)
	if err != nil {
		return err
	}
	en := c.Translations[guide.DefaultLocale]
	// is_active is what the catalogue queries read: kept equal to
	// status = 'active' in the same statement (migration 00007).
	if _, err := tx.ExecContext(ctx, `UPDATE packages SET title = $1, description = $2, category = $3, country_code = $4, base_price = $5,
			currency = $6, duration = $7, max_participants = $8, images = $9, status = $10, is_active = $11, updated_at = $12
		WHERE id = $13`, en.Title, en.Description, c.Category, c.CountryCode, c.BasePrice, c.Currency, c.Duration, c.MaxParticipants,
		string(images), c.Status, c.Status == guide.PackageActive, now, id); err != nil {
		return err
	}
	for _, loc := range guide.Locales {
		if loc == guide.DefaultLocale {
			continue
		}
		t, ok := c.Translations[loc]
		if !ok {
			if _, err := tx.ExecContext(ctx, `UPDATE package_translations SET title = NULL, description = NULL WHERE package_id = $1 AND locale = $2`,
				id, loc); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO package_translations (package_id, locale, title, description) VALUES ($1, $2, $3, $4)
			ON CONFLICT (package_id, locale) DO UPDATE SET title = excluded.title, description = excluded.description`,
			id, loc, t.Title, t.Description); err != nil {
			return err
		}
	}
	return nil
}

// packageChanged records the package as it now stands as a
// package.updated event (seen by its expert, and by everyone when it is
// or was in the catalogue) and as the answer of the request's
// Idempotency-Key.
func (g *Guide) packageChanged(ctx context.Context, tx *sql.Tx, id, before string) (*guide.ExpertPackage, error) {
	p, expertUser, err := expertPackage(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	audience := []string{"user:" + expertUser}
	if before == guide.PackageActive || p.Status == guide.PackageActive {
		audience = append(audience, changes.AudienceAll)
	}
	if _, err := g.events.Record(ctx, tx, EventPackageUpdated, audience, p); err != nil {
		return nil, err
	}
	return p, idempotency.RecordResult(ctx, tx, p)
}

// CreatePackage creates a package of the caller's expert profile.
func (g *Guide) CreatePackage(ctx context.Context, user *guide.User, expertID string, c guide.PackageContent) (_ *guide.ExpertPackage, err error) {
	defer store.Wrap(&err, "create package of user %s", user.ID)
	var p *guide.ExpertPackage
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		var country sql.NullString
		var err error
		if expertID != "" && user.Role == guide.RoleAdmin {
			err = tx.QueryRowContext(ctx, `SELECT id, country_code FROM experts WHERE id = $1`, expertID).Scan(&expertID, &country)
		} else {
			err = tx.QueryRowContext(ctx, `SELECT id, country_code FROM experts WHERE user_id = $1`, user.ID).Scan(&expertID, &country)
		}
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.Errorf(apperr.NotFound, "No expert profile to add the package to.")
		} else if err != nil {
			return err
		}
		if err := c.DefaultCountry(country.String); err != nil {
			return err
		}
		id := store.NewID()
		now := g.clock.Now()
		if _, err := tx.ExecContext(ctx, `INSERT INTO packages (id, expert_id, title, description, category, country_code, base_price, currency,
				duration, max_participants, is_active, status, created_at, updated_at)
			VALUES ($1, $2, '', '', '', $3, 0, '', 0, 0, FALSE, 'draft', $4, $4)`, id, expertID, c.CountryCode, now); err != nil {
			return err
		}
		if err := writePackage(ctx, tx, id, c, now); err != nil {
			return err
		}
		p, err = g.packageChanged(ctx, tx, id, guide.PackageDraft)
		return err
	})
	return p, err
}

// FindExpertPackage returns a package of the caller (or any, for an admin).
func (g *Guide) FindExpertPackage(ctx context.Context, user *guide.User, id string) (_ *guide.ExpertPackage, err error) {
	defer store.Wrap(&err, "find package %s for user %s", id, user.ID)
	p, expertUser, err := expertPackage(ctx, g.db, id)
	if err != nil {
		return nil, err
	}
	if err := guide.CheckPackageEditor(user, expertUser); err != nil {
		return nil, err
	}
	return p, nil
}

// UpdatePackage changes a package of the caller (or any, for an admin).
func (g *Guide) UpdatePackage(ctx context.Context, user *guide.User, id string, apply func(*guide.PackageContent) error) (_ *guide.ExpertPackage, err error) {
	defer store.Wrap(&err, "update package %s", id)
	var p *guide.ExpertPackage
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		// The row lock: concurrent changes of one package run one at a time.
		if _, err := tx.ExecContext(ctx, `UPDATE packages SET updated_at = updated_at WHERE id = $1`, id); err != nil {
			return err
		}
		cur, expertUser, err := expertPackage(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := guide.CheckPackageEditor(user, expertUser); err != nil {
			return err
		}
		c := guide.PackageContent{Translations: cur.Translations, Category: cur.Category, CountryCode: cur.CountryCode, BasePrice: cur.BasePrice,
			Currency: cur.Currency, Duration: cur.Duration, MaxParticipants: cur.MaxParticipants, Images: cur.Images, Status: cur.Status}
		if err := apply(&c); err != nil {
			return err
		}
		now := g.clock.Now()
		if err := writePackage(ctx, tx, id, c, now); err != nil {
			return err
		}
		// An uploaded image dropped is its package's alone (it cannot be
		// added back but by a new upload, under a new key): its file goes.
		for _, img := range cur.Images {
			if strings.HasPrefix(img, guide.PackageUploadsPrefix) && !slices.Contains(c.Images, img) {
				if err := g.jobs.Enqueue(ctx, tx, guide.JobBlobDelete, map[string]string{"key": strings.TrimPrefix(img, "/media/")}, now); err != nil {
					return err
				}
			}
		}
		p, err = g.packageChanged(ctx, tx, id, cur.Status)
		return err
	})
	return p, err
}

// UpdateAvailability replaces the expert's schedule, blocked dates and
// time zone.
func (g *Guide) UpdateAvailability(ctx context.Context, user *guide.User, a guide.Availability) (_ *guide.Availability, err error) {
	defer store.Wrap(&err, "update availability of user %s", user.ID)
	var out guide.Availability
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		var schedule, blocked []byte
		err := tx.QueryRowContext(ctx, `UPDATE experts SET weekly_schedule = $1, blocked_dates = $2, timezone = $3, updated_at = $4
			WHERE user_id = $5 RETURNING id, weekly_schedule, timezone, blocked_dates`,
			string(a.WeeklySchedule), string(a.BlockedDates), a.Timezone, g.clock.Now(), user.ID).
			Scan(&out.ExpertID, &schedule, &out.Timezone, &blocked)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.Errorf(apperr.NotFound, "This account has no expert profile.")
		} else if err != nil {
			return err
		}
		out.WeeklySchedule, out.BlockedDates = store.RawJSON(schedule, "{}"), store.RawJSON(blocked, "[]")
		if _, err := g.events.Record(ctx, tx, EventAvailabilityUpdated, []string{"user:" + user.ID}, out); err != nil {
			return err
		}
		return idempotency.RecordResult(ctx, tx, &out)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}
