package propertydb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/property"
)

var _ property.SupplyStore = (*Property)(nil)

// Change events of the supply side.
const (
	EventPropertyUpdated     = "property.updated"
	EventAvailabilityUpdated = "availability.updated"
)

// propAudience returns who may see a change of a property: its owner's
// account in its mode, and everyone when it is a live property that is
// (or was, before the change) active.
func propAudience(acct property.Account, mode string, public bool) []string {
	out := []string{"account:" + acct.DeveloperID + ":" + mode}
	if public && mode == property.ModeLive {
		out = append(out, changes.AudienceAll)
	}
	return out
}

// lockOwnedProperty takes the row lock of a property of the account (an
// update that changes nothing), so that changes of one property run one
// at a time, and returns its status. Errors: apperr.NotFound.
func lockOwnedProperty(ctx context.Context, tx *sql.Tx, acct property.Account, id string) (string, error) {
	var status string
	err := tx.QueryRowContext(ctx, `UPDATE properties SET updated_at = updated_at WHERE id = $1 AND owner_id = $2 AND mode = $3
		RETURNING status`, id, acct.DeveloperID, propMode(acct)).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return "", apperr.Errorf(apperr.NotFound, "No property of yours with id %q.", id)
	}
	return status, err
}

// findOwnedProperty returns a property of the account in q.
func findOwnedProperty(ctx context.Context, q store.Querier, acct property.Account, id string) (*property.Property, error) {
	w := &store.Where{}
	w.And("p.id = " + w.Arg(id))
	w.And(propOwned(w, acct))
	return findProperty(ctx, q, id, w)
}

// FindOwnedProperty returns a property of the account in its mode.
func (s *Property) FindOwnedProperty(ctx context.Context, acct property.Account, id string) (_ *property.Property, err error) {
	defer store.Wrap(&err, "find property %s", id)
	p, err := findOwnedProperty(ctx, s.db, acct, id)
	if apperr.Code(err) == apperr.NotFound {
		return nil, apperr.Errorf(apperr.NotFound, "No property of yours with id %q.", id)
	}
	return p, err
}

// propertyChanged records the property as it now stands as a
// property.updated event, and as the answer of the request's
// Idempotency-Key when result is nil (else result is).
func (s *Property) propertyChanged(ctx context.Context, tx *sql.Tx, acct property.Account, id, before string, result any) (*property.Property, error) {
	p, err := findOwnedProperty(ctx, tx, acct, id)
	if err != nil {
		return nil, err
	}
	public := before == property.PropertyActive || p.Status == property.PropertyActive
	if _, err := s.events.Record(ctx, tx, EventPropertyUpdated, propAudience(acct, propMode(acct), public), p); err != nil {
		return nil, err
	}
	if result == nil {
		result = p
	}
	return p, idempotency.RecordResult(ctx, tx, result)
}

// writePropertyContent writes the content columns and the amenity index.
func writePropertyContent(ctx context.Context, tx *sql.Tx, id string, c property.PropertyContent) error {
	am, err1 := json.Marshal(c.Amenities)
	im, err2 := json.Marshal(c.Images)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE properties SET name = $1, type = $2, description = $3, address = $4, city = $5, country_code = $6,
			latitude = $7, longitude = $8, timezone = $9, currency = $10, check_in_time = $11, check_out_time = $12, amenities = $13,
			images = $14, license_number = $15, cancellation_policy = $16, status = $17
		WHERE id = $18`, c.Name, c.Type, c.Description, c.Address, c.City, c.CountryCode, c.Latitude, c.Longitude, c.Timezone,
		c.Currency, c.CheckInTime, c.CheckOutTime, string(am), string(im), c.LicenseNumber, c.CancellationPolicy, c.Status, id)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM property_amenities WHERE property_id = $1`, id); err != nil {
		return err
	}
	for _, a := range c.Amenities {
		if _, err := tx.ExecContext(ctx, `INSERT INTO property_amenities (property_id, amenity) VALUES ($1, $2)`, id, a); err != nil {
			return err
		}
	}
	return nil
}

