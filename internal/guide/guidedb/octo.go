package guidedb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.OctoStore = (*Guide)(nil)

// An expert is one person: the time a booking or a hold takes is checked
// against every other claim on it in the transaction that makes the
// claim, after the expert's row lock (lockExpert). Writers take their
// locks in one order: experts (by id when two), then octo_bookings, then
// bookings. On SQLite the single writer runs one transaction at a time.

// lockExpert takes the expert's row lock, which every claim on the
// expert's time takes before checking for an overlap.
func (g *Guide) lockExpert(ctx context.Context, tx *sql.Tx, expertID string) error {
	if g.db.Engine != store.Postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT 1 FROM experts WHERE id = $1 FOR UPDATE`, expertID)
	return err
}

// forUpdate is the row lock clause of a read that is followed by a write
// of the row: on SQLite the writer holds the database already.
func (g *Guide) forUpdate() string {
	if g.db.Engine == store.Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// busyTime returns the expert's taken time overlapping [from, to), as of
// now: confirmed and started bookings, pending bookings a reseller
// confirmed, and live holds of live keys; exceptBooking and exceptHold
// leave out the claim being changed ("" for none). The bookings' and the
// holds' conditions repeat the partial indexes' own.
func busyTime(ctx context.Context, q store.Querier, expertID string, from, to, now time.Time, exceptBooking, exceptHold string, limit int) ([]guide.Interval, error) {
	rows, err := q.QueryContext(ctx, `SELECT b.scheduled_date, b.ends_at FROM bookings b
		WHERE b.expert_id = $1 AND b.status IN ('PENDING', 'CONFIRMED', 'IN_PROGRESS') AND b.ends_at > $2 AND b.scheduled_date < $3
			AND (b.status <> 'PENDING' OR EXISTS (SELECT 1 FROM octo_bookings r WHERE r.booking_id = b.id)) AND b.id <> $5
		UNION ALL
		SELECT o.starts_at, o.ends_at FROM octo_bookings o
		WHERE o.expert_id = $1 AND o.status = 'ON_HOLD' AND o.test_mode = FALSE AND o.ends_at > $2 AND o.starts_at < $3
			AND o.expires_at > $4 AND o.id <> $6
		LIMIT $7`, expertID, from.UTC(), to.UTC(), now.UTC(), exceptBooking, exceptHold, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []guide.Interval
	for rows.Next() {
		var i guide.Interval
		if err := rows.Scan(&i.Start, &i.End); err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, rows.Err()
}

// checkFree refuses a claim on [start, end) when the expert is taken at
// an overlapping time (apperr.Conflict). The caller holds the expert's
// row lock.
func checkFree(ctx context.Context, q store.Querier, expertID string, start, end, now time.Time, exceptBooking, exceptHold string) error {
	busy, err := busyTime(ctx, q, expertID, start, end, now, exceptBooking, exceptHold, 1)
	if err != nil {
		return err
	}
	if len(busy) > 0 {
		return apperr.Errorf(apperr.Conflict, "The expert is already booked or held from %s to %s; choose a time that does not overlap.",
			busy[0].Start.UTC().Format(time.RFC3339), busy[0].End.UTC().Format(time.RFC3339))
	}
	return nil
}

// FindExpertBusy returns the time the expert is taken in [from, to).
func (g *Guide) FindExpertBusy(ctx context.Context, expertID string, from, to time.Time) (_ []guide.Interval, err error) {
	defer store.Wrap(&err, "find busy time of expert %s", expertID)
	return busyTime(ctx, g.db, expertID, from, to, g.clock.Now(), "", "", 10000)
}

// FindOctoProducts returns the listed packages with their experts'
// schedules.
func (g *Guide) FindOctoProducts(ctx context.Context, locale, id string) (_ []guide.OctoProduct, err error) {
	defer store.Wrap(&err, "find OCTO products")
	w := &store.Where{}
	w.Arg(locale)
	w.And(publicPackage)
	if id != "" {
		w.And("p.id = " + w.Arg(id))
	}
	rows, err := g.db.QueryContext(ctx, `SELECT `+packageColumns+`, COALESCE(t.excluded, p.excluded),
			e.id, e.user_id, e.timezone, e.weekly_schedule, e.blocked_dates`+packageFrom+`$1`+w.String()+`
		ORDER BY p.created_at, p.id`, w.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []guide.OctoProduct{}
	for rows.Next() {
		var p guide.OctoProduct
		var excluded, schedule, blocked []byte
		if err := scanPackage(rows, &p.Package.PackageSummary, &excluded, &p.ExpertID, &p.ExpertUserID, &p.Timezone, &schedule, &blocked); err != nil {
			return nil, err
		}
		p.Package.Excluded = store.StringList(excluded)
		if err := json.Unmarshal(store.RawJSON(schedule, "{}"), &p.Schedule); err != nil {
			return nil, fmt.Errorf("schedule of expert %s: %w", p.ExpertID, err)
		}
		if err := json.Unmarshal(store.RawJSON(blocked, "[]"), &p.Blocked); err != nil {
			return nil, fmt.Errorf("blocked dates of expert %s: %w", p.ExpertID, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// octoColumns are the columns scanOcto reads, from octo_bookings o, its
// expert e and package p, and its marketplace booking b.
const octoColumns = `o.id, o.test_mode, o.reseller_reference, o.supplier_reference, o.status, o.package_id, o.availability_id,
	o.starts_at, o.ends_at, e.timezone, o.unit_items, o.contact, o.notes, o.created_at, o.updated_at, o.expires_at,
	o.confirmed_at, o.cancelled_at, o.cancellation_reason, o.booking_id,
	b.status, b.completed_at, b.cancelled_at, b.cancelled_by, b.confirmed_at`

const octoFrom = ` FROM octo_bookings o JOIN experts e ON e.id = o.expert_id LEFT JOIN bookings b ON b.id = o.booking_id`

// octoVisible leaves out test bookings past their retention: they are
// gone for their reseller even before the purge deletes them. Its
// placeholder is $3.
const octoVisible = `(o.test_mode = FALSE OR o.created_at > $3)`

func scanOcto(s store.Scanner) (*guide.OctoBooking, error) {
	var b guide.OctoBooking
	var ref, notes, reason, bookingID, mStatus, mCancelledBy sql.NullString
	var units, contact []byte
	var expires, confirmed, cancelled, mCompleted, mCancelled, mConfirmed sql.NullTime
	if err := s.Scan(&b.UUID, &b.TestMode, &ref, &b.SupplierReference, &b.Status, &b.ProductID, &b.AvailabilityID,
		&b.Start, &b.End, &b.Timezone, &units, &contact, &notes, &b.CreatedAt, &b.UpdatedAt, &expires,
		&confirmed, &cancelled, &reason, &bookingID, &mStatus, &mCompleted, &mCancelled, &mCancelledBy, &mConfirmed); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(units, &b.UnitItems); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(contact, &b.Contact); err != nil {
		return nil, err
	}
	b.Start, b.End, b.CreatedAt, b.UpdatedAt = b.Start.UTC(), b.End.UTC(), b.CreatedAt.UTC(), b.UpdatedAt.UTC()
	b.ResellerReference, b.Notes, b.BookingID = store.NullString(ref), store.NullString(notes), store.NullString(bookingID)
	b.ConfirmedAt = utcTime(confirmed)
	switch {
	case b.Status == guide.OctoOnHold:
		b.ExpiresAt = utcTime(expires)
	case b.Status == guide.OctoCancelled:
		b.Cancellation = &guide.OctoCancellation{Refund: "FULL", Reason: store.NullString(reason), CancelledAt: cancelled.Time.UTC()}
	case !mStatus.Valid: // a test booking, which no expert sees
		b.Status = guide.OctoPending
	default:
		b.Status = guide.OctoBookedStatus(mStatus.String, mConfirmed.Valid, mCancelledBy.String)
		if b.Status == guide.OctoRedeemed {
			b.RedeemedAt = utcTime(mCompleted)
		}
		if mCancelled.Valid {
			b.Cancellation = &guide.OctoCancellation{Refund: "FULL", Reason: store.NullString(reason), CancelledAt: mCancelled.Time.UTC()}
		}
	}
	return &b, nil
}

func utcTime(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.Time.UTC()
	return &u
}

// loadOcto reads a booking of the reseller in q.
func (g *Guide) loadOcto(ctx context.Context, q store.Querier, userID string, test bool, id string) (*guide.OctoBooking, error) {
	b, err := scanOcto(q.QueryRowContext(ctx, `SELECT `+octoColumns+octoFrom+`
		WHERE o.id = $1 AND o.user_id = $2 AND `+octoVisible+` AND o.test_mode = $4`, id, userID, g.testCutoff(), test))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No booking with uuid %q.", id)
	}
	return b, err
}

func (g *Guide) testCutoff() time.Time { return g.clock.Now().UTC().Add(-guide.OctoTestRetention) }

// FindOctoBooking returns a booking of the reseller.
func (g *Guide) FindOctoBooking(ctx context.Context, userID string, test bool, id string) (_ *guide.OctoBooking, err error) {
	defer store.Wrap(&err, "find OCTO booking %s", id)
	return g.loadOcto(ctx, g.db, userID, test, id)
}

// FindOctoBookings returns the reseller's bookings with the references.
func (g *Guide) FindOctoBookings(ctx context.Context, userID string, test bool, resellerRef, supplierRef string) (_ []guide.OctoBooking, err error) {
	defer store.Wrap(&err, "find OCTO bookings of user %s", userID)
	w := &store.Where{}
	w.And("o.user_id = " + w.Arg(userID))
	w.And("o.test_mode = " + w.Arg(test))
	w.Arg(g.testCutoff())
	w.And(octoVisible)
	if resellerRef != "" {
		w.And("o.reseller_reference = " + w.Arg(resellerRef))
	}
	if supplierRef != "" {
		w.And("o.supplier_reference = " + w.Arg(supplierRef))
	}
	rows, err := g.db.QueryContext(ctx, `SELECT `+octoColumns+octoFrom+w.String()+` ORDER BY o.created_at DESC, o.id DESC LIMIT 100`, w.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []guide.OctoBooking{}
	for rows.Next() {
		b, err := scanOcto(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *b)
	}
	return out, rows.Err()
}

// supplierReference is a short code a traveller can read out: 10
// characters of an alphabet without look-alikes.
func supplierReference() string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 10)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "WF" + string(b)
}

// Reserve places a hold, or finds the one an identical reserve placed,
// and records it as the answer of the Idempotency-Key claim in ctx in the
// same transaction.
func (g *Guide) Reserve(ctx context.Context, h guide.OctoHold) (_ *guide.OctoBooking, err error) {
	defer store.Wrap(&err, "reserve for user %s", h.UserID)
	var out *guide.OctoBooking
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		// Concurrent reserves of one expert, even of the same request, run
		// one after the other from here: the later sees the earlier.
		if err := g.lockExpert(ctx, tx, h.Product.ExpertID); err != nil {
			return err
		}
		now := g.clock.Now().UTC()
		if id, err := g.sameReserve(ctx, tx, h, now); err != nil || id != "" {
			if err == nil {
				out, err = g.loadOcto(ctx, tx, h.UserID, h.TestMode, id)
			}
			if err != nil {
				return err
			}
			return idempotency.RecordResult(ctx, tx, out)
		}
		// A test hold takes no time (checkFree counts only live keys' holds)
		// but, as a live one, may not take a start the expert is taken at.
		if err := checkFree(ctx, tx, h.Product.ExpertID, h.Start, h.End, now, "", ""); err != nil {
			return err
		}
		units, err1 := json.Marshal(h.UnitItems)
		contact, err2 := json.Marshal(h.Contact)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO octo_bookings (id, user_id, test_mode, supplier_reference, reseller_reference,
				request_hash, package_id, expert_id, starts_at, ends_at, availability_id, unit_items, contact, notes,
				status, expires_at, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'ON_HOLD', $15, $16, $16)`,
			h.UUID, h.UserID, h.TestMode, supplierReference(), h.ResellerReference, h.RequestHash,
			h.Product.Package.ID, h.Product.ExpertID, h.Start, h.End, h.AvailabilityID, string(units), string(contact), h.Notes,
			h.ExpiresAt, now.Truncate(time.Second))
		if store.IsUniqueViolation(err) {
			return apperr.Field("uuid", "is used by another booking")
		} else if err != nil {
			return err
		}
		if out, err = g.loadOcto(ctx, tx, h.UserID, h.TestMode, h.UUID); err != nil {
			return err
		}
		return idempotency.RecordResult(ctx, tx, out)
	})
	return out, err
}

