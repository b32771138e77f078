package propertydb_test

import (
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
	"github.com/wayfarer-asia/platform/internal/property/sample"
)

// BenchmarkPropertyDateSearch is the date search of issue 16: a city, 3
// nights, 2 guests, sorted by price, uncached, on the inventory of
// BENCH_PROPERTY_SCALE× the sample (default 8; 80 is about 10,000
// properties × 4 room types) with BENCH_PROPERTY_DAYS nights of calendar
// (default 60: the search reads only the stay's nights through
// calendar_property_night, so a longer calendar adds index depth, not
// rows read). It reports the p50 and p99 of the searches and the process
// CPU time per search as metrics.
func BenchmarkPropertyDateSearch(b *testing.B) {
	scale, days := benchEnv(b, "BENCH_PROPERTY_SCALE", 8), benchEnv(b, "BENCH_PROPERTY_DAYS", 60)
	ds := sample.GenerateDays(propertySampleStart, days)
	for _, engine := range storetest.Engines() {
		b.Run(string(engine)+"/x"+strconv.Itoa(scale), func(b *testing.B) {
			db := storetest.MustOpenDB(b, engine, propertydb.Schema)
			if err := propertydb.LoadSampleScaled(b.Context(), db, ds, scale); err != nil {
				b.Fatal(err)
			}
			// As autovacuum leaves a settled database: statistics, and on
			// PostgreSQL the visibility map that lets the search read
			// properties_search and the calendar's index alone.
			settle := "ANALYZE"
			if engine == store.Postgres {
				settle = "VACUUM ANALYZE properties, room_types, calendar, quotes"
			}
			if _, err := db.ExecContext(b.Context(), settle); err != nil {
				b.Fatal(err)
			}
			p := propertydb.New(db, propertyClock())
			ci := propertySampleStart.AddDays(days / 2)
			f := property.PropertyFilter{Page: paging.Page{Page: 1, PageSize: 20, Order: "asc"}, Sort: "price", City: "Tokyo",
				Stay: &property.StaySearch{CheckIn: ci, CheckOut: ci.AddDays(3), Guests: 2}}
			var took []time.Duration
			b.ReportAllocs()
			cpu := processCPU(b)
			for b.Loop() {
				start := time.Now()
				list, total, err := p.FindProperties(b.Context(), f)
				took = append(took, time.Since(start))
				if err != nil || len(list) == 0 || total == 0 {
					b.Fatalf("FindProperties: %d of %d, %v", len(list), total, err)
				}
			}
			reportPercentiles(b, took)
			b.ReportMetric(float64((processCPU(b)-cpu).Microseconds())/1000/float64(len(took)), "cpu-ms/op")
		})
	}
}

func benchEnv(b *testing.B, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("%s=%q: want a whole number of at least 1", name, v)
		}
		return n
	}
	return def
}

// processCPU returns the CPU time this process has used: on a machine
// shared with other work it measures a search better than the wall clock.
// On SQLite it is the whole search; on PostgreSQL only the client's share.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportPercentiles adds the p50 and p99 of the timed operations, in
// milliseconds, to the benchmark's result.
func reportPercentiles(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	at := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}
