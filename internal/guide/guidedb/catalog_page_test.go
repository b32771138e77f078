package guidedb_test

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
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
			db := storetest.MustOpenSample(t, engine, guidedb.Schema, loadSample)
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

// TestExpertTagsInPositionOrder: a list page gives each expert's
// languages and specialties in their positions' order, not the tags'
// (the page reads them from the covering indexes, migration 00015).
func TestExpertTagsInPositionOrder(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			ds := generated()
			db := storetest.MustOpenSample(t, engine, guidedb.Schema, loadSample)
			// One expert's positions reversed, so that position order is
			// not also the tags' order.
			var reversed string
			if err := db.QueryRowContext(ctx, `SELECT l.expert_id FROM expert_languages l JOIN experts e ON e.id = l.expert_id
				WHERE e.verified_at IS NOT NULL AND (SELECT COUNT(*) FROM expert_specialties s WHERE s.expert_id = l.expert_id) > 1
				GROUP BY l.expert_id HAVING COUNT(*) > 1 ORDER BY l.expert_id LIMIT 1`).Scan(&reversed); err != nil {
				t.Fatal(err)
			}
			for _, table := range []string{"expert_languages", "expert_specialties"} {
				if _, err := db.ExecContext(ctx, `UPDATE `+table+` SET position = -position WHERE expert_id = $1`, reversed); err != nil {
					t.Fatal(err)
				}
			}
			position := func(id string, p int) int {
				if id == reversed {
					return -p
				}
				return p
			}
			languages, specialties := slices.Clone(ds.ExpertLanguages), slices.Clone(ds.ExpertSpecialties)
			slices.SortFunc(languages, func(a, b sample.ExpertLanguage) int {
				return cmp.Compare(position(a.ExpertID, a.Position), position(b.ExpertID, b.Position))
			})
			slices.SortFunc(specialties, func(a, b sample.ExpertSpecialty) int {
				return cmp.Compare(position(a.ExpertID, a.Position), position(b.ExpertID, b.Position))
			})
			want := map[string][2][]string{} // expert id: languages, specialties
			for _, l := range languages {
				w := want[l.ExpertID]
				w[0] = append(w[0], l.Language)
				want[l.ExpertID] = w
			}
			for _, s := range specialties {
				w := want[s.ExpertID]
				w[1] = append(w[1], s.Specialty)
				want[s.ExpertID] = w
			}
			g := guidedb.New(db, clock.NewFake(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)))
			seen := 0
			for n := 1; ; n++ {
				experts, total, err := g.FindExperts(ctx, guide.ExpertFilter{Locale: "en", Sort: "rating",
					Page: paging.Page{Page: n, PageSize: 20, Order: "desc"}})
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range experts {
					w := want[x.ID]
					if !slices.Equal(x.Languages, w[0]) || !slices.Equal(x.Specialties, w[1]) {
						t.Errorf("expert %s: languages %v, specialties %v; want %v, %v", x.ID, x.Languages, x.Specialties, w[0], w[1])
					}
					if x.ID == reversed {
						seen++
					}
				}
				if n*20 >= total {
					break
				}
			}
			if seen != 1 {
				t.Errorf("the expert with reversed positions was listed %d times, want once", seen)
			}
		})
	}
}