// sameReserve finds the hold an earlier identical reserve placed: by the
// uuid, else by the reseller's reference while that hold is live. It
// refuses a uuid sent before with another request (apperr.Validation).
// The idempotency_key column is no longer written: the previous release
// still reads it while a fleet rolls onto this one, and the next drops it.
func (g *Guide) sameReserve(ctx context.Context, tx *sql.Tx, h guide.OctoHold, now time.Time) (string, error) {
	var id, hash, user string
	var test bool
	err := tx.QueryRowContext(ctx, `SELECT user_id, request_hash, test_mode FROM octo_bookings WHERE id = $1`, h.UUID).Scan(&user, &hash, &test)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return "", err
	case user != h.UserID || hash != h.RequestHash || test != h.TestMode:
		return "", apperr.Field("uuid", "is used by another booking")
	default:
		return h.UUID, nil
	}
	if h.ResellerReference == nil {
		return "", nil
	}
	err = tx.QueryRowContext(ctx, `SELECT id FROM octo_bookings WHERE user_id = $1 AND reseller_reference = $2 AND request_hash = $3
			AND test_mode = $4 AND status = 'ON_HOLD' AND expires_at > $5 ORDER BY created_at DESC LIMIT 1`,
		h.UserID, *h.ResellerReference, h.RequestHash, h.TestMode, now).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// octoRow is what a change needs of a booking before it changes it.
