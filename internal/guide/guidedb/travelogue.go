package guidedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.TravelogueStore = (*Guide)(nil)

// maxSlugTries bounds the slugs a create tries after the first free one
// it saw was taken meanwhile by a concurrent create.
const maxSlugTries = 20

// authorTravelogue reads a travelogue by slug with every translation, in
// q, and its author's id.
func authorTravelogue(ctx context.Context, q store.Querier, slug string) (*guide.AuthorTravelogue, string, error) {
	var t guide.AuthorTravelogue
	var images []byte
	var authorID string
	// The English text is the row's own: no translation row has locale en.
	err := scanTravelogue(q.QueryRowContext(ctx, `SELECT `+travelogueColumns+`, tr.content, tr.images, tr.created_at, tr.updated_at,
			tr.id, tr.author_id, tr.status`+travelogueFrom+`'en' WHERE tr.slug = $1`, slug),
		&t.TravelogueSummary, &t.Content, &images, &t.CreatedAt, &t.UpdatedAt, &t.ID, &authorID, &t.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", guide.NoTravelogue(slug)
	} else if err != nil {
		return nil, "", err
	}
	t.Images = store.StringList(images)
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	t.Translations = map[string]guide.TravelogueText{guide.DefaultLocale: {Title: t.Title, Excerpt: t.Excerpt, Content: t.Content}}
	rows, err := q.QueryContext(ctx, `SELECT locale, COALESCE(title, ''), excerpt, COALESCE(content, '') FROM travelogue_translations
		WHERE travelogue_id = $1 ORDER BY locale`, t.ID)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	for rows.Next() {
		var loc string
		var x guide.TravelogueText
		var excerpt sql.NullString
		if err := rows.Scan(&loc, &x.Title, &excerpt, &x.Content); err != nil {
			return nil, "", err
		}
		x.Excerpt = store.NullString(excerpt)
		if loc != guide.DefaultLocale && x.Title != "" && x.Content != "" {
			t.Translations[loc] = x
		}
	}
	return &t, authorID, rows.Err()
}

// ownTravelogue reads a travelogue of the user's in q (CheckAuthor).
func ownTravelogue(ctx context.Context, q store.Querier, user *guide.User, slug string) (*guide.AuthorTravelogue, error) {
	t, authorID, err := authorTravelogue(ctx, q, slug)
	if err != nil {
		return nil, err
	}
	if err := t.CheckAuthor(user, authorID, slug); err != nil {
		return nil, err
	}
	return t, nil
}