// CreateProperty creates a draft property of the account.
func (s *Property) CreateProperty(ctx context.Context, acct property.Account, c property.PropertyContent) (_ *property.Property, err error) {
	defer store.Wrap(&err, "create property of developer %s", acct.DeveloperID)
	c.Status = property.PropertyDraft
	id := store.NewID()
	var p *property.Property
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		now := s.clock.Now()
		// Content columns are written by writePropertyContent, so that
		// create and update store them the same way.
		if _, err := tx.ExecContext(ctx, `INSERT INTO properties (id, name, type, description, address, city, country_code, latitude,
				longitude, timezone, currency, check_in_time, check_out_time, cancellation_policy, from_price, owner_id, mode, status,
				created_at, updated_at)
			VALUES ($1, '', '', '', '', '', '', 0, 0, 'UTC', '', '', '', $2, 0, $3, $4, 'draft', $5, $5)`,
			id, c.CancellationPolicy, acct.DeveloperID, propMode(acct), now); err != nil {
			return err
		}
		if err := writePropertyContent(ctx, tx, id, c); err != nil {
			return err
		}
		p, err = s.propertyChanged(ctx, tx, acct, id, property.PropertyDraft, nil)
		return err
	})
	return p, err
}

// UpdateProperty changes a property of the account.
func (s *Property) UpdateProperty(ctx context.Context, acct property.Account, id string, apply func(*property.PropertyContent) error) (_ *property.Property, err error) {
	defer store.Wrap(&err, "update property %s", id)
	var p *property.Property
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		before, err := lockOwnedProperty(ctx, tx, acct, id)
		if err != nil {
			return err
		}
		cur, err := findOwnedProperty(ctx, tx, acct, id)
		if err != nil {
			return err
		}
		c := cur.Content()
		if err := apply(&c); err != nil {
			return err
		}
		if err := cur.CheckChange(c); err != nil {
			return err
		}
		if err := writePropertyContent(ctx, tx, id, c); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE properties SET updated_at = $1 WHERE id = $2`, s.clock.Now(), id); err != nil {
			return err
		}
		p, err = s.propertyChanged(ctx, tx, acct, id, before, nil)
		return err
	})
	return p, err
}

// refreshFromPrice sets the property's from price, the lowest base price
// of its room types.
func refreshFromPrice(ctx context.Context, tx *sql.Tx, propertyID string) error {
	_, err := tx.ExecContext(ctx, `UPDATE properties SET from_price = COALESCE((SELECT MIN(base_price) FROM room_types
		WHERE property_id = $1 AND deleted_at IS NULL), 0) WHERE id = $1`, propertyID)
	return err
}

func findRoomType(ctx context.Context, q store.Querier, propertyID, id string) (*property.RoomType, error) {
	rts, err := roomTypes(ctx, q, propertyID, id)
	if err != nil {
		return nil, err
	}
	if len(rts) == 0 {
		return nil, apperr.Errorf(apperr.NotFound, "Property %s has no room type with id %q.", propertyID, id)
	}
	return &rts[0], nil
}

// CreateRoomType adds a room type to a property of the account.
func (s *Property) CreateRoomType(ctx context.Context, acct property.Account, propertyID string, c property.RoomTypeContent) (_ *property.RoomType, err error) {
	defer store.Wrap(&err, "create room type of property %s", propertyID)
	id := store.NewID()
	var rt *property.RoomType
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		before, err := lockOwnedProperty(ctx, tx, acct, propertyID)
		if err != nil {
			return err
		}
		var n, last int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(position), 0) FROM room_types WHERE property_id = $1 AND deleted_at IS NULL`,
			propertyID).Scan(&n, &last); err != nil {
			return err
		}
		if err := property.CheckNewRoomType(n); err != nil {
			return err
		}
		beds, err := json.Marshal(c.Beds)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO room_types (id, property_id, name, description, max_guests, beds, total_units, base_price, position)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, id, propertyID, c.Name, c.Description, c.MaxGuests, string(beds), c.TotalUnits,
			c.BasePrice, last+1); err != nil {
			return err
		}
		if err := refreshFromPrice(ctx, tx, propertyID); err != nil {
			return err
		}
		if rt, err = findRoomType(ctx, tx, propertyID, id); err != nil {
			return err
		}
		_, err = s.propertyChanged(ctx, tx, acct, propertyID, before, rt)
		return err
	})
	return rt, err
}

