package propertydb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/property"
)

// Never overselling rests on one statement per night: a unit is claimed
// by
//
//	UPDATE calendar SET held = held + 1
//	WHERE room_type_id = $1 AND night = $2 AND closed = FALSE AND sold + held < total_units
//
// and the claim counts only when it changed the row. On SQLite writers
// run one at a time (transactions begin IMMEDIATE). On PostgreSQL, under
// READ COMMITTED, a second claim of the same night waits for the first's
// row lock and then evaluates its condition again against the committed
// counters, so of two claims of the last unit one changes the row and the
// other changes nothing. Every night of a stay is claimed in one
// transaction, and a night that cannot be claimed rolls all back.
//
// Every writer of the calendar takes its nights' row locks in one global
// order, room type then date (lockNights), before it changes them, so that
// two transactions never wait on each other's nights: a multi-row UPDATE
// locks rows in the order its plan reads them, which is the heap's order
// under a bitmap or sequential scan, not the date's. Quotes, bookings,
// cancellations, released holds, calendar pushes and room type deletions
// all do.
//
// A quote's hold counts in held until the quote is booked (the hold turns
// into a sale), or expires and is released. Reads of availability never
// count an expired hold; the counters forget it when ReleaseExpiredHolds
// or a claim that found the night full releases it, each quote in a
// transaction of its own that first marks it expired with a conditional
// update, so that no hold is released twice.