// writeTravelogue stores the content of travelogue id: the English text
// in its row, the other locales in travelogue_translations.
func writeTravelogue(ctx context.Context, tx *sql.Tx, id string, c guide.TravelogueContent, now time.Time) error {
	images, err1 := json.Marshal(c.Images)
	tags, err2 := json.Marshal(c.LocationTags)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	en := c.Translations[guide.DefaultLocale]
	if _, err := tx.ExecContext(ctx, `UPDATE travelogues SET title = $1, excerpt = $2, content = $3, cover_image = $4, category = $5,
			location_tags = $6, images = $7, updated_at = $8 WHERE id = $9`,
		en.Title, en.Excerpt, en.Content, c.CoverImage, c.Category, string(tags), string(images), now, id); err != nil {
		return err
	}
	for _, loc := range guide.Locales {
		if loc == guide.DefaultLocale {
			continue
		}
		t, ok := c.Translations[loc]
		if !ok {
			if _, err := tx.ExecContext(ctx, `DELETE FROM travelogue_translations WHERE travelogue_id = $1 AND locale = $2`, id, loc); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO travelogue_translations (travelogue_id, locale, title, excerpt, content) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (travelogue_id, locale) DO UPDATE SET title = excluded.title, excerpt = excluded.excerpt, content = excluded.content`,
			id, loc, t.Title, t.Excerpt, t.Content); err != nil {
			return err
		}
	}
	return nil
}

// travelogueChanged records the travelogue as it now stands as an event
// of typ (seen by its author, and by everyone when it is or was
// published) and as the answer of the request's Idempotency-Key.
func (g *Guide) travelogueChanged(ctx context.Context, tx *sql.Tx, user *guide.User, slug, typ string, public bool) (*guide.AuthorTravelogue, error) {
	t, _, err := authorTravelogue(ctx, tx, slug)
	if err != nil {
		return nil, err
	}
	audience := []string{guide.Audience(user.ID)}
	if public || t.Status == guide.TraveloguePublished {
		audience = append(audience, changes.AudienceAll)
	}
	if _, err := g.events.Record(ctx, tx, typ, audience, t); err != nil {
		return nil, err
	}
	return t, idempotency.RecordResult(ctx, tx, t)
}

// contentOf is what apply may change of t.
func contentOf(t *guide.AuthorTravelogue) guide.TravelogueContent {
	return guide.TravelogueContent{Translations: t.Translations, Category: t.Category, LocationTags: t.LocationTags,
		CoverImage: t.CoverImage, Images: t.Images}
}

// CreateTravelogue creates a draft of the user's. The slug is claimed by
// the insert itself (ON CONFLICT DO NOTHING), so two creates racing for
// one slug both succeed, with different slugs.
func (g *Guide) CreateTravelogue(ctx context.Context, user *guide.User, base string, c guide.TravelogueContent) (_ *guide.AuthorTravelogue, err error) {
	defer store.Wrap(&err, "create travelogue of user %s", user.ID)
	var t *guide.AuthorTravelogue
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		taken := map[string]bool{}
		rows, err := tx.QueryContext(ctx, `SELECT slug FROM travelogues WHERE slug = $1 OR slug LIKE $2`, base, base+"-%")
		if err != nil {
			return err
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return err
			}
			taken[s] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		id, now := store.NewID(), g.clock.Now()
		slug := ""
		for n, tries := 1, 0; slug == "" && tries < maxSlugTries; n++ {
			candidate := base
			if n > 1 {
				candidate += "-" + strconv.Itoa(n)
			}
			if taken[candidate] || guide.SlugReserved(candidate) {
				continue
			}
			tries++
			res, err := tx.ExecContext(ctx, `INSERT INTO travelogues (id, slug, author_id, title, content, category, status, created_at, updated_at)
				VALUES ($1, $2, $3, '', '', '', 'draft', $4, $4) ON CONFLICT (slug) DO NOTHING`, id, candidate, user.ID, now)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 1 {
				slug = candidate
			}
		}
		if slug == "" {
			e := apperr.Errorf(apperr.Conflict, "Too many travelogues are being created with this title at once; try again.")
			e.RetryAfter = 1
			return e
		}
		if err := writeTravelogue(ctx, tx, id, c, now); err != nil {
			return err
		}
		t, err = g.travelogueChanged(ctx, tx, user, slug, guide.EventTravelogueUpdated, false)
		return err
	})
	return t, err
}

// FindAuthorTravelogue returns a travelogue of the user's.
func (g *Guide) FindAuthorTravelogue(ctx context.Context, user *guide.User, slug string) (_ *guide.AuthorTravelogue, err error) {
	defer store.Wrap(&err, "find travelogue %s for user %s", slug, user.ID)
	return ownTravelogue(ctx, g.db, user, slug)
}

// lockTravelogue takes the row lock of the travelogue: concurrent changes
// of one travelogue run one at a time.
func lockTravelogue(ctx context.Context, tx *sql.Tx, slug string) error {
	_, err := tx.ExecContext(ctx, `UPDATE travelogues SET updated_at = updated_at WHERE slug = $1`, slug)
	return err
}

// UpdateTravelogue changes a travelogue of the user's.
func (g *Guide) UpdateTravelogue(ctx context.Context, user *guide.User, slug string, apply func(*guide.TravelogueContent) error) (_ *guide.AuthorTravelogue, err error) {
	defer store.Wrap(&err, "update travelogue %s", slug)
	var t *guide.AuthorTravelogue
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := lockTravelogue(ctx, tx, slug); err != nil {
			return err
		}
		cur, err := ownTravelogue(ctx, tx, user, slug)
		if err != nil {
			return err
		}
		c := contentOf(cur)
		if err := apply(&c); err != nil {
			return err
		}
		now := g.clock.Now()
		if err := writeTravelogue(ctx, tx, cur.ID, c, now); err != nil {
			return err
		}
		// An uploaded image dropped is its travelogue's alone (it cannot
		// be added back but by a new upload, under a new key): its file goes.
		for _, img := range cur.Images {
			if strings.HasPrefix(img, guide.TravelogueUploadsPrefix) && !slices.Contains(c.Images, img) {
				if err := g.jobs.Enqueue(ctx, tx, guide.JobBlobDelete, map[string]string{"key": strings.TrimPrefix(img, "/media/")}, now); err != nil {
					return err
				}
			}
		}
		t, err = g.travelogueChanged(ctx, tx, user, slug, guide.EventTravelogueUpdated, false)
		return err
	})
	return t, err
}

// SetTravelogueStatus publishes a travelogue of the user's or takes it
// back to a draft. Publishing sets published_at the first time only, and
// the hot score from it: the catalogue's triggers (migrations 00008 and
// 00013) move the list's version and counts in the same transaction.
func (g *Guide) SetTravelogueStatus(ctx context.Context, user *guide.User, slug, status string) (_ *guide.AuthorTravelogue, err error) {
	defer store.Wrap(&err, "set travelogue %s %s", slug, status)
	var t *guide.AuthorTravelogue
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := lockTravelogue(ctx, tx, slug); err != nil {
			return err
		}
		cur, err := ownTravelogue(ctx, tx, user, slug)
		if err != nil {
			return err
		}
		if cur.Status == status {
			t = cur
			return nil
		}
		now := g.clock.Now()
		typ := guide.EventTravelogueUnpublished
		if status == guide.TraveloguePublished {
			typ = guide.EventTraveloguePublished
			published := now
			if cur.PublishedAt != nil {
				published = *cur.PublishedAt
			}
			_, err = tx.ExecContext(ctx, `UPDATE travelogues SET status = 'published', published_at = $1, hot_score = $2, updated_at = $3 WHERE id = $4`,
				published, guide.HotScore(cur.Score, cur.ViewCount, cur.CommentCount, published), now, cur.ID)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE travelogues SET status = 'draft', updated_at = $1 WHERE id = $2`, now, cur.ID)
		}
		if err != nil {
			return err
		}
		t, err = g.travelogueChanged(ctx, tx, user, slug, typ, true)
		return err
	})
	return t, err
}

