package guidedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.ApplicationStore = (*Guide)(nil)

const applicationColumns = `a.id, a.user_id, a.status, a.profile, a.statement, a.reviewer_message, a.decided_at, a.created_at, a.updated_at,
	u.email, u.name`

const applicationFrom = ` FROM expert_applications a JOIN users u ON u.id = a.user_id`

func scanApplication(s store.Scanner, a *guide.Application) error {
	var profile []byte
	var message, email, name sql.NullString
	var decided sql.NullTime
	if err := s.Scan(&a.ID, &a.UserID, &a.Status, &profile, &a.Statement, &message, &decided, &a.CreatedAt, &a.UpdatedAt, &email, &name); err != nil {
		return err
	}
	if err := json.Unmarshal(profile, &a.Profile); err != nil {
		return err
	}
	a.ReviewerMessage, a.DecidedAt = store.NullString(message), store.NullTime(decided)
	a.CreatedAt, a.UpdatedAt = a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	if a.DecidedAt != nil && (a.Status == guide.ApplicationApproved || a.Status == guide.ApplicationRejected) {
		at := a.DecidedAt.Add(guide.DocumentRetention)
		a.DocumentsRemoveAt = &at
	}
	a.Applicant = &guide.ApplicantInfo{ID: a.UserID, Email: store.NullString(email), Name: store.NullString(name)}
	a.Documents = []guide.ApplicationDocument{}
	return nil
}

// loadDocuments fills in the documents of apps, in q.
func loadDocuments(ctx context.Context, q store.Querier, apps []guide.Application) error {
	if len(apps) == 0 {
		return nil
	}
	ids := make([]any, len(apps))
	index := make(map[string]*guide.Application, len(apps))
	for i := range apps {
		ids[i] = apps[i].ID
		index[apps[i].ID] = &apps[i]
	}
	rows, err := q.QueryContext(ctx, `SELECT application_id, id, blob_key, content_type, size, created_at FROM expert_application_documents
		WHERE application_id IN (`+store.Placeholders(1, len(ids))+`) ORDER BY application_id, created_at, id`, ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var app string
		var d guide.ApplicationDocument
		if err := rows.Scan(&app, &d.ID, &d.Key, &d.ContentType, &d.Size, &d.CreatedAt); err != nil {
			return err
		}
		d.CreatedAt = d.CreatedAt.UTC()
		index[app].Documents = append(index[app].Documents, d)
	}
	return rows.Err()
}

// findApplication reads the application that cond (on $1, arg) selects,
// with its documents, in q. Errors: apperr.NotFound.
func findApplication(ctx context.Context, q store.Querier, cond string, args ...any) (*guide.Application, error) {
	var a guide.Application
	err := scanApplication(q.QueryRowContext(ctx, `SELECT `+applicationColumns+applicationFrom+` WHERE `+cond, args...), &a)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No such application.")
	} else if err != nil {
		return nil, err
	}
	apps := []guide.Application{a}
	if err := loadDocuments(ctx, q, apps); err != nil {
		return nil, err
	}
	return &apps[0], nil
}

// openStatuses is the SQL list of the statuses of an open application.
const openStatuses = `('pending', 'changes_requested')`

var errApplicationNotFound = apperr.Errorf(apperr.NotFound, "No such application.")

// errHandleTaken is the answer to a handle another account or open
// application holds: a conflict (the request was valid, the state of the
// marketplace refuses it) that names the field.
func errHandleTaken(handle string) error {
	return &apperr.Error{Code: apperr.Conflict, Message: "The handle " + strconv.Quote(handle) + " is taken; choose another.",
		Details: map[string]any{"handle": "is taken"}}
}