// propStayCalendar returns the room type's calendar for the nights of the stay
// and its check-out day.
func propStayCalendar(ctx context.Context, q store.Querier, inv propInventory, test bool, now time.Time, roomTypeID string, checkIn, checkOut property.Date) (map[property.Date]property.CalendarNight, error) {
	rows, err := q.QueryContext(ctx, `SELECT c.night, c.price, c.min_stay, c.closed, c.closed_to_arrival, c.closed_to_departure,
			`+inv.available("$4", "$5")+`
		FROM calendar c WHERE c.room_type_id = $1 AND c.night >= $2 AND c.night <= $3`, roomTypeID, checkIn, checkOut, test, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[property.Date]property.CalendarNight{}
	for rows.Next() {
		var n property.CalendarNight
		if err := rows.Scan(&n.Date, &n.Price, &n.MinStay, &n.Closed, &n.ClosedToArrival, &n.ClosedToDeparture, &n.Available); err != nil {
			return nil, err
		}
		out[n.Date] = n
	}
	return out, rows.Err()
}

// lockNights takes the row locks of the room type's nights from from up
// to (not including) to, in date order, on PostgreSQL; see the comment at
// the top of this file. Zero dates leave that end open. On SQLite writers
// run one at a time and take no row locks.
func (s *Property) lockNights(ctx context.Context, tx *sql.Tx, roomTypeID string, from, to property.Date) error {
	if s.db.Engine != store.Postgres {
		return nil
	}
	w := &store.Where{}
	w.And("room_type_id = " + w.Arg(roomTypeID))
	if !from.IsZero() {
		w.And("night >= " + w.Arg(from))
	}
	if !to.IsZero() {
		w.And("night < " + w.Arg(to))
	}
	// #nosec G202 -- only placeholders and fixed column names are concatenated; values are bound.
	rows, err := tx.QueryContext(ctx, `SELECT night FROM calendar`+w.String()+` ORDER BY night FOR UPDATE`, w.Args...)
	if err != nil {
		return err
	}
	return errors.Join(rows.Close(), rows.Err())
}

// propStay is a checked stay request with what pricing it needs.
type propStay struct {
	p         *propertyRow
	rt        property.RoomType
	req       property.StayRequest
	policy    property.CancellationPolicy
	checkInAt time.Time
}

// loadPropStay checks that the property and room type exist and that the
// dates are acceptable in the property's time zone.
func (s *Property) loadPropStay(ctx context.Context, acct property.Account, req property.StayRequest) (*propStay, error) {
	p, rt, err := s.loadSoldRoom(ctx, acct, req.PropertyID, req.RoomTypeID)
	if err != nil {
		return nil, err
	}
	if err := property.CheckDates(req.CheckIn, req.CheckOut, property.LocalToday(s.clock.Now(), p.timezone)); err != nil {
		return nil, err
	}
	policy, ok := property.Policy(p.policy)
	if !ok {
		return nil, fmt.Errorf("property %s: unknown cancellation policy %q", p.id, p.policy)
	}
	at, err := property.CheckInInstant(req.CheckIn, p.checkInTime, p.timezone)
	if err != nil {
		return nil, err
	}
	return &propStay{p: p, rt: rt, req: req, policy: policy, checkInAt: at}, nil
}

// propClaim checks the stay against the calendar and takes one unit of every
// night into column (the held or sold counter of inv), returning the
// nightly prices. Errors: apperr.StayUnavailable.
func (s *Property) propClaim(ctx context.Context, tx *sql.Tx, now time.Time, test bool, st *propStay, column string) ([]property.NightlyPrice, error) {
	inv := propInventoryOf(test)
	if err := s.lockNights(ctx, tx, st.rt.ID, st.req.CheckIn, st.req.CheckOut); err != nil {
		return nil, err
	}
	cal, err := propStayCalendar(ctx, tx, inv, test, now, st.rt.ID, st.req.CheckIn, st.req.CheckOut)
	if err != nil {
		return nil, err
	}
	if err := property.CheckStay(st.rt, st.req.Guests, st.req.CheckIn, st.req.CheckOut, cal); err != nil {
		return nil, err
	}
	// Every night in one statement; a night it did not take was full (or
	// closed) by the time of the update, and the transaction rolls back.
	// #nosec G202 -- only fixed table and column names are concatenated; values are bound.
	rows, err := tx.QueryContext(ctx, `UPDATE calendar SET `+column+` = `+column+` + 1
		WHERE room_type_id = $1 AND night >= $2 AND night < $3 AND closed = FALSE AND `+inv.sold+` + `+inv.held+` < total_units
		RETURNING night`, st.rt.ID, st.req.CheckIn, st.req.CheckOut)
	if err != nil {
		return nil, err
	}
	taken := map[property.Date]bool{}
	for rows.Next() {
		var d property.Date
		if err := rows.Scan(&d); err != nil {
			rows.Close()
			return nil, err
		}
		taken[d] = true
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	var nightly []property.NightlyPrice
	for d := st.req.CheckIn; d.Before(st.req.CheckOut); d = d.AddDays(1) {
		if !taken[d] {
			return nil, property.SoldOut(st.rt.Name, d)
		}
		nightly = append(nightly, property.NightlyPrice{Date: d, Price: property.Money{Amount: cal[d].Price, Currency: st.p.currency}})
	}
	return nightly, nil
}

// propClaimInTx runs fn, which claims the stay's nights, in a transaction. When
// a night was full only because of holds that have expired but are not yet
// released, it releases them and tries once more.
func (s *Property) propClaimInTx(ctx context.Context, test bool, st *propStay, fn func(tx *sql.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := s.db.InTx(ctx, fn)
		var e *apperr.Error
		if attempt == 0 && errors.As(err, &e) && e.Code == apperr.StayUnavailable && e.Details["reason"] == property.ReasonSoldOut {
			n, rerr := s.releaseExpired(ctx, &propHoldScope{roomTypeID: st.rt.ID, test: test, checkIn: st.req.CheckIn, checkOut: st.req.CheckOut})
			if rerr != nil {
				return rerr
			}
			if n > 0 {
				continue
			}
		}
		return err
	}
}

func propTotal(nightly []property.NightlyPrice, currency string) property.Money {
	t := property.Money{Currency: currency}
	for _, n := range nightly {
		t.Amount += n.Price.Amount
	}
	return t
}

func propJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// CreateQuote prices the stay and holds one unit for every night.
func (s *Property) CreateQuote(ctx context.Context, acct property.Account, req property.StayRequest, ttl time.Duration) (_ *property.Quote, err error) {
	defer store.Wrap(&err, "quote room type %s", req.RoomTypeID)
	st, err := s.loadPropStay(ctx, acct, req)
	if err != nil {
		return nil, err
	}
	var q *property.Quote
	err = s.propClaimInTx(ctx, acct.Test, st, func(tx *sql.Tx) error {
		now := s.clock.Now()
		nightly, err := s.propClaim(ctx, tx, now, acct.Test, st, propInventoryOf(acct.Test).held)
		if err != nil {
			return err
		}
		q = &property.Quote{
			ID: store.NewID(), PropertyID: st.p.id, RoomTypeID: st.rt.ID, CheckIn: req.CheckIn, CheckOut: req.CheckOut,
			Nights: len(nightly), Guests: req.Guests, Nightly: nightly, Total: propTotal(nightly, st.p.currency),
			CancellationPolicy: st.policy, FreeCancellationUntil: st.policy.FreeCancellationUntil(st.checkInAt),
			ExpiresAt: now.Add(ttl), Test: acct.Test, CreatedAt: now,
		}
		nj, err1 := propJSON(q.Nightly)
		pj, err2 := propJSON(q.CancellationPolicy)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO quotes (id, developer_id, test, property_id, room_type_id, check_in, check_out,
				guests, nightly, total, currency, cancellation_policy, check_in_at, status, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'held', $14, $15)`,
			q.ID, acct.DeveloperID, acct.Test, q.PropertyID, q.RoomTypeID, q.CheckIn, q.CheckOut, q.Guests, nj,
			q.Total.Amount, q.Total.Currency, pj, st.checkInAt, q.ExpiresAt, now)
		if err != nil {
			return err
		}
		return idempotency.RecordResult(ctx, tx, q)
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// CreateBooking books a quote or a stay.
func (s *Property) CreateBooking(ctx context.Context, acct property.Account, nb property.NewBooking) (_ *property.Booking, err error) {
	defer store.Wrap(&err, "create booking of developer %s", acct.DeveloperID)
	if nb.QuoteID != "" {
		return s.bookQuote(ctx, acct, nb)
	}
	if nb.Stay == nil {
		return nil, apperr.Field("quoteId", "quoteId or the stay (propertyId, roomTypeId, checkIn, checkOut, guests) is required")
	}
	st, err := s.loadPropStay(ctx, acct, *nb.Stay)
	if err != nil {
		return nil, err
	}
	var b *property.Booking
	err = s.propClaimInTx(ctx, acct.Test, st, func(tx *sql.Tx) error {
		now := s.clock.Now()
		nightly, err := s.propClaim(ctx, tx, now, acct.Test, st, propInventoryOf(acct.Test).sold)
		if err != nil {
			return err
		}
		b, err = s.insertPropertyBooking(ctx, tx, store.NewID(), acct, nb, st.req, nightly, propTotal(nightly, st.p.currency), st.policy, st.checkInAt, nil, now)
		return err
	})
	return b, err
}

// insertPropertyBooking writes a booking, its booking.created event and
// records it as the answer of the request's Idempotency-Key, in tx.
func (s *Property) insertPropertyBooking(ctx context.Context, tx *sql.Tx, id string, acct property.Account, nb property.NewBooking, req property.StayRequest,
	nightly []property.NightlyPrice, tot property.Money, policy property.CancellationPolicy, checkInAt time.Time, quoteID *string, now time.Time) (*property.Booking, error) {
	gj, err1 := propJSON(nb.Guest)
	nj, err2 := propJSON(nightly)
	pj, err3 := propJSON(policy)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO bookings (id, developer_id, test, status, property_id, room_type_id, check_in, check_out,
			nights, guests, guest, nightly, total, currency, cancellation_policy, check_in_at, special_requests, external_reference,
			quote_id, created_at, updated_at)
		VALUES ($1, $2, $3, 'CONFIRMED', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19)`,
		id, acct.DeveloperID, acct.Test, req.PropertyID, req.RoomTypeID, req.CheckIn, req.CheckOut, len(nightly), req.Guests,
		gj, nj, tot.Amount, tot.Currency, pj, checkInAt, nb.SpecialRequests, nb.ExternalReference, quoteID, now)
	if err != nil {
		return nil, fmt.Errorf("insert booking: %w", err)
	}
	// The booking as a read returns it, made from what was written instead
	// of read back (a round trip on PostgreSQL; TestBookingAsWritten).
	b := &property.Booking{ID: id, Status: property.StatusConfirmed, PropertyID: req.PropertyID, RoomTypeID: req.RoomTypeID,
		CheckIn: req.CheckIn, CheckOut: req.CheckOut, Nights: len(nightly), Guests: req.Guests, Guest: nb.Guest, Nightly: nightly,
		Total: tot, CancellationPolicy: policy, FreeCancellationUntil: policy.FreeCancellationUntil(checkInAt.UTC()),
		SpecialRequests: nb.SpecialRequests, ExternalReference: nb.ExternalReference, QuoteID: quoteID, Test: acct.Test,
		CreatedAt: now, UpdatedAt: now}
	if err := s.recordBookingEvent(ctx, tx, property.EventBookingCreated, acct, b, nil); err != nil {
		return nil, err
	}
	return b, idempotency.RecordResult(ctx, tx, b)
}

// bookQuote turns the hold of a quote into a sale.
func (s *Property) bookQuote(ctx context.Context, acct property.Account, nb property.NewBooking) (*property.Booking, error) {
	id := store.NewID()
	var b *property.Booking
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		now := s.clock.Now()
		var req property.StayRequest
		var status string
		var expires, checkInAt time.Time
		var nightlyJSON, policyJSON []byte
		var tot property.Money
		var bookingID sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT property_id, room_type_id, check_in, check_out, guests, status, expires_at, check_in_at,
				nightly, cancellation_policy, total, currency, booking_id
			FROM quotes WHERE id = $1 AND developer_id = $2 AND test = $3`, nb.QuoteID, acct.DeveloperID, acct.Test).Scan(
			&req.PropertyID, &req.RoomTypeID, &req.CheckIn, &req.CheckOut, &req.Guests, &status, &expires, &checkInAt,
			&nightlyJSON, &policyJSON, &tot.Amount, &tot.Currency, &bookingID)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.Errorf(apperr.NotFound, "No quote with id %q.", nb.QuoteID)
		} else if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE quotes SET status = 'booked', booking_id = $1
			WHERE id = $2 AND status = 'held' AND expires_at > $3`, id, nb.QuoteID, now)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			// Read again: a concurrent booking of the quote may have won.
			if err := tx.QueryRowContext(ctx, `SELECT status, booking_id FROM quotes WHERE id = $1`, nb.QuoteID).Scan(&status, &bookingID); err != nil {
				return err
			}
			return property.CheckQuoteBooking(status, bookingID.String, expires, now)
		}
		var nightly []property.NightlyPrice
		var policy property.CancellationPolicy
		if err := errors.Join(json.Unmarshal(nightlyJSON, &nightly), json.Unmarshal(policyJSON, &policy)); err != nil {
			return err
		}
		nights := `night >= $2 AND night < $3`
		if s.db.Engine == store.Postgres {
			// The nights' row locks in date order, as lockNights takes
			// them, and the sale in one round trip: the subquery locks
			// the rows in its order before the update changes them.
			nights = `night IN (SELECT night FROM calendar WHERE room_type_id = $1 AND night >= $2 AND night < $3 ORDER BY night FOR UPDATE)`
		}
		inv := propInventoryOf(acct.Test)
		// #nosec G202 -- only fixed table and column names are concatenated; values are bound.
		res, err = tx.ExecContext(ctx, `UPDATE calendar SET `+inv.held+` = `+inv.held+` - 1, `+inv.sold+` = `+inv.sold+` + 1
			WHERE room_type_id = $1 AND `+nights+` AND `+inv.held+` > 0`, req.RoomTypeID, req.CheckIn, req.CheckOut)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != int64(len(nightly)) {
			return fmt.Errorf("quote %s: %d of its %d nights held to turn into a sale", nb.QuoteID, n, len(nightly))
		}
		qid := nb.QuoteID
		b, err = s.insertPropertyBooking(ctx, tx, id, acct, nb, req, nightly, tot, policy, checkInAt, &qid, now)
		return err
	})
	return b, err
}

