package guidedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.BookingStore = (*Guide)(nil)

// CreateBooking books a verified expert or an active package.
func (g *Guide) CreateBooking(ctx context.Context, user *guide.User, nb guide.NewBooking) (_ *guide.CreatedBooking, err error) {
	defer store.Wrap(&err, "create booking of user %s", user.ID)
	now := g.clock.Now()
	if err := nb.CheckFuture(now); err != nil {
		return nil, err
	}
	var b *guide.CreatedBooking
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		// The expert (and package) as the booking shows them are read here
		// too: the created event is built from them and the request, not
		// read back after the insert. In the transaction: on SQLite the
		// writer's page cache stays warm, where a reader's is emptied by
		// every commit.
		var e guide.BookedExpert
		var handle string
		var price sql.NullFloat64
		var currency, title, name, avatar, image sql.NullString
		var duration sql.NullInt64
		if nb.PackageID != nil {
			err := tx.QueryRowContext(ctx, `SELECT p.expert_id, u.id, p.base_price, p.currency, p.duration, p.max_participants,
					p.title, u.handle, u.name, u.avatar, e.profile_image
				FROM packages p JOIN experts e ON e.id = p.expert_id JOIN users u ON u.id = e.user_id
				WHERE p.id = $1 AND `+publicPackage, *nb.PackageID).Scan(
				&e.ExpertID, &e.UserID, &price, &currency, &duration, &e.MaxParticipants, &title, &handle, &name, &avatar, &image)
			if errors.Is(err, sql.ErrNoRows) {
				return apperr.Errorf(apperr.NotFound, "No active package with id %q.", *nb.PackageID)
			} else if err != nil {
				return err
			}
		} else {
			err := tx.QueryRowContext(ctx, `SELECT e.id, u.id, u.handle, u.name, u.avatar, e.profile_image FROM experts e JOIN users u ON u.id = e.user_id
				WHERE e.id = $1 AND `+publicExpert, *nb.ExpertID).Scan(&e.ExpertID, &e.UserID, &handle, &name, &avatar, &image)
			if errors.Is(err, sql.ErrNoRows) {
				return apperr.Errorf(apperr.NotFound, "No verified expert with id %q.", *nb.ExpertID)
			} else if err != nil {
				return err
			}
		}
		if err := nb.CheckBookable(user, e); err != nil {
			return err
		}
		// PostgreSQL keeps microseconds: stored so on both engines, the event
		// shows what a read returns.
		nb.ScheduledDate = nb.ScheduledDate.UTC().Round(time.Microsecond)
		if nb.ScheduledEndDate != nil {
			end := nb.ScheduledEndDate.UTC().Round(time.Microsecond)
			nb.ScheduledEndDate = &end
		}
		var hours *int
		if duration.Valid {
			hours = ptr(int(duration.Int64))
		}
		endsAt := guide.BookingEnd(nb.ScheduledDate, nb.ScheduledEndDate, hours)
		b = &guide.CreatedBooking{ID: store.NewID(), Status: guide.StatusPending, ScheduledDate: nb.ScheduledDate}
		// The booking as GET /bookings/{id} returns it to its traveller.
		detail := &guide.BookingDetail{ID: b.ID, Status: b.Status, ScheduledDate: nb.ScheduledDate, ScheduledEndDate: nb.ScheduledEndDate,
			Participants: nb.Participants, CustomRequest: nb.CustomRequest, MeetingLocation: nb.MeetingLocation,
			Tourist: guide.BookingTourist{Name: user.Name, Email: user.Email, Image: user.Avatar},
			Expert:  &guide.BookingExpert{Handle: handle, Name: store.NullString(name), Image: firstOf(avatar, image)}, CreatedAt: now}
		if detail.Tourist.Image == nil {
			detail.Tourist.Image = user.Image
		}
		if nb.PackageID != nil {
			detail.Package = &guide.BookingPackage{ID: *nb.PackageID, Title: title.String, Price: price.Float64, Currency: currency.String, Duration: int(duration.Int64)}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO bookings (id, tourist_id, expert_id, package_id, status, scheduled_date,
				scheduled_end_date, ends_at, participants, custom_request, meeting_location, price, currency, duration, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
			b.ID, user.ID, e.ExpertID, nb.PackageID, b.Status, nb.ScheduledDate, nb.ScheduledEndDate, endsAt, nb.Participants,
			nb.CustomRequest, nb.MeetingLocation, price, currency, duration, now)
		if err != nil {
			return fmt.Errorf("insert booking: %w", err)
		}
		if _, err := g.events.Record(ctx, tx, guide.EventBookingCreated, []string{guide.Audience(user.ID), guide.Audience(e.UserID)},
			bookingEvent{BookingDetail: detail}); err != nil {
			return err
		}
		return idempotency.RecordResult(ctx, tx, b)
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

var bookingSorts = map[string]string{"createdAt": "b.created_at", "scheduledDate": "b.scheduled_date"}

// FindBookings lists the user's bookings as traveller and as expert.
func (g *Guide) FindBookings(ctx context.Context, user *guide.User, f guide.BookingFilter) (_ []guide.BookingSummary, _ int, err error) {
	defer store.Wrap(&err, "find bookings of user %s", user.ID)
	w := &store.Where{}
	u := w.Arg(user.ID)
	w.And("(b.tourist_id = " + u + " OR eu.id = " + u + ")")
	if f.Status != "" {
		w.And("b.status = " + w.Arg(f.Status))
	}
	from := ` FROM bookings b JOIN users t ON t.id = b.tourist_id
		LEFT JOIN experts e ON e.id = b.expert_id LEFT JOIN users eu ON eu.id = e.user_id
		LEFT JOIN packages p ON p.id = b.package_id` + w.String()
	col, dir := bookingSorts[f.Sort], store.Direction(f.Order)
	if col == "" {
		col = bookingSorts["createdAt"]
	}
	return store.QueryPage(ctx, g.db, "", `b.id, b.status, b.scheduled_date, b.scheduled_end_date, b.participants,
			t.name, t.deleted_at IS NOT NULL, eu.handle, eu.name, eu.deleted_at IS NOT NULL, b.package_id, p.title, b.created_at`,
		from, w, col+` `+dir+`, b.id `+dir, f.Page,
		func(s store.Scanner, total *int) (guide.BookingSummary, error) {
			var b guide.BookingSummary
			var end sql.NullTime
			var touristName, expertHandle, expertName, packageID, packageTitle sql.NullString
			var touristGone bool
			var expertGone sql.NullBool
			if err := s.Scan(&b.ID, &b.Status, &b.ScheduledDate, &end, &b.Participants, &touristName, &touristGone,
				&expertHandle, &expertName, &expertGone, &packageID, &packageTitle, &b.CreatedAt, total); err != nil {
				return b, err
			}
			b.ScheduledDate, b.CreatedAt, b.ScheduledEndDate = b.ScheduledDate.UTC(), b.CreatedAt.UTC(), store.NullTime(end)
			b.TouristName = displayName(touristName, touristGone)
			b.ExpertHandle, b.ExpertName = store.NullString(expertHandle), displayName(expertName, expertGone.Bool)
			b.PackageID, b.PackageTitle = store.NullString(packageID), store.NullString(packageTitle)
			return b, nil
		})
}

// displayName is the name shown for a user: "Deleted User" once the
// account is closed.
func displayName(name sql.NullString, deleted bool) *string {
	if deleted {
		return ptr(guide.DeletedUserName)
	}
	return store.NullString(name)
}

// party loads how user stands to a booking, and its status.
// Errors: apperr.NotFound.
func party(ctx context.Context, q store.Querier, user *guide.User, id string) (guide.Party, string, error) {
	var status, tourist string
	var expertUser sql.NullString
	err := q.QueryRowContext(ctx, `SELECT b.status, b.tourist_id, e.user_id FROM bookings b
		LEFT JOIN experts e ON e.id = b.expert_id WHERE b.id = $1`, id).Scan(&status, &tourist, &expertUser)
	if errors.Is(err, sql.ErrNoRows) {
		return guide.Party{}, "", apperr.Errorf(apperr.NotFound, "No booking with id %q.", id)
	} else if err != nil {
		return guide.Party{}, "", err
	}
	return guide.Party{Tourist: tourist == user.ID, Expert: expertUser.Valid && expertUser.String == user.ID, Admin: user.Role == guide.RoleAdmin}, status, nil
}

// FindBookingByID returns a booking its parties and admins may see.
func (g *Guide) FindBookingByID(ctx context.Context, user *guide.User, id string) (_ *guide.BookingDetail, err error) {
	defer store.Wrap(&err, "find booking %s", id)
	p, _, err := party(ctx, g.db, user, id)
	if err != nil {
		return nil, err
	}
	if err := p.CheckAny(); err != nil {
		return nil, err
	}
	return g.bookingDetail(ctx, g.db, p, id)
}

func (g *Guide) bookingDetail(ctx context.Context, q store.Querier, p guide.Party, id string) (*guide.BookingDetail, error) {
	b, _, err := g.bookingWithAudience(ctx, q, p, id)
	return b, err
}

// bookingWithAudience is bookingDetail with the audience of the booking's
// change events (its traveller and its expert's user), read in the same
// query.
func (g *Guide) bookingWithAudience(ctx context.Context, q store.Querier, p guide.Party, id string) (*guide.BookingDetail, []string, error) {
	var b guide.BookingDetail
	var tourist string
	var expertUser sql.NullString
	var end, confirmed, completed, cancelled, reviewAt sql.NullTime
	var custom, meeting, tName, tEmail, tImage, tAvatar sql.NullString
	var eHandle, eName, eAvatar, eImage sql.NullString
	var pkgID, pkgTitle, currency, reviewID, reviewComment sql.NullString
	var price sql.NullFloat64
	var duration, reviewRating sql.NullInt64
	var tGone bool
	var eGone sql.NullBool
	var octoID, resellerRef, supplierRef sql.NullString
	err := q.QueryRowContext(ctx, `SELECT b.id, b.status, b.scheduled_date, b.scheduled_end_date, b.participants,
			b.custom_request, b.meeting_location, t.name, t.email, t.image, t.avatar, t.deleted_at IS NOT NULL,
			eu.handle, eu.name, eu.avatar, e.profile_image, eu.deleted_at IS NOT NULL,
			b.package_id, p.title, b.price, b.currency, b.duration,
			b.confirmed_at, b.completed_at, b.cancelled_at, b.created_at,
			r.id, r.rating, r.comment, r.created_at, b.tourist_id, e.user_id,
			o.id, o.reseller_reference, o.supplier_reference
		FROM bookings b JOIN users t ON t.id = b.tourist_id
		LEFT JOIN experts e ON e.id = b.expert_id LEFT JOIN users eu ON eu.id = e.user_id
		LEFT JOIN packages p ON p.id = b.package_id LEFT JOIN reviews r ON r.booking_id = b.id
		LEFT JOIN octo_bookings o ON o.booking_id = b.id
		WHERE b.id = $1`, id).Scan(&b.ID, &b.Status, &b.ScheduledDate, &end, &b.Participants,
		&custom, &meeting, &tName, &tEmail, &tImage, &tAvatar, &tGone,
		&eHandle, &eName, &eAvatar, &eImage, &eGone,
		&pkgID, &pkgTitle, &price, &currency, &duration,
		&confirmed, &completed, &cancelled, &b.CreatedAt,
		&reviewID, &reviewRating, &reviewComment, &reviewAt, &tourist, &expertUser,
		&octoID, &resellerRef, &supplierRef)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, apperr.Errorf(apperr.NotFound, "No booking with id %q.", id)
	} else if err != nil {
		return nil, nil, err
	}
	b.ScheduledDate, b.CreatedAt, b.ScheduledEndDate = b.ScheduledDate.UTC(), b.CreatedAt.UTC(), store.NullTime(end)
	b.CustomRequest, b.MeetingLocation = store.NullString(custom), store.NullString(meeting)
	b.ConfirmedAt, b.CompletedAt, b.CancelledAt = store.NullTime(confirmed), store.NullTime(completed), store.NullTime(cancelled)
	b.Tourist = guide.BookingTourist{Name: displayName(tName, tGone), Email: store.NullString(tEmail), Image: firstOf(tAvatar, tImage)}
	if tGone {
		b.Tourist = guide.BookingTourist{Name: ptr(guide.DeletedUserName)}
	}
	if eHandle.Valid {
		b.Expert = &guide.BookingExpert{Handle: eHandle.String, Name: displayName(eName, eGone.Bool), Image: firstOf(eAvatar, eImage)}
	}
	if pkgID.Valid {
		b.Package = &guide.BookingPackage{ID: pkgID.String, Title: pkgTitle.String, Price: price.Float64, Currency: currency.String, Duration: int(duration.Int64)}
	}
	if reviewID.Valid {
		b.Review = &guide.BookingReview{ID: reviewID.String, Rating: int(reviewRating.Int64), Comment: store.NullString(reviewComment), CreatedAt: reviewAt.Time.UTC()}
	}
	b.CanReview = guide.CanReview(p, b.Status, b.Expert != nil, b.Review != nil)
	if octoID.Valid {
		// The reseller is the booking's traveller account.
		b.Reseller = &guide.BookingReseller{Name: displayName(tName, tGone), Reference: store.NullString(resellerRef),
			SupplierReference: supplierRef.String, OctoUUID: octoID.String}
	}
	audience := []string{guide.Audience(tourist)}
	if expertUser.Valid {
		audience = append(audience, guide.Audience(expertUser.String))
	}
	return &b, audience, nil
}

// recomputeRating sets the expert's rating and review count from its
// visible reviews (hidden ones count for nothing), in q, the transaction
// of the change, and returns them. 0 and 0 when none is visible.
func recomputeRating(ctx context.Context, q store.Querier, expertID string) (rating float64, count int, err error) {
	err = q.QueryRowContext(ctx, `UPDATE experts SET
			rating = COALESCE((SELECT CAST(SUM(r.rating) AS DOUBLE PRECISION) / COUNT(*) FROM reviews r WHERE r.expert_id = $1 AND `+publicReview+`), 0),
			review_count = (SELECT COUNT(*) FROM reviews r WHERE r.expert_id = $1 AND `+publicReview+`)
		WHERE id = $1 RETURNING rating, review_count`, expertID).Scan(&rating, &count)
	return rating, count, err
}

func firstOf(a, b sql.NullString) *string {
	if a.Valid {
		return &a.String
	}
	return store.NullString(b)
}

// CheckTransition tells whether the user may make t on the booking now.
func (g *Guide) CheckTransition(ctx context.Context, user *guide.User, id string, t guide.Transition) (err error) {
	defer store.Wrap(&err, "check %s of booking %s", t.Name, id)
	p, status, err := party(ctx, g.db, user, id)
	if err != nil {
		return err
	}
	return t.Check(p, status)
}

// TransitionBooking moves the booking by t.
func (g *Guide) TransitionBooking(ctx context.Context, user *guide.User, id string, t guide.Transition) (_ *guide.BookingDetail, err error) {
	defer store.Wrap(&err, "%s booking %s", t.Name, id)
	var b *guide.BookingDetail
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		p, err := g.transition(ctx, tx, user, id, t)
		if err != nil {
			return err
		}
		b, err = g.bookingDetail(ctx, tx, p, id)
		return err
	})
	return b, err
}

