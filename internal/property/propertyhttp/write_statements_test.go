package propertyhttp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestWriteStatements pins how many SQL statements the load benchmark's
// property write runs (bench/run.sh: quotebook, a quote with a live key,
// then its booking), after one like it, so that a statement added to the
// hot path fails here and is weighed in review (BENCHMARKS.md, issue 47).
// On PostgreSQL each statement is a round trip, the transaction's begin
// and commit among them.
//
// Not parallel: it turns tracing on for the process (storetest.Statements).
func TestWriteStatements(t *testing.T) {
	want := map[store.Engine]map[string]int{
		store.SQLite:   {"quote": 5, "book": 7},
		store.Postgres: {"quote": 8, "book": 8},
	}
	for _, eng := range storetest.Engines() {
		t.Run(string(eng), func(t *testing.T) {
			e := newEnv(t, options{}, eng)
			key := e.key(t, e.signup(t), "live")
			r := e.tokyoDouble(t)
			n := 0
			var quoteID string
			quote := func(traceparent string) {
				var q struct{ ID string }
				e.Do("POST", "/api/v1/quotes", map[string]any{"propertyId": r.propertyID, "roomTypeId": r.roomTypeID,
					"checkIn": day(1 + 3*n).String(), "checkOut": day(3 + 3*n).String(), "guests": 2},
					append(xkey(key), "traceparent", traceparent)...).Expect(201).Decode(&q)
				quoteID = q.ID
				n++
			}
			book := func(traceparent string) {
				e.Do("POST", "/api/v1/bookings", map[string]any{"quoteId": quoteID, "guest": guest},
					append(xkey(key), "traceparent", traceparent)...).Expect(201)
			}
			got := map[string]int{}
			for range 2 { // the first pair prepares its statements
				for _, w := range []struct {
					name string
					do   func(string)
				}{{"quote", quote}, {"book", book}} {
					stmts := storetest.Statements(t, w.do)
					got[w.name] = len(stmts)
					t.Logf("%s, %d statements:\n%s", w.name, len(stmts), strings.Join(stmts, "\n"))
				}
			}
			if diff := cmp.Diff(want[eng], got); diff != "" {
				t.Errorf("statements per write (-want +got):\n%s", diff)
			}
		})
	}
}
