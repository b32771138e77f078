// Package propertydb keeps the property platform's data: it implements the
// services of internal/property on a store.DB.
package propertydb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/property"
)

// Property implements the property platform services on a DB.
type Property struct {
	db    *store.DB
	clock clock.Clock
	// events records the change events of the supply side, in the
	// transaction of each change.
	events *changes.Feed
	// KeyGrants keeps the OAuth grants and lists them as connected apps.
	*oauth.KeyGrants
}

// New returns the property platform services on db.
func New(db *store.DB, c clock.Clock) *Property {
	return &Property{db: db, clock: c, events: changes.NewFeed(db, c), KeyGrants: oauth.NewKeyGrants(db, c, grantTable)}
}

var (
	_ property.CatalogStore = (*Property)(nil)
	_ property.BookingStore = (*Property)(nil)
	_ property.AccountStore = (*Property)(nil)
)

// propInventory names the counters of one inventory: the live one, or the
// test one that test keys work on.
type propInventory struct{ sold, held string }

func propInventoryOf(test bool) propInventory {
	if test {
		return propInventory{sold: "test_sold", held: "test_held"}
	}
	return propInventory{sold: "sold", held: "held"}
}

// available is the SQL expression of the units of calendar row c that can
// still be had: the units for sale, less those sold and those held by
// quotes, adding back holds of quotes that have expired but have not been
// released yet. testArg and nowArg are the placeholders of the mode and
// the current time.
func (inv propInventory) available(testArg, nowArg string) string {
	return `(c.total_units - c.` + inv.sold + ` - c.` + inv.held + ` + (SELECT COUNT(*) FROM quotes q
		WHERE q.room_type_id = c.room_type_id AND q.status = 'held' AND q.test = ` + testArg + ` AND q.expires_at <= ` + nowArg + `
		AND q.check_in <= c.night AND q.check_out > c.night))`
}

const propertySummaryColumns = `p.id, p.name, p.type, p.city, p.country_code, p.address, p.latitude, p.longitude,
	p.timezone, p.currency, p.amenities, p.images, p.rating, p.review_count, p.from_price, p.status`

func scanPropertySummary(s interface{ Scan(...any) error }, x *property.PropertySummary, extra ...any) error {
	var amenities, images []byte
	dest := append([]any{&x.ID, &x.Name, &x.Type, &x.City, &x.CountryCode, &x.Address, &x.Latitude, &x.Longitude,
		&x.Timezone, &x.Currency, &amenities, &images, &x.Rating, &x.ReviewCount, &x.FromPrice.Amount, &x.Status}, extra...)
	if err := s.Scan(dest...); err != nil {
		return err
	}
	x.FromPrice.Currency = x.Currency
	x.Amenities = store.StringList(amenities)
	if imgs := store.StringList(images); len(imgs) > 0 {
		x.Image = &imgs[0]
	}
	return nil
}

var propertySorts = map[string]string{"price": "price", "rating": "p.rating", "name": "p.name"}