// transition checks the rights and moves the booking in one conditional
// update: a booking that changed status in between is not moved, and the
// caller learns it with INVALID_STATE. The change event is recorded in q,
// which must be the transaction of the change.
func (g *Guide) transition(ctx context.Context, tx *sql.Tx, user *guide.User, id string, t guide.Transition) (guide.Party, error) {
	q := tx
	p, status, err := party(ctx, q, user, id)
	if err != nil {
		return p, err
	}
	if err := t.Check(p, status); err != nil {
		return p, err
	}
	now := g.clock.Now()
	if t.To == guide.StatusConfirmed {
		if err := g.checkAcceptable(ctx, tx, id, now); err != nil {
			return p, err
		}
	}
	set := "status = $1, updated_at = $2"
	args := []any{t.To, now, id}
	switch t.To {
	case guide.StatusConfirmed:
		set += ", confirmed_at = $2"
	case guide.StatusCompleted:
		set += ", completed_at = $2"
	case guide.StatusCancelled:
		set += ", cancelled_at = $2, cancelled_by = $4"
		by := "admin"
		if p.Tourist {
			by = "tourist"
		} else if p.Expert {
			by = "expert"
		}
		args = append(args, by)
	}
	from := make([]string, len(t.From))
	for i, s := range t.From {
		from[i] = "'" + s + "'"
	}
	// #nosec G202 -- only fixed column names and the transition's own statuses are concatenated; values are bound.
	res, err := q.ExecContext(ctx, `UPDATE bookings SET `+set+` WHERE id = $3 AND status IN (`+strings.Join(from, ", ")+`)`, args...)
	if err != nil {
		return p, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return p, err
	} else if n == 0 {
		_, status, err := party(ctx, q, user, id)
		if err != nil {
			return p, err
		}
		return p, t.Check(p, status)
	}
	return p, g.recordBookingEvent(ctx, q, transitionEvents[t.To], id, &status)
}