// handleHeld reports whether another account than userID has the handle,
// or another user's open application asks for it.
func handleHeld(ctx context.Context, q store.Querier, handle, userID string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM users WHERE handle = $1 AND id <> $2)
		+ (SELECT COUNT(*) FROM expert_applications WHERE handle = $1 AND user_id <> $2 AND status IN `+openStatuses+`)`,
		handle, userID).Scan(&n)
	return n > 0, err
}

// CreateApplication stores a pending application of user. The unique
// indexes of migration 00021 hold one open application per user and an
// open application's handle for it: concurrent applications that both
// pass the checks below meet there, and the loser is told which.
func (g *Guide) CreateApplication(ctx context.Context, userID string, p guide.ExpertPublicProfile, statement string) (_ *guide.Application, err error) {
	defer store.Wrap(&err, "create application of user %s", userID)
	profile, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var a *guide.Application
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		var verified int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM experts WHERE user_id = $1 AND verified_at IS NOT NULL`, userID).Scan(&verified); err != nil {
			return err
		}
		var open int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM expert_applications WHERE user_id = $1 AND status IN `+openStatuses, userID).Scan(&open); err != nil {
			return err
		}
		if err := guide.CheckApply(verified > 0, open > 0); err != nil {
			return err
		}
		if held, err := handleHeld(ctx, tx, p.Handle, userID); err != nil || held {
			if held {
				return errHandleTaken(p.Handle)
			}
			return err
		}
		id, now := store.NewID(), g.clock.Now()
		if _, err := tx.ExecContext(ctx, `INSERT INTO expert_applications (id, user_id, status, handle, profile, statement, created_at, updated_at)
			VALUES ($1, $2, 'pending', $3, $4, $5, $6, $6)`, id, userID, p.Handle, string(profile), statement, now); err != nil {
			return err
		}
		a, err = findApplication(ctx, tx, "a.id = $1", id)
		return err
	})
	if store.IsUniqueViolation(err) {
		// A concurrent application won: the user's own (one open
		// application each), or another user's with the handle.
		if mine, ferr := g.FindLatestApplication(ctx, userID); ferr == nil && mine.Open() {
			return nil, guide.ErrOpenApplication
		}
		return nil, errHandleTaken(p.Handle)
	}
	return a, err
}

// FindLatestApplication returns the user's latest application.
func (g *Guide) FindLatestApplication(ctx context.Context, userID string) (_ *guide.Application, err error) {
	defer store.Wrap(&err, "find application of user %s", userID)
	a, err := findApplication(ctx, g.db, `a.user_id = $1 ORDER BY a.created_at DESC, a.id DESC LIMIT 1`, userID)
	if apperr.Code(err) == apperr.NotFound {
		return nil, apperr.Errorf(apperr.NotFound, "You have not applied to become an expert: apply with POST /api/v1/expert-applications.")
	}
	return a, err
}

// lockOpenApplication locks the user's application id for a change and
// returns it. Errors: apperr.NotFound, apperr.Conflict (decided).
func lockOpenApplication(ctx context.Context, tx *sql.Tx, userID, id string) (*guide.Application, error) {
	// The row lock: an applicant's changes and the admins' decisions on
	// one application run one at a time.
	if _, err := tx.ExecContext(ctx, `UPDATE expert_applications SET updated_at = updated_at WHERE id = $1 AND user_id = $2`, id, userID); err != nil {
		return nil, err
	}
	a, err := findApplication(ctx, tx, "a.id = $1 AND a.user_id = $2", id, userID)
	if err != nil {
		return nil, err
	}
	if err := a.CheckOpen(); err != nil {
		return nil, err
	}
	return a, nil
}

// UpdateApplication changes the user's open application as apply says.
func (g *Guide) UpdateApplication(ctx context.Context, userID, id string, apply func(*guide.ExpertPublicProfile, *string) error) (_ *guide.Application, err error) {
	defer store.Wrap(&err, "update application %s", id)
	var a *guide.Application
	handle := ""
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		cur, err := lockOpenApplication(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		p, statement := cur.Profile, cur.Statement
		if err := apply(&p, &statement); err != nil {
			return err
		}
		handle = p.Handle
		if p.Handle != cur.Profile.Handle {
			if held, err := handleHeld(ctx, tx, p.Handle, userID); err != nil || held {
				if held {
					return errHandleTaken(p.Handle)
				}
				return err
			}
		}
		profile, err := json.Marshal(p)
		if err != nil {
			return err
		}
		// An application asked for changes goes back to the queue.
		if _, err := tx.ExecContext(ctx, `UPDATE expert_applications SET status = 'pending', handle = $1, profile = $2, statement = $3, updated_at = $4
			WHERE id = $5`, p.Handle, string(profile), statement, g.clock.Now(), id); err != nil {
			return err
		}
		a, err = findApplication(ctx, tx, "a.id = $1", id)
		return err
	})
	if store.IsUniqueViolation(err) {
		return nil, errHandleTaken(handle)
	}
	return a, err
}

// AddApplicationDocument adds a stored document to the user's open
// application.
func (g *Guide) AddApplicationDocument(ctx context.Context, userID, id string, d guide.NewDocument) (_ *guide.Application, err error) {
	defer store.Wrap(&err, "add document to application %s", id)
	var a *guide.Application
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		cur, err := lockOpenApplication(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if err := cur.CheckNewDocument(); err != nil {
			return err
		}
		now := g.clock.Now()
		if _, err := tx.ExecContext(ctx, `INSERT INTO expert_application_documents (id, application_id, blob_key, content_type, size, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, d.ID, id, d.Key, d.ContentType, d.Size, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE expert_applications SET updated_at = $1 WHERE id = $2`, now, id); err != nil {
			return err
		}
		a, err = findApplication(ctx, tx, "a.id = $1", id)
		return err
	})
	return a, err
}

// FindApplications returns a page of the applications of a status.
//
// Plan: expert_applications_queue walked from the status's first entry
// in created_at order.
func (g *Guide) FindApplications(ctx context.Context, f guide.ApplicationFilter) (_ []guide.Application, _ int, err error) {
	defer store.Wrap(&err, "find %s applications", f.Status)
	var total int
	if err := g.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM expert_applications WHERE status = $1`, f.Status).Scan(&total); err != nil {
		return nil, 0, err
	}
	dir := store.Direction(f.Page.Order)
	rows, err := g.db.QueryContext(ctx, `SELECT `+applicationColumns+applicationFrom+` WHERE a.status = $1
		ORDER BY a.created_at `+dir+`, a.id `+dir+` LIMIT $2 OFFSET $3`, f.Status, f.Page.PageSize, f.Page.Offset())
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []guide.Application{}
	for rows.Next() {
		var a guide.Application
		if err := scanApplication(rows, &a); err != nil {
			return nil, 0, err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	rows.Close()
	return out, total, loadDocuments(ctx, g.db, out)
}

// FindApplication returns an application.
func (g *Guide) FindApplication(ctx context.Context, id string) (_ *guide.Application, err error) {
	defer store.Wrap(&err, "find application %s", id)
	return findApplication(ctx, g.db, "a.id = $1", id)
}

// FindApplicationDocument returns a document of an application.
func (g *Guide) FindApplicationDocument(ctx context.Context, applicationID, docID string) (_ *guide.ApplicationDocument, err error) {
	defer store.Wrap(&err, "find document %s", docID)
	var d guide.ApplicationDocument
	err = g.db.QueryRowContext(ctx, `SELECT id, blob_key, content_type, size, created_at FROM expert_application_documents
		WHERE id = $1 AND application_id = $2`, docID, applicationID).Scan(&d.ID, &d.Key, &d.ContentType, &d.Size, &d.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No such document.")
	}
	d.CreatedAt = d.CreatedAt.UTC()
	return &d, err
}

// DecideApplication applies an admin's decision to a pending
// application. Everything it does is one transaction: the status moves
// only from pending (a conditional UPDATE, so of concurrent decisions
// exactly one finds the application pending and the others answer
// Conflict), and with it, or not at all, the approved expert's profile
// in users, experts and the tag tables (the catalogue's triggers list the
// expert and keep its counts), expert.verified, the audit entry, the
// applicant's notifications and the removal of the documents. A crash
// before the commit leaves the application pending and nothing else
// changed.
func (g *Guide) DecideApplication(ctx context.Context, id string, d guide.Decision) (_ *guide.Application, err error) {
	defer store.Wrap(&err, "%s application %s", d.Decision, id)
	var a *guide.Application
	handle := ""
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		now := g.clock.Now()
		// The applicant's row is locked before the application's, in the
		// order closing the account takes them (it deletes the
		// applications), so the two never wait on each other.
		var applicant string
		if err := tx.QueryRowContext(ctx, `SELECT user_id FROM expert_applications WHERE id = $1`, id).Scan(&applicant); errors.Is(err, sql.ErrNoRows) {
			return errApplicationNotFound
		} else if err != nil {
			return err
		}
		// #nosec G202 -- only the fixed lock clause is concatenated; the id is bound.
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM users WHERE id = $1`+g.forUpdate(), applicant); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE expert_applications SET status = $1, reviewer_id = $2, reviewer_message = $3,
				decided_at = $4, updated_at = $4
			WHERE id = $5 AND status = 'pending'`, d.Status, d.AdminID, d.Message, now, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			cur, err := findApplication(ctx, tx, "a.id = $1", id)
			if err != nil {
				return errApplicationNotFound
			}
			return cur.CheckDecidable()
		}
		a, err = findApplication(ctx, tx, "a.id = $1", id)
		if err != nil {
			return err
		}
		if d.Status == guide.ApplicationApproved {
			handle = a.Profile.Handle
			if err := g.verifyExpert(ctx, tx, a.UserID, a.Profile, now); err != nil {
				return err
			}
		}
		if err := g.recordAudit(ctx, tx, d.AdminID, d.Audit, guide.AuditTargetApplication, id, d.Message); err != nil {
			return err
		}
		// The status decided goes with the job: a notification of it is
		// sent only while the application still has it.
		if _, err := g.enqueuePerDeviceWith(ctx, tx, a.UserID, guide.JobPushApplication,
			map[string]string{"applicationId": id, "status": d.Status}, now); err != nil {
			return err
		}
		if d.Status == guide.ApplicationApproved || d.Status == guide.ApplicationRejected {
			// The documents served their purpose: they go after the
			// retention period, by jobs queued now, so a crash cannot
			// forget them.
			for _, doc := range a.Documents {
				if err := g.jobs.Enqueue(ctx, tx, guide.JobBlobDelete, map[string]string{"key": doc.Key}, now.Add(guide.DocumentRetention)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if store.IsUniqueViolation(err) {
		// The handle went to an account meanwhile (a generated one, which
		// the application's checks cannot hold back).
		return nil, errHandleTaken(handle)
	}
	return a, err
}

// verifyExpert makes the user a verified expert with profile p, in tx:
// the user's handle, name and role, the experts row (the one an EXPERT
// account was registered with, or a new one) and its translations and
// tags, and expert.verified with the expert as the catalogue now shows it.
func (g *Guide) verifyExpert(ctx context.Context, tx *sql.Tx, userID string, p guide.ExpertPublicProfile, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE users SET handle = $1, role = CASE WHEN role = 'ADMIN' THEN role ELSE 'EXPERT' END, updated_at = $2
		WHERE id = $3 AND deleted_at IS NULL`, p.Handle, now, userID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return apperr.Errorf(apperr.Conflict, "The applicant's account is closed.")
	}
	var expertID string
	err = tx.QueryRowContext(ctx, `SELECT id FROM experts WHERE user_id = $1`, userID).Scan(&expertID)
	if errors.Is(err, sql.ErrNoRows) {
		expertID = store.NewID()
		_, err = tx.ExecContext(ctx, `INSERT INTO experts (id, user_id, currency, timezone, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $5)`, expertID, userID, p.Currency, p.Timezone, now)
	}
	if err != nil {
		return err
	}
	if err := writeExpertProfile(ctx, tx, expertID, userID, p, now); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE experts SET verified_at = $1 WHERE id = $2`, now, expertID); err != nil {
		return err
	}
	return g.recordExpertEvent(ctx, tx, guide.EventExpertVerified, expertID)
}

// writeExpertProfile stores profile p of the expert in tx: the English
// bio in the experts row, the other locales in expert_translations, the
// tags in order, and the name in users.
func writeExpertProfile(ctx context.Context, tx *sql.Tx, expertID, userID string, p guide.ExpertPublicProfile, now time.Time) error {
	schedule, err := json.Marshal(p.WeeklySchedule)
	if err != nil {
		return err
	}
	links, err := json.Marshal(p.SocialLinks)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET name = $1, updated_at = $2 WHERE id = $3`, p.Name, now, userID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE experts SET bio = $1, location = $2, country_code = $3, currency = $4, hourly_rate = $5,
			social_links = $6, messaging_enabled = $7, weekly_schedule = $8, timezone = $9, updated_at = $10
		WHERE id = $11`, p.Bio[guide.DefaultLocale], p.Location.City, p.Location.CountryCode, p.Currency, p.HourlyRate,
		string(links), p.MessagingEnabled, string(schedule), p.Timezone, now, expertID); err != nil {
		return err
	}
	for _, stmt := range []string{`DELETE FROM expert_translations WHERE expert_id = $1`,
		`DELETE FROM expert_languages WHERE expert_id = $1`, `DELETE FROM expert_specialties WHERE expert_id = $1`} {
		if _, err := tx.ExecContext(ctx, stmt, expertID); err != nil {
			return err
		}
	}
	for _, loc := range guide.Locales {
		if bio, ok := p.Bio[loc]; ok && loc != guide.DefaultLocale {
			if _, err := tx.ExecContext(ctx, `INSERT INTO expert_translations (expert_id, locale, bio) VALUES ($1, $2, $3)`, expertID, loc, bio); err != nil {
				return err
			}
		}
	}
	for i, l := range p.Languages {
		if _, err := tx.ExecContext(ctx, `INSERT INTO expert_languages (expert_id, language, position) VALUES ($1, $2, $3)`, expertID, l, i); err != nil {
			return err
		}
	}
	for i, s := range p.Specialties {
		if _, err := tx.ExecContext(ctx, `INSERT INTO expert_specialties (expert_id, specialty, position) VALUES ($1, $2, $3)`, expertID, s, i); err != nil {
			return err
		}
	}
	return nil
}

// recordExpertEvent records typ with the expert as the catalogue shows
// it (in English), for everyone, in tx.
func (g *Guide) recordExpertEvent(ctx context.Context, tx *sql.Tx, typ, expertID string) error {
	x, err := expertDetail(ctx, tx, "e.id = $2", expertID, guide.DefaultLocale)
	if err != nil {
		return err
	}
	_, err = g.events.Record(ctx, tx, typ, []string{changes.AudienceAll}, x)
	return err
}

// ownProfile reads the verified expert profile of user in q.
func ownProfile(ctx context.Context, q store.Querier, userID string) (*guide.OwnExpertProfile, error) {
	var p guide.OwnExpertProfile
	var name, bio, location, country, profileImage, cover sql.NullString
	var rate sql.NullFloat64
	var schedule, links []byte
	var verified sql.NullTime
	err := q.QueryRowContext(ctx, `SELECT e.id, u.handle, u.name, e.bio, e.location, e.country_code, e.currency, e.hourly_rate,
			e.timezone, e.weekly_schedule, e.social_links, e.messaging_enabled, e.profile_image, e.cover_image, e.verified_at
		FROM experts e JOIN users u ON u.id = e.user_id
		WHERE e.user_id = $1 AND e.verified_at IS NOT NULL AND u.deleted_at IS NULL`, userID).
		Scan(&p.ID, &p.Handle, &name, &bio, &location, &country, &p.Currency, &rate, &p.Timezone, &schedule, &links,
			&p.MessagingEnabled, &profileImage, &cover, &verified)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "This account is not a verified expert: apply with POST /api/v1/expert-applications.")
	} else if err != nil {
		return nil, err
	}
	p.Name, p.HourlyRate = name.String, store.NullFloat(rate)
	p.Location = guide.ExpertLocation{City: location.String, CountryCode: country.String}
	p.ProfileImage, p.CoverImage, p.VerifiedAt = store.NullString(profileImage), store.NullString(cover), store.NullTime(verified)
	p.Bio = map[string]string{}
	if bio.Valid {
		p.Bio[guide.DefaultLocale] = bio.String
	}
	p.WeeklySchedule, p.SocialLinks = guide.WeeklySchedule{}, map[string]string{}
	if err := json.Unmarshal(store.RawJSON(schedule, "{}"), &p.WeeklySchedule); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(store.RawJSON(links, "{}"), &p.SocialLinks); err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT locale, bio FROM expert_translations WHERE expert_id = $1 AND bio IS NOT NULL ORDER BY locale`, p.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var loc, text string
		if err := rows.Scan(&loc, &text); err != nil {
			return nil, err
		}
		if loc != guide.DefaultLocale {
			p.Bio[loc] = text
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	tags := []guide.ExpertSummary{{ID: p.ID}}
	if err := loadExpertTags(ctx, q, tags); err != nil {
		return nil, err
	}
	p.Languages, p.Specialties = tags[0].Languages, tags[0].Specialties
	if p.Languages == nil {
		p.Languages = []string{}
	}
	if p.Specialties == nil {
		p.Specialties = []string{}
	}
	return &p, nil
}

// FindOwnExpertProfile returns the verified expert profile of user.
func (g *Guide) FindOwnExpertProfile(ctx context.Context, userID string) (_ *guide.OwnExpertProfile, err error) {
	defer store.Wrap(&err, "find expert profile of user %s", userID)
	return ownProfile(ctx, g.db, userID)
}

// lockExpertOf takes the row lock of user's verified expert (lockExpert),
// if there is one.
func (g *Guide) lockExpertOf(ctx context.Context, tx *sql.Tx, userID string) error {
	var id string
	err := tx.QueryRowContext(ctx, `SELECT id FROM experts WHERE user_id = $1 AND verified_at IS NOT NULL`, userID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	return g.lockExpert(ctx, tx, id)
}

// UpdateExpertProfile changes the verified expert profile of user.
func (g *Guide) UpdateExpertProfile(ctx context.Context, userID string, apply func(*guide.OwnExpertProfile) error) (_ *guide.OwnExpertProfile, err error) {
	defer store.Wrap(&err, "update expert profile of user %s", userID)
	var out *guide.OwnExpertProfile
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := g.lockExpertOf(ctx, tx, userID); err != nil {
			return err
		}
		p, err := ownProfile(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := apply(p); err != nil {
			return err
		}
		if err := writeExpertProfile(ctx, tx, p.ID, userID, p.ExpertPublicProfile, g.clock.Now()); err != nil {
			return err
		}
		if err := g.recordExpertEvent(ctx, tx, guide.EventExpertUpdated, p.ID); err != nil {
			return err
		}
		out, err = ownProfile(ctx, tx, userID)
		return err
	})
	return out, err
}

// SetExpertImage makes path the expert's profile or cover image.
func (g *Guide) SetExpertImage(ctx context.Context, userID string, cover bool, path string) (_ *guide.OwnExpertProfile, err error) {
	defer store.Wrap(&err, "set expert image of user %s", userID)
	var out *guide.OwnExpertProfile
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := g.lockExpertOf(ctx, tx, userID); err != nil {
			return err
		}
		p, err := ownProfile(ctx, tx, userID)
		if err != nil {
			return err
		}
		old, column := p.ProfileImage, "profile_image"
		if cover {
			old, column = p.CoverImage, "cover_image"
		}
		now := g.clock.Now()
		// #nosec G202 -- column is one of the two names above; values are bound.
		if _, err := tx.ExecContext(ctx, `UPDATE experts SET `+column+` = $1, updated_at = $2 WHERE id = $3`, path, now, p.ID); err != nil {
			return err
		}
		// An upload replaced is the expert's alone (each upload has a key
		// of its own): its file goes. A sample picture stays.
		if old != nil && strings.HasPrefix(*old, "/media/"+guide.ExpertUploadsPrefix) {
			if err := g.jobs.Enqueue(ctx, tx, guide.JobBlobDelete, map[string]string{"key": strings.TrimPrefix(*old, "/media/")}, now); err != nil {
				return err
			}
		}
		if err := g.recordExpertEvent(ctx, tx, guide.EventExpertUpdated, p.ID); err != nil {
			return err
		}
		out, err = ownProfile(ctx, tx, userID)
		return err
	})
	return out, err
}

// ApplicationPush is what the worker needs to tell one device's owner of
// a decision on their application.
type ApplicationPush struct {
	ApplicationID   string
	Status          string // changes_requested, approved or rejected
	Message         string // the reviewer's message; "" when none
	Handle          string // the handle asked for (an approved expert's)
	UserID          string
	RecipientLocale string // users.locale
	Token           string
	Platform        string // WEB, ANDROID or IOS
	DeviceLocale    string // "" when the device sent none
	Timezone        string // IANA name; "" when the device sent none
}

// ApplicationPushDelivery loads the notification of the decision that
// moved an application to status for the device, or returns nil when
// there is nothing to tell: the application has moved on since (its
// applicant answered a request for changes, or another decision
// followed), the device is no longer registered to the applicant, or the
// account is closed.
func (g *Guide) ApplicationPushDelivery(ctx context.Context, applicationID, status, token string) (_ *ApplicationPush, err error) {
	defer store.Wrap(&err, "load push delivery of application %s", applicationID)
	d := &ApplicationPush{ApplicationID: applicationID, Token: token}
	var message, deviceLocale, timezone sql.NullString
	err = g.db.QueryRowContext(ctx, `SELECT a.status, a.reviewer_message, a.handle, a.user_id, u.locale, t.platform, t.device_locale, t.timezone
		FROM expert_applications a JOIN users u ON u.id = a.user_id
		JOIN push_tokens t ON t.user_id = a.user_id AND t.token = $2
		WHERE a.id = $1 AND a.status = $3 AND u.deleted_at IS NULL`, applicationID, token, status).
		Scan(&d.Status, &message, &d.Handle, &d.UserID, &d.RecipientLocale, &d.Platform, &deviceLocale, &timezone)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	d.Message, d.DeviceLocale, d.Timezone = message.String, deviceLocale.String, timezone.String
	return d, nil
}

// CancellationPush is the notification of a booking an admin cancelled,
// for one device of its traveller.
type CancellationPush struct {
	BookingID       string
	ExpertName      string
	ScheduledDate   time.Time
	ExpertTimezone  string
	UserID          string
	RecipientLocale string
	Token           string
	Platform        string
	DeviceLocale    string
	Timezone        string
}

// CancellationPushDelivery loads the notification of an admin's
// cancellation of the booking for the device, or returns nil when the
// booking is no longer cancelled by an admin, or the device or the
// account is gone.
func (g *Guide) CancellationPushDelivery(ctx context.Context, bookingID, token string) (_ *CancellationPush, err error) {
	defer store.Wrap(&err, "load cancellation push of booking %s", bookingID)
	d := &CancellationPush{BookingID: bookingID, Token: token}
	var name, deviceLocale, timezone sql.NullString
	err = g.db.QueryRowContext(ctx, `SELECT COALESCE(eu.name, eu.handle), b.scheduled_date, e.timezone, b.tourist_id, u.locale,
			t.platform, t.device_locale, t.timezone
		FROM bookings b JOIN experts e ON e.id = b.expert_id JOIN users eu ON eu.id = e.user_id
		JOIN users u ON u.id = b.tourist_id JOIN push_tokens t ON t.user_id = b.tourist_id AND t.token = $2
		WHERE b.id = $1 AND b.status = 'CANCELLED' AND b.cancelled_by = 'admin' AND u.deleted_at IS NULL`, bookingID, token).
		Scan(&name, &d.ScheduledDate, &d.ExpertTimezone, &d.UserID, &d.RecipientLocale, &d.Platform, &deviceLocale, &timezone)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	d.ExpertName, d.DeviceLocale, d.Timezone = name.String, deviceLocale.String, timezone.String
	return d, nil
}