// FindProperties returns a page of properties and the total. With a stay,
// only properties with a room type that can be had for it are listed, each
// with the lowest total of such a room type.
func (s *Property) FindProperties(ctx context.Context, f property.PropertyFilter) (_ []property.PropertySummary, _ int, err error) {
	defer store.Wrap(&err, "find properties")
	q, err := s.propertiesQuery(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	return store.QueryPage(ctx, s.db, q.with, q.columns, q.from, q.where, q.orderBy, f.Page,
		func(sc store.Scanner, total *int) (property.PropertySummary, error) {
			var x property.PropertySummary
			var lowest sql.NullInt64
			if err := scanPropertySummary(sc, &x, &lowest, total); err != nil {
				return x, err
			}
			if lowest.Valid {
				x.LowestTotal = &property.Money{Amount: lowest.Int64, Currency: x.Currency}
			}
			return x, nil
		})
}

// propertiesQuery is the list query of FindProperties, for store.QueryPage.
type propertiesQuery struct {
	with, columns, from, orderBy string
	where                        *store.Where
}

func (s *Property) propertiesQuery(ctx context.Context, f property.PropertyFilter) (propertiesQuery, error) {
	w := &store.Where{}
	// The conditions on the property alone: the outer query applies them,
	// and with a stay the calendar scan is confined to their properties.
	var onProperty []string
	and := func(cond string) {
		onProperty = append(onProperty, cond)
		w.And(cond)
	}
	and(propVisible(w, f.Viewer))
	if f.Mine {
		and(propOwned(w, f.Viewer))
	}
	if f.City != "" {
		and(`lower(p.city) LIKE ` + w.Arg(store.LikePattern(f.City)) + ` ESCAPE '\'`)
	}
	if f.Country != "" {
		and("p.country_code = " + w.Arg(f.Country))
	}
	if f.Type != "" {
		and("p.type = " + w.Arg(f.Type))
	}
	if f.Currency != "" {
		and("p.currency = " + w.Arg(f.Currency))
	}
	for _, a := range f.Amenities {
		and("EXISTS (SELECT 1 FROM property_amenities pa WHERE pa.property_id = p.id AND pa.amenity = " + w.Arg(a) + ")")
	}
	var with, join string
	priceCol := "p.from_price"
	if f.Stay != nil {
		nights := f.Stay.CheckIn.DaysUntil(f.Stay.CheckOut)
		// A check-in day already past in a property's time zone.
		late, err := s.timezonesPast(ctx, f.Stay.CheckIn)
		if err != nil {
			return propertiesQuery{}, err
		}
		if len(late) > 0 {
			in := make([]string, len(late))
			for i, tz := range late {
				in[i] = w.Arg(tz)
			}
			and("p.timezone NOT IN (" + strings.Join(in, ", ") + ")")
		}
		test, now := w.Arg(f.Test), w.Arg(s.clock.Now())
		ci, co, n := w.Arg(f.Stay.CheckIn), w.Arg(f.Stay.CheckOut), w.Arg(nights)
		guests := w.Arg(f.Stay.Guests)
		inv := propInventoryOf(f.Test)
		properties := ""
		if len(onProperty) > 0 {
			properties = ` AND ` + strings.Join(onProperty, " AND ")
		}
		// rooms: the room types with room for the guests in the filtered
		// properties (room_types_property); then one pass over their
		// calendar for the stay's nights and check-out day by the
		// calendar's primary key (room_type_id, night), without a
		// subquery per row:
		// stale: the units held by quotes that have expired but are not
		// released yet, per room type and night (few rows: the release
		// job runs every 30 s);
		// fit: room types open, available and bookable every night of the
		// stay, departure allowed on the check-out day;
		// lowest: the cheapest of them per property.
		// The CROSS JOINs keep SQLite's join order: properties, then their
		// room types by room_types_property, then the calendar by its
		// primary key; left to itself it drove the join from the calendar,
		// skip-scanning calendar_property_night over every property.
		with = `WITH rooms AS (
			SELECT rt.id FROM properties p CROSS JOIN room_types rt
			WHERE rt.property_id = p.id AND rt.max_guests >= ` + guests + properties + `
		), stale AS (
			SELECT c.room_type_id, c.night, COUNT(*) AS units
			FROM quotes q JOIN calendar c ON c.room_type_id = q.room_type_id AND c.night >= q.check_in AND c.night < q.check_out
			WHERE q.status = 'held' AND q.test = ` + test + ` AND q.expires_at <= ` + now + ` AND c.night >= ` + ci + ` AND c.night < ` + co + `
			GROUP BY c.room_type_id, c.night
		), fit AS (
			SELECT c.property_id, c.room_type_id, SUM(CASE WHEN c.night < ` + co + ` THEN c.price ELSE 0 END) AS total
			FROM rooms CROSS JOIN calendar c
			LEFT JOIN stale ON stale.room_type_id = c.room_type_id AND stale.night = c.night
			WHERE c.room_type_id = rooms.id AND c.night >= ` + ci + ` AND c.night <= ` + co + `
			GROUP BY c.property_id, c.room_type_id
			HAVING SUM(CASE WHEN c.night < ` + co + ` THEN 1 ELSE 0 END) = ` + n + `
				AND SUM(CASE WHEN c.night < ` + co + ` AND (c.closed OR c.total_units - c.` + inv.sold + ` - c.` + inv.held + ` + COALESCE(stale.units, 0) <= 0) THEN 1 ELSE 0 END) = 0
				AND SUM(CASE WHEN c.night = ` + ci + ` AND (c.closed_to_arrival OR c.min_stay > ` + n + `) THEN 1 ELSE 0 END) = 0
				AND SUM(CASE WHEN c.night = ` + co + ` AND c.closed_to_departure THEN 1 ELSE 0 END) = 0
		), lowest AS (
			SELECT property_id, MIN(total) AS total FROM fit GROUP BY property_id
		) `
		join = ` JOIN lowest ON lowest.property_id = p.id`
		priceCol = "lowest.total"
		if f.MinPrice != nil {
			w.And("lowest.total >= " + w.Arg(*f.MinPrice*int64(nights)))
		}
		if f.MaxPrice != nil {
			w.And("lowest.total <= " + w.Arg(*f.MaxPrice*int64(nights)))
		}
	} else {
		if f.MinPrice != nil {
			w.And("p.from_price >= " + w.Arg(*f.MinPrice))
		}
		if f.MaxPrice != nil {
			w.And("p.from_price <= " + w.Arg(*f.MaxPrice))
		}
	}
	from := ` FROM properties p` + join + w.String()
	sortCol := propertySorts[f.Sort]
	if sortCol == "" {
		sortCol = propertySorts["rating"]
	}
	if sortCol == "price" {
		sortCol = priceCol
	}
	dir := store.Direction(f.Order)
	return propertiesQuery{with: with, columns: propertySummaryColumns + `, ` + propLowestColumn(f.Stay != nil), from: from,
		orderBy: sortCol + ` ` + dir + `, p.id ` + dir, where: w}, nil
}

func propLowestColumn(withStay bool) string {
	if withStay {
		return "lowest.total"
	}
	return "CAST(NULL AS BIGINT)"
}

// timezonesSQL lists the property time zones from properties_timezone.
const timezonesSQL = `SELECT DISTINCT timezone FROM properties ORDER BY timezone`

// timezonesPast returns the property time zones in which day has already
// passed.
func (s *Property) timezonesPast(ctx context.Context, day property.Date) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, timezonesSQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	now := s.clock.Now()
	for rows.Next() {
		var tz string
		if err := rows.Scan(&tz); err != nil {
			return nil, err
		}
		if day.Before(property.LocalToday(now, tz)) {
			out = append(out, tz)
		}
	}
	return out, rows.Err()
}