// UpdateRoomType changes a room type of a property of the account.
func (s *Property) UpdateRoomType(ctx context.Context, acct property.Account, propertyID, id string, apply func(*property.RoomTypeContent) error) (_ *property.RoomType, err error) {
	defer store.Wrap(&err, "update room type %s", id)
	var rt *property.RoomType
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		before, err := lockOwnedProperty(ctx, tx, acct, propertyID)
		if err != nil {
			return err
		}
		cur, err := findRoomType(ctx, tx, propertyID, id)
		if err != nil {
			return err
		}
		c := cur.Content()
		if err := apply(&c); err != nil {
			return err
		}
		beds, err := json.Marshal(c.Beds)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE room_types SET name = $1, description = $2, max_guests = $3, beds = $4, total_units = $5,
			base_price = $6 WHERE id = $7`, c.Name, c.Description, c.MaxGuests, string(beds), c.TotalUnits, c.BasePrice, id); err != nil {
			return err
		}
		if err := refreshFromPrice(ctx, tx, propertyID); err != nil {
			return err
		}
		if rt, err = findRoomType(ctx, tx, propertyID, id); err != nil {
			return err
		}
		_, err = s.propertyChanged(ctx, tx, acct, propertyID, before, rt)
		return err
	})
	return rt, err
}

// DeleteRoomType removes a room type from sale. Its row stays for the
// bookings and quotes that name it; its calendar goes.
func (s *Property) DeleteRoomType(ctx context.Context, acct property.Account, propertyID, id string) (err error) {
	defer store.Wrap(&err, "delete room type %s", id)
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		before, err := lockOwnedProperty(ctx, tx, acct, propertyID)
		if err != nil {
			return err
		}
		if _, err := findRoomType(ctx, tx, propertyID, id); err != nil {
			return err
		}
		p, err := s.loadProperty(ctx, tx, acct, propertyID)
		if err != nil {
			return err
		}
		today := property.LocalToday(s.clock.Now(), p.timezone)
		var coming int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE room_type_id = $1 AND status = 'CONFIRMED' AND check_out > $2`,
			id, today).Scan(&coming); err != nil {
			return err
		}
		var left int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM room_types WHERE property_id = $1 AND deleted_at IS NULL AND id <> $2`,
			propertyID, id).Scan(&left); err != nil {
			return err
		}
		if err := property.CheckRoomTypeDeletion(coming, left, before); err != nil {
			return err
		}
		now := s.clock.Now()
		if _, err := tx.ExecContext(ctx, `UPDATE room_types SET deleted_at = $1 WHERE id = $2`, now, id); err != nil {
			return err
		}
		// Holds still running on it turn into nothing: no unit is left to
		// book, and a booking of such a quote finds no night to sell.
		if err := s.lockNights(ctx, tx, id, property.Date{}, property.Date{}); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM calendar WHERE room_type_id = $1`, id); err != nil {
			return err
		}
		if err := refreshFromPrice(ctx, tx, propertyID); err != nil {
			return err
		}
		_, err = s.propertyChanged(ctx, tx, acct, propertyID, before, nil)
		return err
	})
}

// calendarPatch is what a calendar request sets on one night: nil fields
// are left as they are.
type calendarPatch struct {
	units, minStay                             *int
	price                                      *int64
	closed, closedToArrival, closedToDeparture *bool
}

