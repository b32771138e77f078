package propertyhttp_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
)

// parallel runs fn n times at once and counts the statuses.
func parallel(n int, fn func(i int) int) map[int]int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			status := fn(i)
			mu.Lock()
			counts[status]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return counts
}

// TestLastUnitRaces: 50 concurrent requests for the last unit of a night
// get exactly one 201, through the API, on every engine; concurrent
// cancels of one booking get one 200.
func TestLastUnitRaces(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			d := e.signup(t)
			live, test := e.key(t, d, "live"), e.key(t, d, "test")
			r := e.tokyoDouble(t)
			const n = 50
			last := day(12)
			e.setNight(t, r.roomTypeID, last, "sold = total_units - 1, test_sold = total_units - 1")

			// 50 bookings of stays that include the night: one 201.
			got := parallel(n, func(i int) int {
				body := mergeMaps(stay(r, last.AddDays(-(i%3)), 3, 2), map[string]any{"guest": guest})
				return e.Do("POST", "/api/v1/bookings", body, xkey(live)...).Status
			})
			if got[201] != 1 || got[409] != n-1 {
				t.Fatalf("50 bookings for the last unit: %v", got)
			}
			var sold, total int
			if err := e.db.QueryRow(`SELECT sold, total_units FROM calendar WHERE room_type_id = $1 AND night = $2`, r.roomTypeID, last).Scan(&sold, &total); err != nil {
				t.Fatal(err)
			}
			if sold != total {
				t.Fatalf("sold %d of %d", sold, total)
			}
			var bookings struct {
				Data []property.Booking
				Meta paging.Meta
			}
			e.Get("/api/v1/bookings", xkey(live)...).Expect(200).Decode(&bookings)
			if bookings.Meta.Total != 1 {
				t.Fatalf("%d bookings", bookings.Meta.Total)
			}
			booked := bookings.Data[0]

			// Concurrent cancels: one 200, the others 422; the unit is back.
			got = parallel(10, func(int) int {
				return e.Do("POST", "/api/v1/bookings/"+booked.ID+"/cancel", nil, xkey(live)...).Status
			})
			if got[200] != 1 || got[422] != 9 {
				t.Fatalf("concurrent cancels: %v", got)
			}
			if e.available(t, live, r, last) != 1 {
				t.Fatal("the cancel did not return the unit")
			}

			// 50 quotes for the returned last unit: one 201, and no booking
			// gets past the hold.
			got = parallel(n, func(i int) int {
				return e.Do("POST", "/api/v1/quotes", stay(r, last.AddDays(-(i%2)), 2, 2), xkey(live)...).Status
			})
			if got[201] != 1 || got[409] != n-1 {
				t.Fatalf("50 quotes for the last unit: %v", got)
			}
			e.Do("POST", "/api/v1/bookings", mergeMaps(stay(r, last, 1, 2), map[string]any{"guest": guest}), xkey(live)...).Expect(409)

			// The test inventory races alike, apart from the live one.
			got = parallel(n, func(i int) int {
				return e.Do("POST", "/api/v1/quotes", stay(r, last, 1+i%2, 2), xkey(test)...).Status
			})
			if got[201] != 1 || got[409] != n-1 {
				t.Fatalf("50 test quotes for the last unit: %v", got)
			}
			var violations int
			if err := e.db.QueryRow(`SELECT COUNT(*) FROM calendar WHERE sold + held > total_units OR test_sold + test_held > total_units`).Scan(&violations); err != nil {
				t.Fatal(err)
			}
			if violations != 0 {
				t.Errorf("%d nights oversold", violations)
			}
		})
	}
}

// TestQuoteBookedOnce: 20 concurrent bookings of one quote make one
// booking; the others hear 422 INVALID_STATE, and the hold became one
// sale.
func TestQuoteBookedOnce(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			d := e.signup(t)
			live := e.key(t, d, "live")
			r := e.tokyoDouble(t)
			night := day(14)
			before := e.available(t, live, r, night)
			var quote property.Quote
			e.Do("POST", "/api/v1/quotes", stay(r, night, 1, 2), xkey(live)...).Expect(201).Decode(&quote)
			got := parallel(20, func(int) int {
				return e.Do("POST", "/api/v1/bookings", map[string]any{"quoteId": quote.ID, "guest": guest}, xkey(live)...).Status
			})
			if got[201] != 1 || got[422] != 19 {
				t.Fatalf("20 bookings of one quote: %v", got)
			}
			var bookings struct{ Meta paging.Meta }
			e.Get("/api/v1/bookings", xkey(live)...).Expect(200).Decode(&bookings)
			if bookings.Meta.Total != 1 {
				t.Errorf("%d bookings", bookings.Meta.Total)
			}
			var held int
			if err := e.db.QueryRow(`SELECT held FROM calendar WHERE room_type_id = $1 AND night = $2`, r.roomTypeID, night).Scan(&held); err != nil {
				t.Fatal(err)
			}
			if held != 0 || e.available(t, live, r, night) != before-1 {
				t.Errorf("after the race: %d held, %d available, want 0 and %d", held, e.available(t, live, r, night), before-1)
			}
		})
	}
}

