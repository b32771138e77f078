package guidedb_test

import (
	"context"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/clock"
	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/paging"
	"github.com/wayfarer-asia/platform/internal/store"
	"github.com/wayfarer-asia/platform/internal/store/guidedb"
	"github.com/wayfarer-asia/platform/internal/store/storetest"
)

// TestCatalogPagePastTheEnd: a page past the last one is empty with the
// exact total, decided from the total before any walk of the list; the
// total it relies on follows writes (the list's version), so a page that
// a write brings into range is read, and one a write pushes out is empty.
func TestCatalogPagePastTheEnd(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			db := storetest.MustOpenSample(t, engine, "guide", func(ctx context.Context, db *store.DB) error {
				return guidedb.LoadSample(ctx, db, sample.Generate())
			})
			g := guidedb.New(db, clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)))
			page := func(n, size int) ([]guide.ExpertSummary, int) {
				t.Helper()
				x, total, err := g.FindExperts(ctx, guide.ExpertFilter{Country: "JP", Locale: "en", Sort: "rating",
					Page: paging.Page{Page: n, PageSize: size, Order: "desc"}})
				if err != nil {
					t.Fatal(err)
				}
				return x, total
			}
			all, total := page(1, 100)
			if total < 3 || len(all) != total {
				t.Fatalf("%d of %d Japanese experts", len(all), total)
			}
			// Pages of 2: the last one holds the odd expert out, the one
			// after it nothing, the total in both.
			last := (total + 1) / 2
			if x, n := page(last, 2); n != total || len(x) != total-2*(last-1) {
				t.Fatalf("last page: %d rows, total %d", len(x), n)
			}
			if x, n := page(last+1, 2); n != total || len(x) != 0 {
				t.Fatalf("past the end: %d rows, total %d", len(x), n)
			}
			if x, n := page(50, 2); n != total || len(x) != 0 {
				t.Fatalf("page 50: %d rows, total %d", len(x), n)
			}

			// Another expert moves to Japan: the page past the end now
			// holds it, and the total counts it.
			var moved string
			if err := db.QueryRowContext(ctx, `SELECT id FROM experts WHERE verified_at IS NOT NULL AND country_code <> 'JP' ORDER BY id LIMIT 1`).Scan(&moved); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, `UPDATE experts SET country_code = 'JP' WHERE id = $1`, moved); err != nil {
				t.Fatal(err)
			}
			rows := 0
			for n := 1; n <= (total+2)/2; n++ {
				x, got := page(n, 2)
				if got != total+1 {
					t.Fatalf("page %d after the move: total %d, want %d", n, got, total+1)
				}
				rows += len(x)
			}
			if rows != total+1 {
				t.Fatalf("%d experts over the pages, want %d", rows, total+1)
			}
			// Unverified, it leaves again.
			if _, err := db.ExecContext(ctx, `UPDATE experts SET verified_at = NULL WHERE id = $1`, moved); err != nil {
				t.Fatal(err)
			}
			if x, n := page((total+2)/2+1, 2); n != total || len(x) != 0 {
				t.Fatalf("after unverifying: %d rows, total %d", len(x), n)
			}
		})
	}
}
