package guidedb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.ModerationStore = (*Guide)(nil)

// Moderation hides rows from the public through the columns the catalogue
// already walks (guide migration 00023): reviews.hidden_at (FindReviews
// and the rating skip them), packages.hidden_at and experts.suspended_at
// (folded into the listed flags by triggers, with the counts and versions
// of the lists), travelogues.hidden_at (in the travelogues' partial
// indexes and counts). Undoing an action clears its column only, so what
// the owner did meanwhile (archiving a package, say) stands.

// modTarget is a report's or an action's target as stored.
type modTarget struct {
	id        string // the row's id
	publicID  string // its identifier in the public API, as stored
	public    bool   // the public sees it now
	moderated bool   // hidden (suspended) by an admin
	expertID  string // a review's expert; an expert's own id
}

// targetSQL reads a target by its public identifier: id, public id,
// public, moderated, expert id.
var targetSQL = map[string]string{
	guide.TargetReview: `SELECT r.id, r.id, r.hidden_at IS NULL AND e.listed = TRUE, r.hidden_at IS NOT NULL, r.expert_id
		FROM reviews r JOIN experts e ON e.id = r.expert_id WHERE r.id = $1`,
	guide.TargetPackage: `SELECT p.id, p.id, p.listed = TRUE, p.hidden_at IS NOT NULL, p.expert_id
		FROM packages p WHERE p.id = $1`,
	guide.TargetTravelogue: `SELECT tr.id, tr.slug, ` + publicTravelogue + `, tr.hidden_at IS NOT NULL, ''
		FROM travelogues tr WHERE tr.slug = lower($1)`,
	guide.TargetExpert: `SELECT e.id, u.handle, e.listed = TRUE, e.suspended_at IS NOT NULL, e.id
		FROM experts e JOIN users u ON u.id = e.user_id WHERE u.handle = lower($1)`,
}

// findTarget loads a target. Errors: apperr.NotFound.
func findTarget(ctx context.Context, q store.Querier, typ, publicID string) (*modTarget, error) {
	var t modTarget
	err := q.QueryRowContext(ctx, targetSQL[typ], publicID).Scan(&t.id, &t.publicID, &t.public, &t.moderated, &t.expertID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No %s %q.", typ, publicID)
	}
	return &t, err
}