type octoRow struct {
	expertID  string
	state     guide.OctoState
	bookingID sql.NullString
	notes     sql.NullString
}

func (g *Guide) octoRow(ctx context.Context, q store.Querier, userID string, test bool, id, lock string) (*octoRow, error) {
	var r octoRow
	var expires sql.NullTime
	err := q.QueryRowContext(ctx, `SELECT o.expert_id, o.status, o.expires_at, o.booking_id, o.starts_at, o.notes FROM octo_bookings o
		WHERE o.id = $1 AND o.user_id = $2 AND `+octoVisible+` AND o.test_mode = $4`+lock, id, userID, g.testCutoff(), test).
		Scan(&r.expertID, &r.state.Status, &expires, &r.bookingID, &r.state.Start, &r.notes)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No booking with uuid %q.", id)
	}
	r.state.ExpiresAt = utcTime(expires)
	return &r, err
}

// ChangeOcto applies a change to a booking.
func (g *Guide) ChangeOcto(ctx context.Context, userID string, test bool, id string, ch guide.OctoChange) (_ *guide.OctoBooking, err error) {
	defer store.Wrap(&err, "change OCTO booking %s", id)
	var out *guide.OctoBooking
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		r, err := g.octoRow(ctx, tx, userID, test, id, "")
		if err != nil {
			return err
		}
		if ch.Confirm || ch.Move != nil {
			experts := []string{r.expertID}
			if ch.Move != nil && ch.Move.Product.ExpertID != r.expertID {
				experts = append(experts, ch.Move.Product.ExpertID)
			}
			slices.Sort(experts)
			for _, e := range experts {
				if err := g.lockExpert(ctx, tx, e); err != nil {
					return err
				}
			}
		}
		if r, err = g.octoRow(ctx, tx, userID, test, id, g.forUpdate()); err != nil {
			return err
		}
		now := g.clock.Now().UTC()
		if same, err := guide.CheckOctoChange(r.state, ch, now); err != nil || same {
			if err == nil {
				out, err = g.loadOcto(ctx, tx, userID, test, id)
			}
			return err
		}
		var cols []string
		var vals []any
		args := func(col string, v any) {
			vals = append(vals, v)
			cols = append(cols, col+" = $"+strconv.Itoa(len(vals)))
		}
		if m := ch.Move; m != nil {
			if err := checkFree(ctx, tx, m.Product.ExpertID, m.Start, m.End, now, "", id); err != nil {
				return err
			}
			args("package_id", m.Product.Package.ID)
			args("expert_id", m.Product.ExpertID)
			args("starts_at", m.Start)
			args("ends_at", m.End)
			args("availability_id", m.AvailabilityID)
		}
		if ch.ResellerReference != nil {
			args("reseller_reference", *ch.ResellerReference)
		}
		if ch.Contact != nil {
			b, err := json.Marshal(ch.Contact)
			if err != nil {
				return err
			}
			args("contact", string(b))
		}
		if ch.NotesSet {
			args("notes", ch.Notes)
			r.notes = sql.NullString{String: *ch.Notes, Valid: true}
		}
		if ch.UnitItems != nil {
			b, err := json.Marshal(ch.UnitItems)
			if err != nil {
				return err
			}
			args("unit_items", string(b))
			if r.bookingID.Valid {
				if _, err := tx.ExecContext(ctx, `UPDATE bookings SET participants = $1, updated_at = $2
					WHERE id = $3 AND status IN ('PENDING', 'CONFIRMED')`, len(ch.UnitItems), now, r.bookingID.String); err != nil {
					return err
				}
			}
		}
		if ch.ExpiresAt != nil {
			args("expires_at", *ch.ExpiresAt)
		}
		if ch.Confirm {
			args("status", guide.OctoConfirmed)
			args("expires_at", nil)
			args("confirmed_at", now.Truncate(time.Second))
		}
		args("updated_at", now.Truncate(time.Second))
		vals = append(vals, id)
		// #nosec G202 -- only fixed column names and placeholders are concatenated; values are bound.
		if _, err := tx.ExecContext(ctx, `UPDATE octo_bookings SET `+strings.Join(cols, ", ")+` WHERE id = $`+strconv.Itoa(len(vals)), vals...); err != nil {
			return err
		}
		if ch.Confirm && !test {
			if err := g.bookHold(ctx, tx, userID, id, now); err != nil {
				return err
			}
		}
		out, err = g.loadOcto(ctx, tx, userID, test, id)
		return err
	})
	return out, err
}

