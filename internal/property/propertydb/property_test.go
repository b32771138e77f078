package propertydb_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
	"github.com/wayfarer-asia/platform/internal/property/sample"
)

func propertyClock() *clock.Fake { return clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)) }

// propertyFixture is a property database with a short sample calendar, a
// developer, and one room type whose night lastNight has one unit left.
type propertyFixture struct {
	db         *store.DB
	s          *propertydb.Property
	clk        *clock.Fake
	live, test property.Account
	propertyID string
	roomTypeID string
	lastNight  property.Date
	units      int
}

// shortSampleDays is the calendar the tests load: December's first half
// and more, quicker to load than the year the server loads (whose every
// night TestPropertySampleShape checks).
const shortSampleDays = 40

func loadShortSample(ctx context.Context, db *store.DB) error {
	return propertydb.LoadSample(ctx, db, sample.GenerateDays(propertySampleStart, shortSampleDays))
}

func newPropertyFixture(t *testing.T, engine store.Engine) *propertyFixture {
	t.Helper()
	db := storetest.MustOpenSample(t, engine, propertydb.Schema, loadShortSample)
	f := &propertyFixture{db: db, clk: propertyClock(), lastNight: property.NewDate(2026, 12, 9)}
	f.s = propertydb.New(db, f.clk)
	dev, err := f.s.CreateDeveloper(t.Context(), property.NewDeveloper{Email: "racer@example.com", Name: "Racer"})
	if err != nil {
		t.Fatal(err)
	}
	f.live, f.test = property.Account{DeveloperID: dev.ID}, property.Account{DeveloperID: dev.ID, Test: true}
	if err := db.QueryRow(`SELECT p.id, r.id, r.total_units FROM properties p JOIN room_types r ON r.property_id = p.id
		WHERE p.name = 'Shinjuku Gardenview Hotel' AND r.name = 'Standard Double Room'`).Scan(&f.propertyID, &f.roomTypeID, &f.units); err != nil {
		t.Fatal(err)
	}
	// Open every night of the first half of December, with one unit left
	// on lastNight.
	if _, err := db.Exec(`UPDATE calendar SET closed = FALSE, closed_to_arrival = FALSE, closed_to_departure = FALSE, min_stay = 1,
		sold = 0, test_sold = 0 WHERE room_type_id = $1`, f.roomTypeID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE calendar SET sold = total_units - 1, test_sold = total_units - 1 WHERE room_type_id = $1 AND night = $2`,
		f.roomTypeID, f.lastNight); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *propertyFixture) stay(checkIn property.Date, nights int) property.StayRequest {
	return property.StayRequest{PropertyID: f.propertyID, RoomTypeID: f.roomTypeID, CheckIn: checkIn, CheckOut: checkIn.AddDays(nights), Guests: 2}
}

func (f *propertyFixture) counters(t *testing.T, night property.Date) (sold, held, testSold, testHeld int) {
	t.Helper()
	if err := f.db.QueryRow(`SELECT sold, held, test_sold, test_held FROM calendar WHERE room_type_id = $1 AND night = $2`,
		f.roomTypeID, night).Scan(&sold, &held, &testSold, &testHeld); err != nil {
		t.Fatal(err)
	}
	return
}

// race runs fn n times at once and counts the outcomes by error code ("" for
// success).
func propRace(n int, fn func(i int) error) map[string]int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	out := map[string]int{}
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			err := fn(i)
			code := ""
			if err != nil {
				code = apperr.Code(err)
				if code == apperr.Internal {
					code = err.Error()
				}
			}
			mu.Lock()
			out[code]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return out
}

// TestPropertyNeverOversells races for the last unit of a night on every
// engine: quotes, direct bookings, bookings after the hold expired, and
// cancellations.
func TestPropertyNeverOversells(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			f := newPropertyFixture(t, engine)
			ctx := t.Context()
			const n = 50
			guest := property.Guest{FirstName: "Ana", LastName: "Lima", Email: "ana@example.com"}

			// 50 quotes of stays that all include the last night: one wins.
			var won *property.Quote
			var mu sync.Mutex
			got := propRace(n, func(i int) error {
				q, err := f.s.CreateQuote(ctx, f.live, f.stay(f.lastNight.AddDays(-(i%3)), 3), 15*time.Minute)
				if err == nil {
					mu.Lock()
					won = q
					mu.Unlock()
				}
				return err
			})
			if got[""] != 1 || got[apperr.StayUnavailable] != n-1 {
				t.Fatalf("50 quotes for the last unit: %v", got)
			}
			if sold, held, _, _ := f.counters(t, f.lastNight); sold != f.units-1 || held != 1 {
				t.Fatalf("after the quotes: sold %d held %d of %d", sold, held, f.units)
			}
			// The hold blocks direct bookings of the night.
			got = propRace(n, func(int) error {
				_, err := f.s.CreateBooking(ctx, f.live, property.NewBooking{Stay: propPtr(f.stay(f.lastNight, 1)), Guest: guest})
				return err
			})
			if got[apperr.StayUnavailable] != n {
				t.Fatalf("bookings against a held last unit: %v", got)
			}
			// The test inventory is apart: its last unit is still there.
			if _, err := f.s.CreateQuote(ctx, f.test, f.stay(f.lastNight, 1), 15*time.Minute); err != nil {
				t.Fatalf("test quote: %v", err)
			}
			if _, err := f.s.CreateQuote(ctx, f.test, f.stay(f.lastNight, 1), 15*time.Minute); apperr.Code(err) != apperr.StayUnavailable {
				t.Fatalf("second test quote: %v", err)
			}
			sold, held, testSold, testHeld := f.counters(t, f.lastNight)
			gotCounters := map[string]int{"sold": sold, "held": held, "testSold": testSold, "testHeld": testHeld}
			wantCounters := map[string]int{"sold": f.units - 1, "held": 1, "testSold": f.units - 1, "testHeld": 1}
			if diff := cmp.Diff(wantCounters, gotCounters); diff != "" {
				t.Fatalf("counters (-want +got):\n%s", diff)
			}

			// The hold expires: availability no longer counts it, and of 50
			// direct bookings exactly one gets the unit.
			f.clk.Advance(15*time.Minute + time.Second)
			a, err := f.s.FindAvailability(ctx, property.Account{}, f.propertyID, f.roomTypeID, f.lastNight, f.lastNight.AddDays(1))
			if err != nil || a.RoomTypes[0].Nights[0].AvailableUnits != 1 {
				t.Fatalf("availability after expiry: %+v %v", a, err)
			}
			if _, err := f.s.CreateBooking(ctx, f.live, property.NewBooking{QuoteID: won.ID, Guest: guest}); apperr.Code(err) != apperr.Gone {
				t.Fatalf("booking an expired quote: %v", err)
			}
			var booked *property.Booking
			got = propRace(n, func(int) error {
				b, err := f.s.CreateBooking(ctx, f.live, property.NewBooking{Stay: propPtr(f.stay(f.lastNight, 1)), Guest: guest})
				if err == nil {
					mu.Lock()
					booked = b
					mu.Unlock()
				}
				return err
			})
			if got[""] != 1 || got[apperr.StayUnavailable] != n-1 {
				t.Fatalf("50 bookings for the released last unit: %v", got)
			}
			if sold, held, _, _ := f.counters(t, f.lastNight); sold != f.units || held != 0 {
				t.Fatalf("after the bookings: sold %d held %d of %d", sold, held, f.units)
			}
			// The other nights of the expired quote were released too.
			if _, held, _, _ := f.counters(t, won.CheckIn); held != 0 {
				t.Errorf("held on %s after release: %d", won.CheckIn, held)
			}
			if n, err := f.s.ReleaseExpiredHolds(ctx); err != nil || n != 1 {
				t.Errorf("ReleaseExpiredHolds = %d, %v; want the test quote", n, err)
			}
			if _, _, _, testHeld := f.counters(t, f.lastNight); testHeld != 0 {
				t.Errorf("test hold not released: %d", testHeld)
			}

			// Ten concurrent cancels: one cancels and returns the unit.
			got = propRace(10, func(int) error {
				_, err := f.s.CancelBooking(ctx, f.live, booked.ID)
				return err
			})
			if got[""] != 1 || got[apperr.InvalidState] != 9 {
				t.Fatalf("concurrent cancels: %v", got)
			}
			if sold, _, _, _ := f.counters(t, f.lastNight); sold != f.units-1 {
				t.Fatalf("after the cancel: sold %d", sold)
			}

			// 50 quotes then 50 bookings of those quotes: each quote books once.
			q, err := f.s.CreateQuote(ctx, f.live, f.stay(f.lastNight, 2), time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			got = propRace(n, func(int) error {
				_, err := f.s.CreateBooking(ctx, f.live, property.NewBooking{QuoteID: q.ID, Guest: guest})
				return err
			})
			if got[""] != 1 || got[apperr.InvalidState] != n-1 {
				t.Fatalf("50 bookings of one quote: %v", got)
			}
			if sold, held, _, _ := f.counters(t, f.lastNight); sold != f.units || held != 0 {
				t.Fatalf("after booking the quote: sold %d held %d", sold, held)
			}
			var violations int
			if err := f.db.QueryRow(`SELECT COUNT(*) FROM calendar WHERE sold + held > total_units OR test_sold + test_held > total_units
				OR sold < 0 OR held < 0 OR test_sold < 0 OR test_held < 0`).Scan(&violations); err != nil {
				t.Fatal(err)
			}
			if violations != 0 {
				t.Errorf("%d nights oversold", violations)
			}
		})
	}
}

func propPtr[T any](v T) *T { return &v }

// TestPropertyStayRules checks each reason a stay is refused.
func TestPropertyStayRules(t *testing.T) {
	t.Parallel()
	f := newPropertyFixture(t, store.SQLite)
	ctx := t.Context()
	d := property.NewDate(2026, 12, 14)
	set := func(q string, night property.Date) {
		t.Helper()
		if _, err := f.db.Exec(`UPDATE calendar SET `+q+` WHERE room_type_id = $1 AND night = $2`, f.roomTypeID, night); err != nil {
			t.Fatal(err)
		}
	}
	reason := func(req property.StayRequest) string {
		t.Helper()
		_, err := f.s.CreateQuote(ctx, f.live, req, time.Minute)
		var e *apperr.Error
		if err == nil {
			return "ok"
		}
		if !propAsAppErr(err, &e) || e.Code != apperr.StayUnavailable {
			t.Fatalf("%+v: %v", req, err)
		}
		return e.Details["reason"].(string)
	}
	set("closed = TRUE", d.AddDays(1))
	set("closed_to_arrival = TRUE", d.AddDays(3))
	set("closed_to_departure = TRUE", d.AddDays(5))
	set("min_stay = 3", d.AddDays(6))
	set("sold = total_units", d.AddDays(10))
	big := f.stay(d.AddDays(12), 1)
	big.Guests = 3
	for _, c := range []struct {
		req  property.StayRequest
		want string
	}{
		{f.stay(d, 2), property.ReasonClosed},
		{f.stay(d.AddDays(3), 1), property.ReasonClosedToArrival},
		{f.stay(d.AddDays(4), 1), property.ReasonClosedToDeparture},
		{f.stay(d.AddDays(6), 2), property.ReasonMinStay},
		{f.stay(d.AddDays(9), 2), property.ReasonSoldOut},
		{big, property.ReasonMaxGuests},
		{f.stay(d.AddDays(6), 3), "ok"},
		{f.stay(d.AddDays(2), 1), "ok"},
	} {
		if got := reason(c.req); got != c.want {
			t.Errorf("%s..%s: %s, want %s", c.req.CheckIn, c.req.CheckOut, got, c.want)
		}
	}
	if _, err := f.s.CreateQuote(ctx, f.live, f.stay(property.NewDate(2026, 11, 21), 1), time.Minute); apperr.Code(err) != apperr.Validation {
		t.Errorf("past check-in: %v", err)
	}
	if _, err := f.s.CreateQuote(ctx, f.live, f.stay(d, 31), time.Minute); apperr.Code(err) != apperr.Validation {
		t.Errorf("31 nights: %v", err)
	}
	if _, err := f.s.CreateQuote(ctx, f.live, f.stay(property.NewDate(2027, 6, 1), 1), time.Minute); propReason(err) != property.ReasonClosed {
		t.Errorf("beyond the calendar: %v", err)
	}
}

func propAsAppErr(err error, e **apperr.Error) bool {
	var x *apperr.Error
	ok := err != nil && propErrorsAs(err, &x)
	*e = x
	return ok
}

func propReason(err error) string {
	var e *apperr.Error
	if propAsAppErr(err, &e) && e.Details != nil {
		r, _ := e.Details["reason"].(string)
		return r
	}
	return ""
}

// TestPropertyKeysAndUsage covers rotation, revocation and usage.
func TestPropertyKeysAndUsage(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			db := storetest.MustOpenDB(t, engine, propertydb.Schema)
			clk := propertyClock()
			s := propertydb.New(db, clk)
			ctx := context.Background()
			dev, _ := s.CreateDeveloper(ctx, property.NewDeveloper{Email: "k@example.com", Name: "K"})
			if _, err := s.CreateDeveloper(ctx, property.NewDeveloper{Email: "K@Example.com", Name: "K2"}); apperr.Code(err) != apperr.EmailTaken {
				t.Fatalf("duplicate e-mail: %v", err)
			}
			k := &property.Key{DeveloperID: dev.ID, Name: "main", KeyPrefix: "pk_test_abcd", Mode: "test", Scopes: property.Scopes}
			if err := s.CreateKey(ctx, k, "hash-1"); err != nil {
				t.Fatal(err)
			}
			nk, err := s.RotateKey(ctx, dev.ID, k.ID, "pk_test_efgh", "hash-2", property.RotationGrace)
			if err != nil || nk.Mode != "test" || nk.Name != "main" {
				t.Fatalf("rotate: %+v %v", nk, err)
			}
			if _, err := s.RotateKey(ctx, dev.ID, k.ID, "x", "hash-3", property.RotationGrace); apperr.Code(err) != apperr.InvalidState {
				t.Errorf("second rotation: %v", err)
			}
			if _, err := s.FindKeyByHash(ctx, "hash-1"); err != nil {
				t.Errorf("old key within the grace: %v", err)
			}
			clk.Advance(24*time.Hour + time.Second)
			if _, err := s.FindKeyByHash(ctx, "hash-1"); apperr.Code(err) != apperr.Unauthorized {
				t.Errorf("old key after the grace: %v", err)
			}
			keys, _ := s.FindKeys(ctx, dev.ID)
			if len(keys) != 1 || keys[0].ID != nk.ID {
				t.Errorf("keys: %+v", keys)
			}
			u := property.NewUsage()
			now := clk.Now()
			u.Record(nk.ID, now, false)
			u.Record(nk.ID, now, true)
			u.Record(k.ID, now.Add(-25*time.Hour), false)
			if err := s.FlushUsage(ctx, u); err != nil {
				t.Fatal(err)
			}
			u.Record(nk.ID, now, false)
			days, err := s.FindUsage(ctx, dev.ID, property.DateOf(now).AddDays(-3), property.DateOf(now), u.Pending())
			if err != nil {
				t.Fatalf("usage: %v", err)
			}
			gotUsage := map[string]any{"days": len(days)}
			if len(days) == 2 {
				gotUsage["requests"], gotUsage["rateLimited"], gotUsage["firstKey"], gotUsage["prefix"] =
					days[1].Requests, days[1].RateLimited, days[0].KeyID, days[1].KeyPrefix
			}
			wantUsage := map[string]any{"days": 2, "requests": 3, "rateLimited": 1, "firstKey": k.ID, "prefix": "pk_test_efgh"}
			if diff := cmp.Diff(wantUsage, gotUsage); diff != "" {
				t.Fatalf("usage %+v (-want +got):\n%s", days, diff)
			}
			if _, err := s.RevokeKey(ctx, dev.ID, nk.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := s.RevokeKey(ctx, dev.ID, nk.ID); apperr.Code(err) != apperr.NotFound {
				t.Errorf("second revoke: %v", err)
			}
			if _, err := s.FindKeyByHash(ctx, "hash-2"); apperr.Code(err) != apperr.Unauthorized {
				t.Errorf("revoked key: %v", err)
			}

		})
	}
}

func propErrorsAs(err error, target any) bool { return errors.As(err, target) }