// CreateReport implements guide.ModerationStore. The partial unique index
// reports_open_by_reporter refuses a second open report even when two
// arrive at once.
func (g *Guide) CreateReport(ctx context.Context, nr guide.NewReport) (_ *guide.Report, err error) {
	defer store.Wrap(&err, "report %s %s", nr.TargetType, nr.TargetID)
	t, err := findTarget(ctx, g.db, nr.TargetType, nr.TargetID)
	if err != nil {
		return nil, err
	}
	if !t.public {
		return nil, apperr.Errorf(apperr.NotFound, "No %s %q.", nr.TargetType, nr.TargetID)
	}
	r := &guide.Report{ID: store.NewID(), TargetType: nr.TargetType, TargetID: t.publicID, Reason: nr.Reason, Text: nr.Text,
		Status: guide.ReportOpen, CreatedAt: g.clock.Now().UTC().Round(time.Microsecond)}
	_, err = g.db.ExecContext(ctx, `INSERT INTO reports (id, reporter_id, target_type, target_id, reason, text, status, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, r.ID, nr.ReporterID, r.TargetType, r.TargetID, r.Reason, r.Text, r.Status, r.CreatedAt)
	if store.IsUniqueViolation(err) {
		return nil, apperr.Errorf(apperr.Conflict, "You already have an open report on this %s.", nr.TargetType)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

const reportColumns = `r.id, r.target_type, r.target_id, r.reason, r.text, r.status, r.created_at,
	r.reporter_id, ru.name, r.resolved_by, au.name, r.resolution, r.resolved_at`

const reportFrom = ` FROM reports r JOIN users ru ON ru.id = r.reporter_id LEFT JOIN users au ON au.id = r.resolved_by`

func scanReport(s store.Scanner, r *guide.AdminReport, extra ...any) error {
	var text, reporterName, resolvedBy, resolverName, resolution sql.NullString
	var resolvedAt sql.NullTime
	dest := append([]any{&r.ID, &r.TargetType, &r.TargetID, &r.Reason, &text, &r.Status, &r.CreatedAt,
		&r.Reporter.ID, &reporterName, &resolvedBy, &resolverName, &resolution, &resolvedAt}, extra...)
	if err := s.Scan(dest...); err != nil {
		return err
	}
	r.Text, r.Reporter.Name, r.CreatedAt = store.NullString(text), store.NullString(reporterName), r.CreatedAt.UTC()
	if resolvedBy.Valid {
		r.Resolution = &guide.ReportResolution{By: guide.AuditActor{ID: resolvedBy.String, Name: store.NullString(resolverName)},
			Action: resolution.String, At: resolvedAt.Time.UTC()}
	}
	return nil
}

// targetSummarySQL reads what an admin sees of a target: label, owner's
// handle, moderated, open reports ($1 the public id, $2 the type).
var targetSummarySQL = map[string]string{
	guide.TargetReview: `SELECT r.comment, u.handle, r.hidden_at IS NOT NULL
		FROM reviews r JOIN experts e ON e.id = r.expert_id JOIN users u ON u.id = e.user_id WHERE r.id = $1`,
	guide.TargetPackage: `SELECT p.title, u.handle, p.hidden_at IS NOT NULL
		FROM packages p JOIN experts e ON e.id = p.expert_id JOIN users u ON u.id = e.user_id WHERE p.id = $1`,
	guide.TargetTravelogue: `SELECT tr.title, u.handle, tr.hidden_at IS NOT NULL
		FROM travelogues tr JOIN users u ON u.id = tr.author_id WHERE tr.slug = $1`,
	guide.TargetExpert: `SELECT u.name, u.handle, e.suspended_at IS NOT NULL
		FROM experts e JOIN users u ON u.id = e.user_id WHERE u.handle = $1`,
}

// loadTarget fills in the summary of r's target.
func loadTarget(ctx context.Context, q store.Querier, r *guide.AdminReport) error {
	var label, owner sql.NullString
	err := q.QueryRowContext(ctx, targetSummarySQL[r.TargetType], r.TargetID).Scan(&label, &owner, &r.Target.Moderated)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	r.Target.Label, r.Target.OwnerHandle = store.NullString(label), store.NullString(owner)
	return q.QueryRowContext(ctx, `SELECT COUNT(*) FROM reports WHERE target_type = $1 AND target_id = $2 AND status = 'open'`,
		r.TargetType, r.TargetID).Scan(&r.Target.OpenReports)
}

// FindReports implements guide.ModerationStore: a page of reports of one
// status, by reports_status_created, each with its target's summary (a
// page holds at most 100).
func (g *Guide) FindReports(ctx context.Context, f guide.ReportFilter) (_ []guide.AdminReport, _ int, err error) {
	defer store.Wrap(&err, "find %s reports", f.Status)
	w := &store.Where{}
	w.And("r.status = " + w.Arg(f.Status))
	dir := store.Direction(f.Page.Order)
	reports, total, err := store.QueryPage(ctx, g.db, "", reportColumns, reportFrom+w.String(), w,
		"r.created_at "+dir+", r.id "+dir, f.Page, func(s store.Scanner, total *int) (guide.AdminReport, error) {
			var r guide.AdminReport
			err := scanReport(s, &r, total)
			return r, err
		})
	if err != nil {
		return nil, 0, err
	}
	for i := range reports {
		if err := loadTarget(ctx, g.db, &reports[i]); err != nil {
			return nil, 0, err
		}
	}
	return reports, total, nil
}

// moderatedColumn is the table and column an action on a target type sets.
var moderatedColumn = map[string]struct{ table, column string }{
	guide.TargetReview:     {"reviews", "hidden_at"},
	guide.TargetPackage:    {"packages", "hidden_at"},
	guide.TargetTravelogue: {"travelogues", "hidden_at"},
	guide.TargetExpert:     {"experts", "suspended_at"},
}

// Moderate implements guide.ModerationStore. In one transaction: the
// target's column (the listed flags, counts and list versions follow by
// trigger); for a review, its expert's rating and count recomputed from
// the visible reviews; for a suspension, the expert's future bookings
// cancelled, each with its booking.cancelled event; the target's open
// reports resolved; the audit entry.
func (g *Guide) Moderate(ctx context.Context, m guide.Moderation) (_ *guide.ModerationResult, err error) {
	defer store.Wrap(&err, "%s %s %s", m.Action, m.TargetType, m.TargetID)
	now := g.clock.Now()
	hide := m.Hides()
	var out *guide.ModerationResult
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		t, err := findTarget(ctx, tx, m.TargetType, m.TargetID)
		if err != nil {
			return err
		}
		if err := m.Check(t.moderated); err != nil {
			return err
		}
		res := &guide.ModerationResult{Action: m.Action, TargetType: m.TargetType, TargetID: t.publicID, Moderated: hide, At: now.UTC()}
		if m.TargetType == guide.TargetReview {
			// The expert's row first, as CreateReview takes it: a review
			// written meanwhile is counted by whichever recomputes last.
			if _, err := tx.ExecContext(ctx, `UPDATE experts SET updated_at = updated_at WHERE id = $1`, t.expertID); err != nil {
				return err
			}
		}
		var value any // NULL: restore, reinstate
		cond := " IS NOT NULL"
		if hide {
			value, cond = now, " IS NULL"
		}
		c := moderatedColumn[m.TargetType]
		// #nosec G202 -- table, column and condition come from moderatedColumn and constants; values are bound.
		r, err := tx.ExecContext(ctx, `UPDATE `+c.table+` SET `+c.column+` = $1 WHERE id = $2 AND `+c.column+cond, value, t.id)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			// Moderated meanwhile: the target is as the action would make it.
			return m.Check(hide)
		}
		switch {
		case m.TargetType == guide.TargetReview:
			x := &guide.ReviewedExpert{}
			if x.Rating, x.ReviewCount, err = recomputeRating(ctx, tx, t.expertID); err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, `SELECT u.handle FROM experts e JOIN users u ON u.id = e.user_id WHERE e.id = $1`,
				t.expertID).Scan(&x.Handle); err != nil {
				return err
			}
			res.Expert = x
		case m.Action == guide.ActionSuspend:
			if res.CancelledBookings, err = g.cancelFutureBookings(ctx, tx, t.expertID, now); err != nil {
				return err
			}
		}
		if res.ResolvedReports, err = resolveReports(ctx, tx, m.AdminID, m.Action, m.TargetType, t.publicID, now); err != nil {
			return err
		}
		out = res
		return g.recordAudit(ctx, tx, m.AdminID, "moderation."+m.Action, m.TargetType, t.publicID, &m.Reason)
	})
	return out, err
}

// cancelFutureBookings cancels the expert's PENDING and CONFIRMED bookings
// that have not started, as an admin's cancel does (cancelled_by admin),
// each with the booking.cancelled event and a notification on each of its
// traveller's devices, and returns how many. A booking in progress or past is left as it is.
func (g *Guide) cancelFutureBookings(ctx context.Context, tx *sql.Tx, expertID string, now time.Time) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, status, tourist_id FROM bookings
		WHERE expert_id = $1 AND status IN ('PENDING', 'CONFIRMED') AND scheduled_date > $2
		ORDER BY scheduled_date, id`, expertID, now)
	if err != nil {
		return 0, err
	}
	type booking struct{ id, status, tourist string }
	var due []booking
	for rows.Next() {
		var b booking
		if err := rows.Scan(&b.id, &b.status, &b.tourist); err != nil {
			rows.Close()
			return 0, err
		}
		due = append(due, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, b := range due {
		if _, err := tx.ExecContext(ctx, `UPDATE bookings SET status = 'CANCELLED', updated_at = $1, cancelled_at = $1,
				cancelled_by = 'admin' WHERE id = $2`, now, b.id); err != nil {
			return 0, err
		}
		if err := g.recordBookingEvent(ctx, tx, guide.EventBookingCancelled, b.id, &b.status); err != nil {
			return 0, err
		}
		// The traveller hears of it on their devices too, from jobs
		// queued in this transaction.
		if _, err := g.enqueuePerDeviceWith(ctx, tx, b.tourist, guide.JobPushCancellation, map[string]string{"bookingId": b.id}, now); err != nil {
			return 0, err
		}
	}
	return len(due), nil
}

// resolveReports closes the target's open reports with the action that
// answered them and returns how many.
func resolveReports(ctx context.Context, tx *sql.Tx, adminID, action, typ, publicID string, now time.Time) (int, error) {
	r, err := tx.ExecContext(ctx, `UPDATE reports SET status = 'resolved', resolved_by = $1, resolution = $2, resolved_at = $3
		WHERE target_type = $4 AND target_id = $5 AND status = 'open'`, adminID, action, now, typ, publicID)
	if err != nil {
		return 0, err
	}
	n, err := r.RowsAffected()
	return int(n), err
}

// DismissReport implements guide.ModerationStore.
func (g *Guide) DismissReport(ctx context.Context, adminID, id, reason string) (_ *guide.AdminReport, err error) {
	defer store.Wrap(&err, "dismiss report %s", id)
	now := g.clock.Now()
	var out guide.AdminReport
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE reports SET status = 'dismissed', resolved_by = $1, resolution = 'dismiss', resolved_at = $2
			WHERE id = $3 AND status = 'open'`, adminID, now, id)
		if err != nil {
			return err
		}
		n, err := r.RowsAffected()
		if err != nil {
			return err
		}
		err = scanReport(tx.QueryRowContext(ctx, `SELECT `+reportColumns+reportFrom+` WHERE r.id = $1`, id), &out)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.Errorf(apperr.NotFound, "No report with id %q.", id)
		} else if err != nil {
			return err
		}
		if n == 0 {
			return out.CheckDismiss()
		}
		if err := loadTarget(ctx, tx, &out); err != nil {
			return err
		}
		return g.recordAudit(ctx, tx, adminID, "report.dismiss", "report", id, &reason)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}