const propertyBookingColumns = `b.id, b.status, b.property_id, b.room_type_id, b.check_in, b.check_out, b.nights, b.guests, b.guest, b.nightly,
	b.total, b.currency, b.cancellation_policy, b.check_in_at, b.cancellation_fee, b.special_requests, b.external_reference, b.quote_id,
	b.test, b.created_at, b.updated_at, b.cancelled_at`

func scanPropertyBooking(sc interface{ Scan(...any) error }, b *property.Booking, extra ...any) error {
	var guest, nightly, policy []byte
	var fee sql.NullInt64
	var special, ref, quote sql.NullString
	var cancelled sql.NullTime
	var checkInAt time.Time
	dest := append([]any{&b.ID, &b.Status, &b.PropertyID, &b.RoomTypeID, &b.CheckIn, &b.CheckOut, &b.Nights, &b.Guests, &guest, &nightly,
		&b.Total.Amount, &b.Total.Currency, &policy, &checkInAt, &fee, &special, &ref, &quote, &b.Test, &b.CreatedAt, &b.UpdatedAt, &cancelled}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return err
	}
	if err := errors.Join(json.Unmarshal(guest, &b.Guest), json.Unmarshal(nightly, &b.Nightly), json.Unmarshal(policy, &b.CancellationPolicy)); err != nil {
		return fmt.Errorf("booking %s: %w", b.ID, err)
	}
	if fee.Valid {
		b.CancellationFee = &property.Money{Amount: fee.Int64, Currency: b.Total.Currency}
	}
	b.SpecialRequests, b.ExternalReference, b.QuoteID = store.NullString(special), store.NullString(ref), store.NullString(quote)
	b.CreatedAt, b.UpdatedAt, b.CancelledAt = b.CreatedAt.UTC(), b.UpdatedAt.UTC(), store.NullTime(cancelled)
	b.FreeCancellationUntil = b.CancellationPolicy.FreeCancellationUntil(checkInAt.UTC())
	return nil
}