// checkAcceptable refuses to accept a booking whose time the expert is
// taken at, under the expert's row lock.
func (g *Guide) checkAcceptable(ctx context.Context, tx *sql.Tx, id string, now time.Time) error {
	var expertID sql.NullString
	var start, end time.Time
	if err := tx.QueryRowContext(ctx, `SELECT expert_id, scheduled_date, ends_at FROM bookings WHERE id = $1`, id).Scan(&expertID, &start, &end); err != nil {
		return err
	}
	if !expertID.Valid {
		return nil
	}
	if err := g.lockExpert(ctx, tx, expertID.String); err != nil {
		return err
	}
	return checkFree(ctx, tx, expertID.String, start, end, now, id, "")
}

// CreateReview reviews a completed booking. The expert row is locked
// first, so that concurrent reviews of one expert recompute the rating in
// turn, each from every review committed before it.
func (g *Guide) CreateReview(ctx context.Context, user *guide.User, bookingID string, rating int, comment *string) (_ *guide.CreatedReview, err error) {
	defer store.Wrap(&err, "review booking %s", bookingID)
	var out *guide.CreatedReview
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		var status, tourist string
		var expertID sql.NullString
		var reviewed bool
		err := tx.QueryRowContext(ctx, `SELECT b.status, b.tourist_id, b.expert_id,
				EXISTS (SELECT 1 FROM reviews r WHERE r.booking_id = b.id)
			FROM bookings b WHERE b.id = $1`, bookingID).Scan(&status, &tourist, &expertID, &reviewed)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.Errorf(apperr.NotFound, "No booking with id %q.", bookingID)
		} else if err != nil {
			return err
		}
		if err := guide.CheckReview(guide.Party{Tourist: tourist == user.ID}, status, expertID.Valid, reviewed); err != nil {
			return err
		}
		now := g.clock.Now()
		if _, err := tx.ExecContext(ctx, `UPDATE experts SET updated_at = $1 WHERE id = $2`, now, expertID.String); err != nil {
			return err
		}
		r := &guide.CreatedReview{ID: store.NewID(), Rating: rating, Comment: comment, CreatedAt: now}
		_, err = tx.ExecContext(ctx, `INSERT INTO reviews (id, booking_id, expert_id, author_id, rating, comment, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, r.ID, bookingID, expertID.String, user.ID, rating, comment, now)
		if store.IsUniqueViolation(err) {
			return guide.ErrBookingReviewed
		} else if err != nil {
			return err
		}
		r.Expert.Rating, r.Expert.ReviewCount, err = recomputeRating(ctx, tx, expertID.String)
		if err != nil {
			return fmt.Errorf("recompute rating of expert %s: %w", expertID.String, err)
		}
		var expertUser string
		if err := tx.QueryRowContext(ctx, `SELECT user_id FROM experts WHERE id = $1`, expertID.String).Scan(&expertUser); err != nil {
			return err
		}
		ev := struct {
			*guide.CreatedReview
			BookingID string `json:"bookingId"`
		}{r, bookingID}
		if _, err := g.events.Record(ctx, tx, guide.EventReviewCreated, []string{guide.Audience(user.ID), guide.Audience(expertUser)}, ev); err != nil {
			return err
		}
		out = r
		return idempotency.RecordResult(ctx, tx, r)
	})
	return out, err
}