// bookHold makes the marketplace booking of a confirmed hold: the
// reseller's booking of the expert's package, PENDING until the expert
// accepts, with its booking.created event.
func (g *Guide) bookHold(ctx context.Context, tx *sql.Tx, userID, id string, now time.Time) error {
	bookingID := store.NewID()
	// #nosec G202 -- only a fixed SQL function of a fixed column is concatenated; values are bound.
	_, err := tx.ExecContext(ctx, `INSERT INTO bookings (id, tourist_id, expert_id, package_id, status, scheduled_date,
			scheduled_end_date, ends_at, participants, custom_request, price, currency, duration, created_at, updated_at)
		SELECT $1, o.user_id, o.expert_id, o.package_id, 'PENDING', o.starts_at, o.ends_at, o.ends_at,
			`+jsonArrayLength(g.db.Engine, "o.unit_items")+`, o.notes, p.base_price, p.currency, p.duration, $2, $2
		FROM octo_bookings o JOIN packages p ON p.id = o.package_id WHERE o.id = $3`, bookingID, now, id)
	if err != nil {
		return fmt.Errorf("insert booking: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE octo_bookings SET booking_id = $1 WHERE id = $2`, bookingID, id); err != nil {
		return err
	}
	return g.recordBookingEvent(ctx, tx, guide.EventBookingCreated, bookingID, nil)
}

// jsonArrayLength is the SQL of the length of a JSON array column.
func jsonArrayLength(engine store.Engine, col string) string {
	if engine == store.Postgres {
		return "jsonb_array_length(" + col + ")"
	}
	return "json_array_length(" + col + ")"
}

// CancelOcto cancels a hold or a confirmed booking.
func (g *Guide) CancelOcto(ctx context.Context, userID string, test bool, id string, reason *string) (_ *guide.OctoBooking, err error) {
	defer store.Wrap(&err, "cancel OCTO booking %s", id)
	var out *guide.OctoBooking
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		r, err := g.octoRow(ctx, tx, userID, test, id, g.forUpdate())
		if err != nil {
			return err
		}
		now := g.clock.Now().UTC()
		var previous string
		if r.bookingID.Valid {
			// The marketplace booking says the status from now on.
			if err := tx.QueryRowContext(ctx, `SELECT status FROM bookings WHERE id = $1`+g.forUpdate(), r.bookingID.String).Scan(&previous); err != nil {
				return err
			}
			r.state.BookingStatus = previous
		}
		if err := guide.CheckOctoCancel(r.state, now); err != nil {
			return err
		}
		if r.bookingID.Valid {
			if _, err := tx.ExecContext(ctx, `UPDATE bookings SET status = 'CANCELLED', cancelled_at = $1, cancelled_by = 'tourist', updated_at = $1
				WHERE id = $2`, now, r.bookingID.String); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE octo_bookings SET cancellation_reason = $1, cancelled_at = $2, updated_at = $2 WHERE id = $3`,
				reason, now.Truncate(time.Second), id); err != nil {
				return err
			}
			if err := g.recordBookingEvent(ctx, tx, guide.EventBookingCancelled, r.bookingID.String, &previous); err != nil {
				return err
			}
		} else if _, err := tx.ExecContext(ctx, `UPDATE octo_bookings SET status = 'CANCELLED', cancellation_reason = $1, cancelled_at = $2,
				expires_at = NULL, updated_at = $2 WHERE id = $3`, reason, now.Truncate(time.Second), id); err != nil {
			return err
		}
		out, err = g.loadOcto(ctx, tx, userID, test, id)
		return err
	})
	return out, err
}

// PurgeOctoTestBookings deletes the test bookings past their retention.
func (g *Guide) PurgeOctoTestBookings(ctx context.Context) (_ int, err error) {
	defer store.Wrap(&err, "purge OCTO test bookings")
	res, err := g.db.ExecContext(ctx, `DELETE FROM octo_bookings WHERE test_mode = TRUE AND created_at <= $1`, g.testCutoff())
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