func (p *calendarPatch) merge(u *property.CalendarUpdate) {
	if u.Units != nil {
		p.units = u.Units
	}
	if u.Price != nil {
		p.price = u.Price
	}
	if u.MinStay != nil {
		p.minStay = u.MinStay
	}
	if u.Closed != nil {
		p.closed = u.Closed
	}
	if u.ClosedToArrival != nil {
		p.closedToArrival = u.ClosedToArrival
	}
	if u.ClosedToDeparture != nil {
		p.closedToDeparture = u.ClosedToDeparture
	}
}

// key identifies the patch's values, to group nights set alike.
func (p *calendarPatch) key() string {
	f := func(v any) string {
		switch v := v.(type) {
		case *int:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *int64:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *bool:
			if v != nil {
				return fmt.Sprint(*v)
			}
		}
		return "-"
	}
	return strings.Join([]string{f(p.units), f(p.price), f(p.minStay), f(p.closed), f(p.closedToArrival), f(p.closedToDeparture)}, "|")
}

// set returns the SET clause of the patch, its placeholders from $from on,
// and their values.
func (p *calendarPatch) set(from int) (string, []any) {
	var cols []string
	var args []any
	add := func(col string, v any) {
		args = append(args, v)
		cols = append(cols, fmt.Sprintf("%s = $%d", col, from+len(args)-1))
	}
	if p.units != nil {
		add("total_units", *p.units)
	}
	if p.price != nil {
		add("price", *p.price)
	}
	if p.minStay != nil {
		add("min_stay", *p.minStay)
	}
	if p.closed != nil {
		add("closed", *p.closed)
	}
	if p.closedToArrival != nil {
		add("closed_to_arrival", *p.closedToArrival)
	}
	if p.closedToDeparture != nil {
		add("closed_to_departure", *p.closedToDeparture)
	}
	return strings.Join(cols, ", "), args
}

// calendarChunk bounds the nights of one statement of a calendar update.
const calendarChunk = 400