var propertyBookingSorts = map[string]string{"createdAt": "b.created_at", "checkIn": "b.check_in", "updatedAt": "b.updated_at"}

// FindBookings returns a page of the account's bookings of its mode.
func (s *Property) FindBookings(ctx context.Context, acct property.Account, f property.BookingFilter) (_ []property.Booking, _ int, err error) {
	defer store.Wrap(&err, "find bookings of developer %s", acct.DeveloperID)
	w := &store.Where{}
	w.And("b.developer_id = " + w.Arg(acct.DeveloperID))
	w.And("b.test = " + w.Arg(acct.Test))
	if f.Status != "" {
		w.And("b.status = " + w.Arg(f.Status))
	}
	if f.PropertyID != "" {
		w.And("b.property_id = " + w.Arg(f.PropertyID))
	}
	if !f.CheckInFrom.IsZero() {
		w.And("b.check_in >= " + w.Arg(f.CheckInFrom))
	}
	if !f.CheckInTo.IsZero() {
		w.And("b.check_in <= " + w.Arg(f.CheckInTo))
	}
	if f.UpdatedSince != nil {
		w.And("b.updated_at >= " + w.Arg(*f.UpdatedSince))
	}
	if f.ExternalReference != "" {
		w.And("b.external_reference = " + w.Arg(f.ExternalReference))
	}
	from := ` FROM bookings b` + w.String()
	col, dir := propertyBookingSorts[f.Sort], store.Direction(f.Order)
	if col == "" {
		col = propertyBookingSorts["createdAt"]
	}
	return store.QueryPage(ctx, s.db, "", propertyBookingColumns, from, w, col+` `+dir+`, b.id `+dir, f.Page,
		func(sc store.Scanner, total *int) (property.Booking, error) {
			var b property.Booking
			err := scanPropertyBooking(sc, &b, total)
			return b, err
		})
}

