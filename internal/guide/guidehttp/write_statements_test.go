package guidehttp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestWriteStatements pins how many SQL statements the load benchmark's
// guide writes run (bench/run.sh: booking_user, message), each after one
// like it, so that a statement added to the hot path fails here and is
// weighed in review (BENCHMARKS.md, issue 47). On PostgreSQL each
// statement is a round trip, the transaction's begin and commit among
// them.
//
// Not parallel: it turns tracing on for the process (storetest.Statements).
func TestWriteStatements(t *testing.T) {
	want := map[store.Engine]map[string]int{
		store.SQLite:   {"booking create": 5, "message send": 7},
		store.Postgres: {"booking create": 6, "message send": 6},
	}
	for _, eng := range storetest.Engines() {
		t.Run(string(eng), func(t *testing.T) {
			e := newEnv(t, options{noIdP: true}, eng)
			tourist := e.register(t, "statements@example.com", "TOURIST")
			var pkgs struct{ Data []struct{ ID string } }
			e.Get("/api/v1/packages?pageSize=2").Expect(200).Decode(&pkgs)
			var conv struct{ Data struct{ ID string } }
			e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(tourist.token)...).Expect(201).Decode(&conv)

			n := 0
			book := func(traceparent string) {
				e.Do("POST", "/api/v1/bookings", map[string]any{"packageId": pkgs.Data[n%2].ID,
					"scheduledDate": fmt.Sprintf("2027-01-%02dT09:00:00+09:00", 1+n), "participants": 1,
					"customRequest": "Vegetarian lunch please."}, append(bearer(tourist.token), "traceparent", traceparent)...).Expect(201)
				n++
			}
			send := func(traceparent string) {
				e.Do("POST", "/api/v1/conversations/"+conv.Data.ID+"/messages", map[string]string{"content": "Still available next week?"},
					append(bearer(tourist.token), "traceparent", traceparent)...).Expect(201)
			}
			got := map[string]int{}
			for name, do := range map[string]func(string){"booking create": book, "message send": send} {
				do("") // the first of its kind prepares its statements
				stmts := storetest.Statements(t, do)
				got[name] = len(stmts)
				t.Logf("%s, %d statements:\n%s", name, len(stmts), strings.Join(stmts, "\n"))
			}
			if diff := cmp.Diff(want[eng], got); diff != "" {
				t.Errorf("statements per write (-want +got):\n%s", diff)
			}
		})
	}
}
