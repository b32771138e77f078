package propertyapi_test

import (
	"sync"
	"testing"

	"github.com/wayfarer-asia/platform/internal/paging"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/store/storetest"
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
			e.db.QueryRow(`SELECT sold, total_units FROM calendar WHERE room_type_id = $1 AND night = $2`, r.roomTypeID, last).Scan(&sold, &total)
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
			e.db.QueryRow(`SELECT COUNT(*) FROM calendar WHERE sold + held > total_units OR test_sold + test_held > total_units`).Scan(&violations)
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
			e.db.QueryRow(`SELECT held FROM calendar WHERE room_type_id = $1 AND night = $2`, r.roomTypeID, night).Scan(&held)
			if held != 0 || e.available(t, live, r, night) != before-1 {
				t.Errorf("after the race: %d held, %d available, want 0 and %d", held, e.available(t, live, r, night), before-1)
			}
		})
	}
}