// FindBooking returns a booking of the account and mode.
func (s *Property) FindBooking(ctx context.Context, acct property.Account, id string) (_ *property.Booking, err error) {
	defer store.Wrap(&err, "find booking %s", id)
	return findPropertyBooking(ctx, s.db, acct, id)
}

// findPropertyBooking reads the booking by its id alone and checks the
// account in Go: with the account's columns in the statement, the plan
// PostgreSQL keeps for it may walk an index on (developer_id, test) and
// filter on id, which reads every booking of the account (seen on a new
// database, where a lookup's cost grew with the account's bookings).
func findPropertyBooking(ctx context.Context, q store.Querier, acct property.Account, id string) (*property.Booking, error) {
	var b property.Booking
	var developerID string
	err := scanPropertyBooking(q.QueryRowContext(ctx, `SELECT `+propertyBookingColumns+`, b.developer_id FROM bookings b WHERE b.id = $1`, id),
		&b, &developerID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && (developerID != acct.DeveloperID || b.Test != acct.Test)) {
		return nil, apperr.Errorf(apperr.NotFound, "No booking with id %q.", id)
	}
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// CancelBooking cancels a confirmed booking and returns its nights.
func (s *Property) CancelBooking(ctx context.Context, acct property.Account, id string) (_ *property.Booking, err error) {
	defer store.Wrap(&err, "cancel booking %s", id)
	var out *property.Booking
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		b, err := findPropertyBooking(ctx, tx, acct, id)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		var checkInAt time.Time
		if err := tx.QueryRowContext(ctx, `SELECT check_in_at FROM bookings WHERE id = $1`, id).Scan(&checkInAt); err != nil {
			return err
		}
		if err := b.CheckCancel(now, checkInAt); err != nil {
			return err
		}
		fee := b.CancellationPolicy.Fee(now, checkInAt.UTC(), b.Nightly, b.Total)
		res, err := tx.ExecContext(ctx, `UPDATE bookings SET status = 'CANCELLED', cancellation_fee = $1, cancelled_at = $2, updated_at = $2
			WHERE id = $3 AND status = 'CONFIRMED'`, fee.Amount, now, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			// Cancelled meanwhile: read again for the rule to say so.
			cur, err := findPropertyBooking(ctx, tx, acct, id)
			if err != nil {
				return err
			}
			return cur.CheckCancel(now, checkInAt)
		}
		if err := s.lockNights(ctx, tx, b.RoomTypeID, b.CheckIn, b.CheckOut); err != nil {
			return err
		}
		inv := propInventoryOf(acct.Test)
		// #nosec G202 -- only fixed table and column names are concatenated; values are bound.
		if _, err := tx.ExecContext(ctx, `UPDATE calendar SET `+inv.sold+` = `+inv.sold+` - 1
			WHERE room_type_id = $1 AND night >= $2 AND night < $3 AND `+inv.sold+` > 0`, b.RoomTypeID, b.CheckIn, b.CheckOut); err != nil {
			return err
		}
		out, err = findPropertyBooking(ctx, tx, acct, id)
		if err != nil {
			return err
		}
		if err := s.recordBookingEvent(ctx, tx, property.EventBookingCancelled, acct, out, &b.Status); err != nil {
			return err
		}
		return idempotency.RecordResult(ctx, tx, out)
	})
	return out, err
}