// FindAuthorTravelogues returns a page of the user's travelogues.
func (g *Guide) FindAuthorTravelogues(ctx context.Context, user *guide.User, p paging.Page) (_ []guide.AuthorTravelogueSummary, _ int, err error) {
	defer store.Wrap(&err, "find travelogues of user %s", user.ID)
	w := &store.Where{}
	en := w.Arg(guide.DefaultLocale)
	w.And("tr.author_id = " + w.Arg(user.ID))
	dir := store.Direction(p.Order)
	// The English text is the row's own; the join only fills the columns
	// travelogueColumns names.
	return store.QueryPage(ctx, g.db, "", travelogueColumns+`, tr.status, tr.created_at, tr.updated_at`,
		travelogueFrom+en+w.String(), w, `tr.updated_at `+dir+`, tr.id `+dir, p,
		func(s store.Scanner, total *int) (guide.AuthorTravelogueSummary, error) {
			var x guide.AuthorTravelogueSummary
			err := scanTravelogue(s, &x.TravelogueSummary, &x.Status, &x.CreatedAt, &x.UpdatedAt, total)
			x.CreatedAt, x.UpdatedAt = x.CreatedAt.UTC(), x.UpdatedAt.UTC()
			return x, err
		})
}

// FindReadableTravelogue returns a published travelogue, or a draft of
// the reader's.
func (g *Guide) FindReadableTravelogue(ctx context.Context, readerID, slug, locale string) (_ *guide.TravelogueDetail, err error) {
	defer store.Wrap(&err, "find travelogue %s for user %s", slug, readerID)
	return findTravelogue(ctx, g.db, slug, locale, readerID)
}