// heapOrderScans turns index scans off on every connection of a
// PostgreSQL pool (all of them kept idle, with their settings, by
// store.SetPool), so that statements read rows in the heap's order, as a
// bitmap or sequential scan of a large calendar does, instead of an index's.
func heapOrderScans(t *testing.T, db *store.DB) {
	t.Helper()
	if db.Engine != store.Postgres {
		return
	}
	// Each connection is held until all are, so that each is a new one.
	for range store.DefaultMaxConns() {
		c, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.ExecContext(t.Context(), `SET enable_indexscan = off`); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCalendarPushRaces: calendar pushes race quotes, bookings of quotes
// and of stays, cancellations and the release of expired holds on the same
// nights. Every path locks nights in one order (room type, then date), so
// PostgreSQL aborts no transaction for a deadlock; no request fails, and
// each night's counters are exactly what the bookings and quotes say. On
// PostgreSQL the rows are read in heap order (heapOrderScans), in which a
// multi-row UPDATE locked them before every path locked nights in date
// order first.
func TestCalendarPushRaces(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			d := e.signup(t)
			key := e.key(t, d, "live")
			const units = 24
			heapOrderScans(t, e.db)
			r := e.hostRoom(t, key, units)
			first, last := day(3), day(12) // the nights raced for

			// Holds that expire before the race, for the race to release.
			for i := range 4 {
				e.Do("POST", "/api/v1/quotes", stay(r, first.AddDays(i*2), 3, 2), xkey(key)...).Expect(201)
			}
			e.clock.Advance(16 * time.Minute)

			type op struct {
				name   string
				status int
			}
			var mu sync.Mutex
			seen := map[op]int{}
			record := func(name string, res *apitest.Response) *apitest.Response {
				mu.Lock()
				seen[op{name, res.Status}]++
				mu.Unlock()
				if res.Status >= 500 {
					t.Errorf("%s: %d %s", name, res.Status, res.Body)
				}
				return res
			}
			const workers, rounds = 15, 20
			const pushers = 2 * workers / 5
			var wg sync.WaitGroup
			start := make(chan struct{})
			for w := range workers {
				wg.Go(func() {
					<-start
					for j := range rounds {
						checkIn := first.AddDays((w*7 + j*3) % 8)
						nights := 1 + (w+j)%3
						switch w % 5 {
						case 0, 1: // pushes over every raced night, in two groups
							record("push", e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(
								map[string]any{"roomTypeId": r.roomTypeID, "from": first.String(), "to": last.String(), "units": units,
									"price": map[string]any{"amount": 15000 + 100*j}},
								map[string]any{"roomTypeId": r.roomTypeID, "from": checkIn.String(), "to": checkIn.AddDays(nights).String(),
									"minStay": 1, "price": map[string]any{"amount": 16000 + 100*w}},
							), xkey(key)...))
						case 2: // quote, then book the quote
							res := record("quote", e.Do("POST", "/api/v1/quotes", stay(r, checkIn, nights, 2), xkey(key)...))
							if res.Status != 201 {
								continue
							}
							var q property.Quote
							if err := json.Unmarshal(res.Body, &q); err != nil {
								t.Error(err)
								return
							}
							record("book quote", e.Do("POST", "/api/v1/bookings", map[string]any{"quoteId": q.ID, "guest": guest}, xkey(key)...))
						case 3: // book a stay, cancel every other one
							res := record("book", e.Do("POST", "/api/v1/bookings", mergeMaps(stay(r, checkIn, nights, 2),
								map[string]any{"guest": guest}), xkey(key)...))
							if res.Status != 201 || j%2 == 1 {
								continue
							}
							var b property.Booking
							if err := json.Unmarshal(res.Body, &b); err != nil {
								t.Error(err)
								return
							}
							record("cancel", e.Do("POST", "/api/v1/bookings/"+b.ID+"/cancel", nil, xkey(key)...))
						case 4: // quotes left to hold, and the release of expired holds
							record("quote", e.Do("POST", "/api/v1/quotes", stay(r, checkIn, nights, 2), xkey(key)...))
							if _, err := e.store.ReleaseExpiredHolds(t.Context()); err != nil {
								t.Errorf("release expired holds: %v", err)
							}
						}
					}
				})
			}
			close(start)
			wg.Wait()
			t.Logf("outcomes: %v", seen)
			if n := e.db.TxConflicts(); n != 0 {
				t.Errorf("PostgreSQL aborted %d transactions for a deadlock", n)
			}
			for o, n := range seen {
				switch {
				case o.status == 409 && (o.name == "quote" || o.name == "book"): // sold out
				case o.status == 200 && (o.name == "push" || o.name == "cancel"):
				case o.status == 201 && o.name != "push" && o.name != "cancel":
				default:
					t.Errorf("%s answered %d %d times", o.name, o.status, n)
				}
			}
			if seen[op{"push", 200}] != pushers*rounds || seen[op{"book quote", 201}] == 0 || seen[op{"cancel", 200}] == 0 {
				t.Errorf("outcomes: %v", seen)
			}

			// Each night's counters are the confirmed bookings and the
			// holds running over it, within its units.
			rows, err := e.db.Query(`SELECT c.night, c.sold, c.held, c.total_units,
					(SELECT COUNT(*) FROM bookings b WHERE b.room_type_id = c.room_type_id AND b.status = 'CONFIRMED'
						AND b.check_in <= c.night AND b.check_out > c.night),
					(SELECT COUNT(*) FROM quotes q WHERE q.room_type_id = c.room_type_id AND q.status = 'held'
						AND q.check_in <= c.night AND q.check_out > c.night)
				FROM calendar c WHERE c.room_type_id = $1 ORDER BY c.night`, r.roomTypeID)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var night property.Date
				var sold, held, total, booked, holding int
				if err := rows.Scan(&night, &sold, &held, &total, &booked, &holding); err != nil {
					t.Fatal(err)
				}
				if sold != booked || held != holding || sold+held > total {
					t.Errorf("%s: sold %d, held %d of %d units; bookings %d, holds %d", night, sold, held, total, booked, holding)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