// UpdateCalendar applies a host's calendar updates in one transaction.
//
// Never overselling holds against concurrent bookings: the nights a
// request touches are read with their counters under the row locks of the
// transaction (FOR UPDATE on PostgreSQL; SQLite's writers run one at a
// time), room type by room type and each in date order, the one order
// every writer of the calendar locks nights in (booking.go), so that a
// unit cut and a claim of the same night run one after the other and the
// later sees the earlier, and neither waits on the other while holding a
// night it needs. A cut below what is sold and held answers
// INVENTORY_CONFLICT and changes nothing; the update itself keeps the
// condition too, and the calendar's CHECK is the last guard.
func (s *Property) UpdateCalendar(ctx context.Context, acct property.Account, propertyID string, updates []property.CalendarUpdate) (_ *property.CalendarResult, err error) {
	defer store.Wrap(&err, "update calendar of property %s", propertyID)
	var status, tz string
	if err := s.db.QueryRowContext(ctx, `SELECT status, timezone FROM properties WHERE id = $1 AND owner_id = $2 AND mode = $3`,
		propertyID, acct.DeveloperID, propMode(acct)).Scan(&status, &tz); errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No property of yours with id %q.", propertyID)
	} else if err != nil {
		return nil, err
	}
	rts, err := roomTypes(ctx, s.db, propertyID, "")
	if err != nil {
		return nil, err
	}
	if err := property.CheckCalendarDates(updates, rts, property.LocalToday(s.clock.Now(), tz)); err != nil {
		return nil, err
	}
	byID := map[string]property.RoomType{}
	for _, rt := range rts {
		byID[rt.ID] = rt
	}

	// Each room type's nights and what they get, the later update winning.
	nights := map[string]map[property.Date]*calendarPatch{}
	for i := range updates {
		u := &updates[i]
		if nights[u.RoomTypeID] == nil {
			nights[u.RoomTypeID] = map[property.Date]*calendarPatch{}
		}
		for d := u.From; d.Before(u.To); d = d.AddDays(1) {
			if !u.Applies(d) {
				continue
			}
			pt := nights[u.RoomTypeID][d]
			if pt == nil {
				pt = &calendarPatch{}
				nights[u.RoomTypeID][d] = pt
			}
			pt.merge(u)
		}
	}
	ids := make([]string, 0, len(nights))
	total := 0
	for id, m := range nights {
		if len(m) > 0 {
			ids = append(ids, id)
			total += len(m)
		}
	}
	slices.Sort(ids) // one lock order across room types
	result := &property.CalendarResult{UpdatedNights: total}
	if total == 0 {
		return result, s.db.InTx(ctx, func(tx *sql.Tx) error { return idempotency.RecordResult(ctx, tx, result) })
	}

	// Holds that have expired do not count against a cut: release them
	// first (each in a transaction of its own, as always).
	var lo, hi property.Date
	for _, id := range ids {
		for d := range nights[id] {
			if lo.IsZero() || d.Before(lo) {
				lo = d
			}
			if hi.IsZero() || d.After(hi) {
				hi = d
			}
		}
	}
	for _, id := range ids {
		for {
			n, err := s.releaseExpired(ctx, &propHoldScope{roomTypeID: id, test: acct.Test, checkIn: lo, checkOut: hi.AddDays(1)})
			if err != nil {
				return nil, err
			}
			if n < propReleaseBatch {
				break
			}
		}
	}

	inv := propInventoryOf(acct.Test)
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		// Every room type's nights are locked and counted before the rule
		// looks at them, so that it names every night it refuses.
		counted := make([]calendarNights, len(ids))
		var cuts []property.InventoryConflict
		for i, id := range ids {
			c, err := s.lockCalendar(ctx, tx, inv, byID[id], nights[id])
			if err != nil {
				return err
			}
			counted[i] = c
			cuts = append(cuts, c.cuts...)
		}
		if err := property.CheckUnits(cuts); err != nil {
			return err
		}
		for i, id := range ids {
			if err := s.applyCalendar(ctx, tx, inv, propertyID, byID[id], nights[id], counted[i]); err != nil {
				return err
			}
		}
		ev := map[string]any{"propertyId": propertyID, "roomTypeIds": ids, "from": lo, "to": hi.AddDays(1), "test": acct.Test}
		if _, err := s.events.Record(ctx, tx, EventAvailabilityUpdated,
			propAudience(acct, propMode(acct), status == property.PropertyActive), ev); err != nil {
			return err
		}
		return idempotency.RecordResult(ctx, tx, result)
	})
	if err != nil {
		return nil, err
	}
	return result, nil
}

// calendarNights is one room type's nights as lockCalendar found them:
// those to update, grouped by what they get, in the order of the groups;
// those to create; and the nights given units, with their counters, for
// property.CheckUnits.
type calendarNights struct {
	order   []string
	groups  map[string][]property.Date
	missing []property.Date
	cuts    []property.InventoryConflict
}

// lockCalendar locks and counts one room type's nights in tx.
func (s *Property) lockCalendar(ctx context.Context, tx *sql.Tx, inv propInventory, rt property.RoomType,
	nights map[property.Date]*calendarPatch) (calendarNights, error) {
	out := calendarNights{groups: map[string][]property.Date{}}
	days := make([]property.Date, 0, len(nights))
	for d := range nights {
		days = append(days, d)
	}
	slices.SortFunc(days, func(a, b property.Date) int { return a.DaysUntil(b) * -1 })
	lock := ""
	if s.db.Engine == store.Postgres {
		lock = " FOR UPDATE"
	}
	// #nosec G202 -- only fixed column names are concatenated; values are bound.
	rows, err := tx.QueryContext(ctx, `SELECT night, `+inv.sold+`, `+inv.held+` FROM calendar
		WHERE room_type_id = $1 AND night >= $2 AND night <= $3 ORDER BY night`+lock, rt.ID, days[0], days[len(days)-1])
	if err != nil {
		return out, err
	}
	type counters struct{ sold, held int }
	have := map[property.Date]counters{}
	for rows.Next() {
		var d property.Date
		var c counters
		if err := rows.Scan(&d, &c.sold, &c.held); err != nil {
			rows.Close()
			return out, err
		}
		have[d] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, err
	}
	for _, d := range days {
		pt := nights[d]
		c, ok := have[d]
		if !ok {
			out.missing = append(out.missing, d)
			continue
		}
		if pt.units != nil {
			out.cuts = append(out.cuts, property.InventoryConflict{RoomTypeID: rt.ID, Date: d, Units: *pt.units, Booked: c.sold, Held: c.held})
		}
		k := pt.key()
		if _, ok := out.groups[k]; !ok {
			out.order = append(out.order, k)
		}
		out.groups[k] = append(out.groups[k], d)
	}
	return out, nil
}