// propMode is the inventory of the account's key: "test" or "live".
func propMode(acct property.Account) string {
	if acct.Test {
		return property.ModeTest
	}
	return property.ModeLive
}

// propOwned is the condition that property p belongs to the account and
// its mode.
func propOwned(w *store.Where, acct property.Account) string {
	return "(p.owner_id = " + w.Arg(acct.DeveloperID) + " AND p.mode = " + w.Arg(propMode(acct)) + ")"
}

// propSold is the condition that property p is sold to the account: it is
// active, and live or the account's key a test key (test keys see the live
// inventory through its test copy, and the test properties).
func propSold(acct property.Account) string {
	if acct.Test {
		return "p.status = 'active'"
	}
	return "(p.status = 'active' AND p.mode = 'live')"
}

// propVisible is the condition that the account may see property p: it is
// sold to it, or it is its own.
func propVisible(w *store.Where, acct property.Account) string {
	return "(" + propSold(acct) + " OR " + propOwned(w, acct) + ")"
}

// propertyRow is what the booking rules need of a property.
type propertyRow struct {
	id, timezone, currency, checkInTime, policy string
}

// loadProperty returns a property the account may see, or
// apperr.NotFound.
func (s *Property) loadProperty(ctx context.Context, q store.Querier, acct property.Account, id string) (*propertyRow, error) {
	var p propertyRow
	w := &store.Where{}
	w.And("p.id = " + w.Arg(id))
	w.And(propVisible(w, acct))
	err := q.QueryRowContext(ctx, `SELECT p.id, p.timezone, p.currency, p.check_in_time, p.cancellation_policy FROM properties p`+w.String(), w.Args...).
		Scan(&p.id, &p.timezone, &p.currency, &p.checkInTime, &p.policy)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No property with id %q.", id)
	}
	return &p, err
}

