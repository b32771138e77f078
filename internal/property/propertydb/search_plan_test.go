package propertydb

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/property/sample"
)

// TestDateSearchPlan fails when the date search (city, 3 nights, 2 guests,
// by price) stops using the indexes that keep it under 50 ms at 10,000
// properties: the time zones from properties_timezone, the city scan over
// properties_search (migration 00008), the room types by
// room_types_property and the stay's nights by the calendar's primary key
// (room_type_id, night), never a scan of the calendar.
func TestDateSearchPlan(t *testing.T) {
	t.Parallel()
	start := property.NewDate(2026, 11, 22)
	ds := sample.GenerateDays(start, 10)
	type want struct {
		timezones, search []string
		calendarScan      *regexp.Regexp
		properties        *regexp.Regexp // when set, how the plans must read properties
	}
	wants := map[store.Engine]want{
		store.SQLite: {
			timezones: []string{"SCAN properties USING COVERING INDEX properties_timezone"},
			search: []string{
				"SCAN p USING COVERING INDEX properties_search",
				"SEARCH rt USING INDEX room_types_property (property_id=?)",
				// sqlite_autoindex_calendar_1 is the primary key.
				"SEARCH c USING INDEX sqlite_autoindex_calendar_1 (room_type_id=? AND night>? AND night<?)",
			},
			calendarScan: regexp.MustCompile(`SCAN c\b`),
		},
		store.Postgres: {
			timezones: []string{"Index Only Scan using properties_timezone on properties"},
			search: []string{
				"Index Only Scan using properties_search on properties p_1",
				"Index Cond: (property_id = p_1.id)",
				"Index Scan using calendar_pkey on calendar c ",
				"Index Cond: ((room_type_id = rt.id) AND (night >= ",
			},
			calendarScan: regexp.MustCompile(`Seq Scan on calendar`),
		},
	}
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenDB(t, engine, Schema)
			// SQLite plans without statistics, so size does not change
			// its plans; PostgreSQL needs enough properties (1,260 at
			// ×20) to weigh the indexes as at scale, and the statistics
			// and visibility map autovacuum keeps on a settled database.
			scale := 2
			if engine == store.Postgres {
				scale = 20
			}
			if err := LoadSampleScaled(t.Context(), db, ds, scale); err != nil {
				t.Fatal(err)
			}
			if engine == store.Postgres {
				if _, err := db.ExecContext(t.Context(), "VACUUM ANALYZE properties, room_types, calendar, quotes"); err != nil {
					t.Fatal(err)
				}
			}
			s := New(db, clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)))
			ci := start.AddDays(3)
			f := property.PropertyFilter{Page: paging.Page{Page: 1, PageSize: 20, Order: "asc"}, Sort: "price", City: "Tokyo",
				Stay: &property.StaySearch{CheckIn: ci, CheckOut: ci.AddDays(3), Guests: 2}}
			q, err := s.propertiesQuery(t.Context(), f)
			if err != nil {
				t.Fatal(err)
			}
			w := wants[engine]
			check := func(name, plan string, needles []string) {
				for _, n := range needles {
					if !strings.Contains(plan, n) {
						t.Errorf("%s: no %q in the plan:\n%s", name, n, plan)
					}
				}
				if w.properties != nil && !w.properties.MatchString(plan) {
					t.Errorf("%s does not read properties by an index:\n%s", name, plan)
				}
				if w.calendarScan.MatchString(plan) {
					t.Errorf("%s scans the calendar:\n%s", name, plan)
				}
			}
			tx, err := db.BeginTx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if engine == store.Postgres {
				// VACUUM marks pages all-visible, which makes an index-only
				// scan cheap, only past every open transaction of the
				// database, and the other tests' schemas share it: with
				// the heap scans priced out, the plan shows whether the
				// indexes serve the search whatever those tests do.
				for _, q := range []string{"SET LOCAL enable_seqscan = off", "SET LOCAL enable_bitmapscan = off"} {
					if _, err := tx.ExecContext(t.Context(), q); err != nil {
						t.Fatal(err)
					}
				}
				// Without the visibility map an index-only scan costs a
				// heap visit per entry, so the planner rightly reads
				// properties by another index: then the plan must still
				// read them by an index, which enable_seqscan = off
				// alone does not ensure (it only prices scans).
				var settled bool
				if err := tx.QueryRowContext(t.Context(), `SELECT relallvisible >= relpages FROM pg_class WHERE oid = 'properties'::regclass`).Scan(&settled); err != nil {
					t.Fatal(err)
				}
				if !settled {
					w.timezones, w.search = nil, w.search[1:]
					w.properties = regexp.MustCompile(`Index (Only )?Scan using properties_\w+ on properties\b`)
				}
			}
			check("time zones", storetest.Plan(t, tx, engine, timezonesSQL), w.timezones)
			check("search", storetest.Plan(t, tx, engine, store.PageSQL(q.with, q.columns, q.from, q.where, q.orderBy, f.Page), q.where.Args...), w.search)
		})
	}
}
