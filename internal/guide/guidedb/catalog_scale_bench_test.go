package guidedb

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// BenchmarkCatalogScale is the growth curve of issue 16: uncached list
// pages (page 1 and page 50 of 20, with and without filters) at each
// catalogue scale of BENCH_CATALOG_SCALES (default "1,10,100"; ×1 is 49
// verified experts, 129 active packages, 36 published travelogues), on
// each engine. Besides ns/op it reports the p50 and p99 of the pages in
// milliseconds. The "recount" case is the count query a page needed before
// the count cache (and still runs once per filter after a write): the
// cost the cache takes off every page. The "deep" cases read page 50, or
// the last page of a smaller catalogue.
func BenchmarkCatalogScale(b *testing.B) {
	scales := []int{1, 10, 100}
	if v := os.Getenv("BENCH_CATALOG_SCALES"); v != "" {
		scales = nil
		for _, s := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				b.Fatalf("BENCH_CATALOG_SCALES=%q: want scales such as 1,10,100", v)
			}
			scales = append(scales, n)
		}
	}
	pg := func(n int, order string) paging.Page { return paging.Page{Page: n, PageSize: 20, Order: order} }
	// The deep pages are page 50, or the last page of a smaller catalogue.
	var deepExperts, deepPackages, deepTravelogues int
	deep := func(total int) int { return max(1, min(50, (total+19)/20)) }
	cases := []struct {
		name string
		run  func(g *Guide) (int, error)
	}{
		{"experts-p1", func(g *Guide) (int, error) {
			x, _, err := g.FindExperts(b.Context(), guide.ExpertFilter{Page: pg(1, "desc"), Locale: "ja", Sort: "rating"})
			return len(x), err
		}},
		{"experts-food-p1", func(g *Guide) (int, error) {
			x, _, err := g.FindExperts(b.Context(), guide.ExpertFilter{Page: pg(1, "desc"), Locale: "ja", Sort: "rating", Specialty: "food"})
			return len(x), err
		}},
		{"experts-deep", func(g *Guide) (int, error) {
			x, _, err := g.FindExperts(b.Context(), guide.ExpertFilter{Page: pg(deepExperts, "asc"), Locale: "ko", Sort: "reviewCount"})
			return len(x), err
		}},
		{"packages-JP-p1", func(g *Guide) (int, error) {
			x, _, err := g.FindPackages(b.Context(), guide.PackageFilter{Page: pg(1, "asc"), Locale: "zh", Sort: "basePrice", Country: "JP"})
			return len(x), err
		}},
		{"packages-deep", func(g *Guide) (int, error) {
			x, _, err := g.FindPackages(b.Context(), guide.PackageFilter{Page: pg(deepPackages, "desc"), Locale: "en", Sort: "createdAt"})
			return len(x), err
		}},
		{"travelogues-p1", func(g *Guide) (int, error) {
			x, _, err := g.FindTravelogues(b.Context(), guide.TravelogueFilter{Page: pg(1, "desc"), Locale: "zh-TW", Sort: "hotScore"})
			return len(x), err
		}},
		{"travelogues-deep", func(g *Guide) (int, error) {
			x, _, err := g.FindTravelogues(b.Context(), guide.TravelogueFilter{Page: pg(deepTravelogues, "desc"), Locale: "en", Sort: "viewCount"})
			return len(x), err
		}},
		{"experts-recount", func(g *Guide) (int, error) {
			q, err := g.expertsQuery(b.Context(), guide.ExpertFilter{Page: pg(1, "desc"), Locale: "ja", Sort: "rating"})
			if err != nil {
				return 0, err
			}
			var n int
			var v int64
			err = g.db.QueryRowContext(b.Context(), q.countSQL(), q.where.Args[:q.filterArgs]...).Scan(&n, &v)
			return 1, err
		}},
	}
	ds := sample.Generate()
	for _, engine := range storetest.Engines() {
		for _, scale := range scales {
			var g *Guide
			b.Run(string(engine)+"/x"+strconv.Itoa(scale), func(b *testing.B) {
				if g == nil {
					db := storetest.MustOpenDB(b, engine, Schema)
					if err := LoadSampleScaled(b.Context(), db, ds, scale); err != nil {
						b.Fatal(err)
					}
					if engine == store.Postgres {
						if _, err := db.ExecContext(b.Context(), "ANALYZE"); err != nil {
							b.Fatal(err)
						}
					}
					g = New(db, clock.System{})
					var totals [3]int
					var err error
					if _, totals[0], err = g.FindExperts(b.Context(), guide.ExpertFilter{Page: pg(1, "asc"), Locale: "en"}); err != nil {
						b.Fatal(err)
					}
					if _, totals[1], err = g.FindPackages(b.Context(), guide.PackageFilter{Page: pg(1, "asc"), Locale: "en"}); err != nil {
						b.Fatal(err)
					}
					if _, totals[2], err = g.FindTravelogues(b.Context(), guide.TravelogueFilter{Page: pg(1, "asc"), Locale: "en"}); err != nil {
						b.Fatal(err)
					}
					deepExperts, deepPackages, deepTravelogues = deep(totals[0]), deep(totals[1]), deep(totals[2])
				}
				for _, c := range cases {
					b.Run(c.name, func(b *testing.B) {
						var took []time.Duration
						for b.Loop() {
							start := time.Now()
							n, err := c.run(g)
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
}
