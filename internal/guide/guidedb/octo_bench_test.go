package guidedb

import (
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// BenchmarkOctoAvailability is issue 36's scale check: uncached, through
// the service, the availability calendar of one product over 90 days and
// the check of its starts over 7 days, at the catalogue scale
// BENCH_OCTO_SCALE (default 100) on each engine, the expert taken at a
// start of each day by confirmed bookings and live holds. Besides ns/op it
// reports the p50 and p99 in milliseconds.
func BenchmarkOctoAvailability(b *testing.B) {
	scale := 100
	if v := os.Getenv("BENCH_OCTO_SCALE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("BENCH_OCTO_SCALE=%q: want a scale such as 100", v)
		}
		scale = n
	}
	ds := sample.Generate()
	for _, engine := range storetest.Engines() {
		b.Run(string(engine)+"/x"+strconv.Itoa(scale), func(b *testing.B) {
			db := storetest.MustOpenDB(b, engine, Schema)
			if err := LoadSampleScaled(b.Context(), db, ds, scale); err != nil {
				b.Fatal(err)
			}
			g := New(db, clock.System{})
			svc := &guide.Service{Octo: g, Clock: clock.System{}}
			c := &guide.Caller{User: &guide.User{ID: "bench-reseller"}, APIKey: &guide.APIKey{Mode: "live"}}
			ps, err := g.FindOctoProducts(b.Context(), "en", "")
			if err != nil {
				b.Fatal(err)
			}
			ps = slices.DeleteFunc(ps, func(p guide.OctoProduct) bool { return len(p.StartTimes()) == 0 })
			if len(ps) == 0 {
				b.Fatal("no product with a schedule")
			}
			p := ps[len(ps)/2]
			// The expert taken at one start a day, by bookings and holds.
			now := time.Now().UTC()
			var tourist string
			if err := db.QueryRowContext(b.Context(), `SELECT id FROM users WHERE id <> $1 ORDER BY id LIMIT 1`, p.ExpertUserID).Scan(&tourist); err != nil {
				b.Fatal(err)
			}
			loc := p.Location()
			first := time.Date(now.Year(), now.Month(), now.Day()+2, 0, 0, 0, 0, loc)
			for i, st := range p.Starts(first, first.AddDate(0, 0, 89), now) {
				if i%5 != 0 {
					continue
				}
				id := store.NewID()
				if i%2 == 0 {
					_, err = db.ExecContext(b.Context(), `INSERT INTO bookings (id, tourist_id, expert_id, package_id, status, scheduled_date,
						ends_at, participants, created_at, updated_at) VALUES ($1, $2, $3, $4, 'CONFIRMED', $5, $6, 1, $7, $7)`,
						id, tourist, p.ExpertID, p.Package.ID, st.Start.UTC(), st.End.UTC(), now)
				} else {
					_, err = db.ExecContext(b.Context(), `INSERT INTO octo_bookings (id, user_id, test_mode, supplier_reference, request_hash,
						package_id, expert_id, starts_at, ends_at, availability_id, unit_items, contact, status, expires_at, created_at, updated_at)
						VALUES ($1, $2, FALSE, $1, '', $3, $4, $5, $6, $7, '[]', '{}', 'ON_HOLD', $8, $9, $9)`,
						id, tourist, p.Package.ID, p.ExpertID, st.Start.UTC(), st.End.UTC(), st.ID, now.Add(time.Hour), now)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			if engine == store.Postgres {
				if _, err := db.ExecContext(b.Context(), "ANALYZE"); err != nil {
					b.Fatal(err)
				}
			}
			id, option := p.Package.ID, guide.OctoOptionID
			from, to90, to7 := first.Format(time.DateOnly), first.AddDate(0, 0, 89).Format(time.DateOnly), first.AddDate(0, 0, 6).Format(time.DateOnly)
			cases := []struct {
				name string
				run  func() (int, error)
			}{
				{"calendar-90d", func() (int, error) {
					days, err := svc.OctoCalendar(b.Context(), c, guide.OctoAvailabilityRequest{ProductID: &id, OptionID: &option, LocalDateStart: &from, LocalDateEnd: &to90})
					return len(days), err
				}},
				{"availability-7d", func() (int, error) {
					starts, _, err := svc.OctoAvailability(b.Context(), c, guide.OctoAvailabilityRequest{ProductID: &id, OptionID: &option, LocalDateStart: &from, LocalDateEnd: &to7})
					return len(starts), err
				}},
			}
			for _, cs := range cases {
				b.Run(cs.name, func(b *testing.B) {
					var took []time.Duration
					for b.Loop() {
						start := time.Now()
						n, err := cs.run()
						took = append(took, time.Since(start))
						if err != nil || n == 0 {
							b.Fatalf("%d rows, %v", n, err)
						}
					}
					slices.Sort(took)
					at := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000 }
					b.ReportMetric(at(0.50), "p50-ms")
					b.ReportMetric(at(0.99), "p99-ms")
				})
			}
		})
	}
}