// loadSoldRoom returns a property sold to the account and one of its room
// types, read together: apperr.NotFound names the property when the
// account may not book it, else the room type when it has no such one.
func (s *Property) loadSoldRoom(ctx context.Context, acct property.Account, propertyID, roomTypeID string) (*propertyRow, property.RoomType, error) {
	var p propertyRow
	var rt property.RoomType
	var rtID, name, description sql.NullString
	var maxGuests, totalUnits, basePrice sql.NullInt64
	var beds []byte
	err := s.db.QueryRowContext(ctx, `SELECT p.id, p.timezone, p.currency, p.check_in_time, p.cancellation_policy,
			r.id, r.name, r.description, r.max_guests, r.beds, r.total_units, r.base_price
		FROM properties p LEFT JOIN room_types r ON r.property_id = p.id AND r.id = $2 AND r.deleted_at IS NULL
		WHERE p.id = $1 AND `+propSold(acct), propertyID, roomTypeID).
		Scan(&p.id, &p.timezone, &p.currency, &p.checkInTime, &p.policy, &rtID, &name, &description, &maxGuests, &beds, &totalUnits, &basePrice)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, rt, apperr.Errorf(apperr.NotFound, "No property with id %q.", propertyID)
	} else if err != nil {
		return nil, rt, err
	}
	if !rtID.Valid {
		return nil, rt, apperr.Errorf(apperr.NotFound, "Property %s has no room type with id %q.", p.id, roomTypeID)
	}
	rt = property.RoomType{ID: rtID.String, Name: name.String, Description: description.String, MaxGuests: int(maxGuests.Int64),
		TotalUnits: int(totalUnits.Int64), BasePrice: property.Money{Amount: basePrice.Int64, Currency: p.currency}}
	if err := scanBeds(beds, &rt); err != nil {
		return nil, rt, err
	}
	return &p, rt, nil
}

// FindProperty returns a property with its room types.
func (s *Property) FindProperty(ctx context.Context, viewer property.Account, id string) (_ *property.Property, err error) {
	defer store.Wrap(&err, "find property %s", id)
	w := &store.Where{}
	w.And("p.id = " + w.Arg(id))
	w.And(propVisible(w, viewer))
	return findProperty(ctx, s.db, id, w)
}

// findProperty returns the property selected by w (on properties p).
func findProperty(ctx context.Context, q store.Querier, id string, w *store.Where) (_ *property.Property, err error) {
	var p property.Property
	var amenities, images []byte
	var licence sql.NullString
	var policy string
	err = q.QueryRowContext(ctx, `SELECT p.id, p.name, p.type, p.description, p.address, p.city, p.country_code, p.latitude, p.longitude,
			p.timezone, p.currency, p.check_in_time, p.check_out_time, p.amenities, p.images, p.rating, p.review_count, p.license_number,
			p.cancellation_policy, p.status
		FROM properties p`+w.String(), w.Args...).Scan(&p.ID, &p.Name, &p.Type, &p.Description, &p.Address, &p.City, &p.CountryCode,
		&p.Latitude, &p.Longitude, &p.Timezone, &p.Currency, &p.CheckInTime, &p.CheckOutTime, &amenities, &images,
		&p.Rating, &p.ReviewCount, &licence, &policy, &p.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No property with id %q.", id)
	} else if err != nil {
		return nil, err
	}
	p.Amenities, p.Images, p.LicenseNumber = store.StringList(amenities), store.StringList(images), store.NullString(licence)
	var ok bool
	if p.CancellationPolicy, ok = property.Policy(policy); !ok {
		return nil, fmt.Errorf("property %s: unknown cancellation policy %q", id, policy)
	}
	p.RoomTypes, err = roomTypes(ctx, q, id, "")
	return &p, err
}