// applyCalendar writes one room type's nights, locked and counted by
// lockCalendar, in tx.
func (s *Property) applyCalendar(ctx context.Context, tx *sql.Tx, inv propInventory, propertyID string, rt property.RoomType,
	nights map[property.Date]*calendarPatch, c calendarNights) error {
	for _, k := range c.order {
		ds := c.groups[k]
		pt := nights[ds[0]]
		for len(ds) > 0 {
			chunk := ds[:min(len(ds), calendarChunk)]
			ds = ds[len(chunk):]
			set, args := pt.set(2)
			args = append([]any{rt.ID}, args...)
			in := store.Placeholders(len(args)+1, len(chunk))
			for _, d := range chunk {
				args = append(args, d)
			}
			cond := ""
			if pt.units != nil {
				// property.CheckUnits under the row locks decides; this
				// keeps the rule in the statement too.
				cond = ` AND ` + inv.sold + ` + ` + inv.held + ` <= total_units`
			}
			// #nosec G202 -- only fixed column names and placeholders are concatenated; values are bound.
			res, err := tx.ExecContext(ctx, `UPDATE calendar SET `+set+` WHERE room_type_id = $1 AND night IN (`+in+`)`+cond, args...)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if int(n) != len(chunk) {
				return fmt.Errorf("room type %s: %d of %d nights updated", rt.ID, n, len(chunk))
			}
		}
	}
	// Nights set for the first time: the room type's units and base price,
	// open and unrestricted, unless the update says otherwise.
	const cols = 9
	missing := c.missing
	for len(missing) > 0 {
		chunk := missing[:min(len(missing), calendarChunk/4)]
		missing = missing[len(chunk):]
		var values []string
		args := make([]any, 0, len(chunk)*cols)
		for _, d := range chunk {
			pt := nights[d]
			n := calendarNightDefaults(rt, pt)
			values = append(values, "("+store.Placeholders(len(args)+1, cols)+")")
			args = append(args, rt.ID, d, propertyID, n.price, n.minStay, n.closed, n.cta, n.ctd, n.units)
		}
		// #nosec G202 -- only $N placeholders are concatenated; values are bound.
		res, err := tx.ExecContext(ctx, `INSERT INTO calendar (room_type_id, night, property_id, price, min_stay, closed, closed_to_arrival,
				closed_to_departure, total_units) VALUES `+strings.Join(values, ", ")+` ON CONFLICT (room_type_id, night) DO NOTHING`, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if int(n) != len(chunk) {
			// Another request created some of these nights meanwhile.
			return apperr.Errorf(apperr.Conflict, "The calendar of room type %s changed while this request ran; send it again.", rt.ID)
		}
	}
	return nil
}

type calendarNight struct {
	price            int64
	minStay, units   int
	closed, cta, ctd bool
}

func calendarNightDefaults(rt property.RoomType, pt *calendarPatch) calendarNight {
	n := calendarNight{price: rt.BasePrice.Amount, minStay: 1, units: rt.TotalUnits}
	if pt.price != nil {
		n.price = *pt.price
	}
	if pt.minStay != nil {
		n.minStay = *pt.minStay
	}
	if pt.units != nil {
		n.units = *pt.units
	}
	if pt.closed != nil {
		n.closed = *pt.closed
	}
	if pt.closedToArrival != nil {
		n.cta = *pt.closedToArrival
	}
	if pt.closedToDeparture != nil {
		n.ctd = *pt.closedToDeparture
	}
	return n
}