// propHoldScope narrows a release to the holds that block a stay.
type propHoldScope struct {
	roomTypeID        string
	test              bool
	checkIn, checkOut property.Date
}

// ReleaseExpiredHolds releases every expired hold.
func (s *Property) ReleaseExpiredHolds(ctx context.Context) (_ int, err error) {
	defer store.Wrap(&err, "release expired holds")
	released := 0
	for {
		n, err := s.releaseExpired(ctx, nil)
		released += n
		if err != nil || n < propReleaseBatch {
			return released, err
		}
	}
}

// propReleaseBatch bounds how many quotes one releaseExpired call releases.
const propReleaseBatch = 200

// releaseExpired releases up to releaseBatch expired holds (those blocking
// a stay, when scope is not nil), each in a transaction of its own.
func (s *Property) releaseExpired(ctx context.Context, scope *propHoldScope) (int, error) {
	now := s.clock.Now()
	w := &store.Where{}
	w.And("status = 'held'")
	w.And("expires_at <= " + w.Arg(now))
	if scope != nil {
		w.And("room_type_id = " + w.Arg(scope.roomTypeID))
		w.And("test = " + w.Arg(scope.test))
		w.And("check_in < " + w.Arg(scope.checkOut))
		w.And("check_out > " + w.Arg(scope.checkIn))
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM quotes`+w.String()+` ORDER BY expires_at, id LIMIT `+w.Arg(propReleaseBatch), w.Args...)
	if err != nil {
		return 0, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	released := 0
	for _, id := range ids {
		ok, err := s.releaseQuote(ctx, id, now)
		if err != nil {
			return released, err
		}
		if ok {
			released++
		}
	}
	return released, nil
}

// releaseQuote marks an expired held quote expired and returns its units;
// false when another transaction got there first.
func (s *Property) releaseQuote(ctx context.Context, id string, now time.Time) (bool, error) {
	released := false
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		var roomTypeID string
		var test bool
		var checkIn, checkOut property.Date
		err := tx.QueryRowContext(ctx, `UPDATE quotes SET status = 'expired' WHERE id = $1 AND status = 'held' AND expires_at <= $2
			RETURNING room_type_id, test, check_in, check_out`, id, now).Scan(&roomTypeID, &test, &checkIn, &checkOut)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		if err := s.lockNights(ctx, tx, roomTypeID, checkIn, checkOut); err != nil {
			return err
		}
		inv := propInventoryOf(test)
		// #nosec G202 -- only fixed table and column names are concatenated; values are bound.
		if _, err := tx.ExecContext(ctx, `UPDATE calendar SET `+inv.held+` = `+inv.held+` - 1
			WHERE room_type_id = $1 AND night >= $2 AND night < $3 AND `+inv.held+` > 0`, roomTypeID, checkIn, checkOut); err != nil {
			return err
		}
		released = true
		return s.recordQuoteExpired(ctx, tx, id)
	})
	return released, err
}