// roomTypes returns the property's room types (or the one with id
// roomTypeID) in their order.
func roomTypes(ctx context.Context, q store.Querier, propertyID, roomTypeID string) ([]property.RoomType, error) {
	w := &store.Where{}
	w.And("r.property_id = " + w.Arg(propertyID))
	w.And("r.deleted_at IS NULL")
	if roomTypeID != "" {
		w.And("r.id = " + w.Arg(roomTypeID))
	}
	rows, err := q.QueryContext(ctx, `SELECT r.id, r.name, r.description, r.max_guests, r.beds, r.total_units, r.base_price, p.currency
		FROM room_types r JOIN properties p ON p.id = r.property_id`+w.String()+` ORDER BY r.position, r.id`, w.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []property.RoomType{}
	for rows.Next() {
		var rt property.RoomType
		var beds []byte
		if err := rows.Scan(&rt.ID, &rt.Name, &rt.Description, &rt.MaxGuests, &beds, &rt.TotalUnits, &rt.BasePrice.Amount, &rt.BasePrice.Currency); err != nil {
			return nil, err
		}
		if err := scanBeds(beds, &rt); err != nil {
			return nil, err
		}
		out = append(out, rt)
	}
	return out, rows.Err()
}

// scanBeds sets the room type's beds from their JSON column: none when
// NULL.
func scanBeds(beds []byte, rt *property.RoomType) error {
	rt.Beds = []property.Bed{}
	if len(beds) > 0 {
		if err := json.Unmarshal(beds, &rt.Beds); err != nil {
			return fmt.Errorf("room type %s beds: %w", rt.ID, err)
		}
	}
	return nil
}

// FindAvailability returns the calendar of the property's room types.
func (s *Property) FindAvailability(ctx context.Context, viewer property.Account, propertyID, roomTypeID string, from, to property.Date) (_ *property.Availability, err error) {
	defer store.Wrap(&err, "find availability of property %s", propertyID)
	p, err := s.loadProperty(ctx, s.db, viewer, propertyID)
	if err != nil {
		return nil, err
	}
	test := viewer.Test
	rts, err := roomTypes(ctx, s.db, propertyID, roomTypeID)
	if err != nil {
		return nil, err
	}
	if roomTypeID != "" && len(rts) == 0 {
		return nil, apperr.Errorf(apperr.NotFound, "Property %s has no room type with id %q.", propertyID, roomTypeID)
	}
	now := s.clock.Now()
	today := property.LocalToday(now, p.timezone)
	w := &store.Where{}
	test0, now0 := w.Arg(test), w.Arg(now)
	w.And("c.property_id = " + w.Arg(propertyID))
	w.And("c.night >= " + w.Arg(from))
	w.And("c.night < " + w.Arg(to))
	if roomTypeID != "" {
		w.And("c.room_type_id = " + w.Arg(roomTypeID))
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.room_type_id, c.night, c.price, c.min_stay, c.closed, c.closed_to_arrival,
			c.closed_to_departure, `+propInventoryOf(test).available(test0, now0)+` FROM calendar c`+w.String()+` ORDER BY c.room_type_id, c.night`, w.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	nights := map[string]map[property.Date]property.Night{}
	for rows.Next() {
		var id string
		var n property.Night
		if err := rows.Scan(&id, &n.Date, &n.Price.Amount, &n.MinStay, &n.Closed, &n.ClosedToArrival, &n.ClosedToDeparture, &n.AvailableUnits); err != nil {
			return nil, err
		}
		n.Price.Currency = p.currency
		n.AvailableUnits = max(n.AvailableUnits, 0)
		if nights[id] == nil {
			nights[id] = map[property.Date]property.Night{}
		}
		nights[id][n.Date] = n
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	a := &property.Availability{PropertyID: propertyID, From: from, To: to, Currency: p.currency, RoomTypes: []property.RoomTypeAvailability{}}
	for _, rt := range rts {
		ra := property.RoomTypeAvailability{RoomTypeID: rt.ID, Name: rt.Name, Nights: make([]property.Night, 0, from.DaysUntil(to))}
		for d := from; d.Before(to); d = d.AddDays(1) {
			n, ok := nights[rt.ID][d]
			if !ok || d.Before(today) {
				// Not sold: outside the calendar, or already past.
				n = property.Night{Date: d, Price: rt.BasePrice, MinStay: max(n.MinStay, 1), Closed: true}
			}
			ra.Nights = append(ra.Nights, n)
		}
		a.RoomTypes = append(a.RoomTypes, ra)
	}
	return a, nil
}
