package guidedb_test

import (
	"database/sql"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// listedDrift counts the rows whose listed flag or sort copies disagree
// with what they are kept from (guide migration 00012's triggers).
const listedDrift = `SELECT
	(SELECT COUNT(*) FROM experts e WHERE e.listed <> (e.verified_at IS NOT NULL AND e.suspended_at IS NULL
		AND EXISTS (SELECT 1 FROM users u WHERE u.id = e.user_id AND u.deleted_at IS NULL)))
	+ (SELECT COUNT(*) FROM packages p WHERE p.listed <> (p.is_active = TRUE AND p.hidden_at IS NULL
		AND EXISTS (SELECT 1 FROM experts e WHERE e.id = p.expert_id AND e.listed = TRUE)))
	+ (SELECT COUNT(*) FROM expert_languages l JOIN experts e ON e.id = l.expert_id
		WHERE l.listed <> e.listed OR l.rating <> e.rating OR l.review_count <> e.review_count OR l.created_at <> e.created_at)
	+ (SELECT COUNT(*) FROM expert_specialties s JOIN experts e ON e.id = s.expert_id
		WHERE s.listed <> e.listed OR s.rating <> e.rating OR s.review_count <> e.review_count OR s.created_at <> e.created_at)`

// countsDrift counts the catalog_counts rows (guide migration 00013) that
// disagree with a count of the rows they are kept from.
const countsDrift = `WITH fresh (list, filter, value, n) AS (
	SELECT 'experts', '', '', COUNT(*) FROM experts WHERE listed = TRUE
	UNION ALL SELECT 'experts', 'country', country_code, COUNT(*) FROM experts WHERE listed = TRUE AND country_code IS NOT NULL GROUP BY country_code
	UNION ALL SELECT 'experts', 'city', lower(location), COUNT(*) FROM experts WHERE listed = TRUE AND location IS NOT NULL GROUP BY lower(location)
	UNION ALL SELECT 'experts', 'language', lower(language), COUNT(*) FROM expert_languages WHERE listed = TRUE GROUP BY lower(language)
	UNION ALL SELECT 'experts', 'specialty', lower(specialty), COUNT(*) FROM expert_specialties WHERE listed = TRUE GROUP BY lower(specialty)
	UNION ALL SELECT 'packages', '', '', COUNT(*) FROM packages WHERE listed = TRUE
	UNION ALL SELECT 'packages', 'country', country_code, COUNT(*) FROM packages WHERE listed = TRUE GROUP BY country_code
	UNION ALL SELECT 'packages', 'category', lower(category), COUNT(*) FROM packages WHERE listed = TRUE GROUP BY lower(category)
	UNION ALL SELECT 'travelogues', '', '', COUNT(*) FROM travelogues WHERE status = 'published' AND hidden_at IS NULL
	UNION ALL SELECT 'travelogues', 'category', lower(category), COUNT(*) FROM travelogues WHERE status = 'published' AND hidden_at IS NULL GROUP BY lower(category)
), kept AS (
	SELECT list, filter, value, n FROM catalog_counts WHERE n <> 0
)
SELECT (SELECT COUNT(*) FROM (SELECT * FROM kept EXCEPT SELECT * FROM fresh WHERE n <> 0) a)
	+ (SELECT COUNT(*) FROM (SELECT * FROM fresh WHERE n <> 0 EXCEPT SELECT * FROM kept) b)`

// TestListedFollowsWrites: the listed flags and the tags' copies of the
// sort columns, which the catalogue pages walk instead of checking users
// and experts, and the counts the totals are read from, follow every
// write they are kept from, in its transaction: unverifying an expert,
// deleting its user, deactivating a package, a new rating, a new tag, a
// move to another city, category or country, a deletion, a travelogue
// published and withdrawn.
func TestListedFollowsWrites(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			db := storetest.MustOpenSample(t, engine, guidedb.Schema, loadSample)
			g := guidedb.New(db, clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)))
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				for _, check := range []string{listedDrift, countsDrift} {
					var drift int
					if err := db.QueryRowContext(ctx, check).Scan(&drift); err != nil {
						t.Fatal(err)
					}
					if drift != 0 {
						t.Fatalf("after %s: %d rows drifted:\n%s", q, drift, check)
					}
				}
			}
			exec(`UPDATE experts SET updated_at = updated_at`) // the loaded sample
			var expertID, userID, packageID, specialty string
			err := db.QueryRowContext(ctx, `SELECT e.id, e.user_id, p.id, s.specialty
				FROM experts e JOIN packages p ON p.expert_id = e.id JOIN expert_specialties s ON s.expert_id = e.id
				WHERE e.listed = TRUE AND p.listed = TRUE ORDER BY e.id, p.id, s.specialty LIMIT 1`).Scan(&expertID, &userID, &packageID, &specialty)
			if err != nil {
				t.Fatal(err)
			}
			experts := func(f guide.ExpertFilter) []string {
				t.Helper()
				f.Locale, f.Sort, f.Page = "en", "rating", paging.Page{Page: 1, PageSize: 100, Order: "desc"}
				x, total, err := g.FindExperts(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if total != len(x) {
					t.Fatalf("%+v: %d experts, total %d", f, len(x), total)
				}
				ids := make([]string, len(x))
				for i := range x {
					ids[i] = x[i].ID
				}
				return ids
			}
			shown := func(want bool) {
				t.Helper()
				if got := slices.Contains(experts(guide.ExpertFilter{Specialty: strings.ToUpper(specialty)}), expertID); got != want {
					t.Errorf("expert under its specialty: shown %v, want %v", got, want)
				}
				_, err := g.FindPackageByID(ctx, packageID, "en")
				if got := err == nil; got != want {
					t.Errorf("its package: shown %v (%v), want %v", got, err, want)
				} else if err != nil && apperr.Code(err) != apperr.NotFound {
					t.Fatal(err)
				}
			}
			shown(true)
			exec(`UPDATE experts SET verified_at = NULL WHERE id = $1`, expertID)
			shown(false)
			exec(`UPDATE experts SET verified_at = created_at WHERE id = $1`, expertID)
			shown(true)
			exec(`UPDATE users SET deleted_at = created_at WHERE id = $1`, userID)
			shown(false)
			exec(`UPDATE users SET deleted_at = NULL WHERE id = $1`, userID)
			shown(true)
			exec(`UPDATE packages SET is_active = FALSE WHERE id = $1`, packageID)
			if _, err := g.FindPackageByID(ctx, packageID, "en"); apperr.Code(err) != apperr.NotFound {
				t.Errorf("inactive package: %v", err)
			}
			exec(`UPDATE packages SET is_active = TRUE WHERE id = $1`, packageID)
			shown(true)
			// Moderation (migration 00023): a suspension hides the expert
			// and its packages; a hidden package stays hidden while its
			// expert comes and goes, and comes back once restored.
			exec(`UPDATE experts SET suspended_at = created_at WHERE id = $1`, expertID)
			shown(false)
			exec(`UPDATE packages SET hidden_at = created_at WHERE id = $1`, packageID)
			exec(`UPDATE experts SET suspended_at = NULL WHERE id = $1`, expertID)
			if _, err := g.FindPackageByID(ctx, packageID, "en"); apperr.Code(err) != apperr.NotFound {
				t.Errorf("hidden package of a reinstated expert: %v", err)
			}
			exec(`UPDATE users SET deleted_at = created_at WHERE id = $1`, userID)
			exec(`UPDATE users SET deleted_at = NULL WHERE id = $1`, userID)
			exec(`UPDATE packages SET hidden_at = NULL WHERE id = $1`, packageID)
			shown(true)

			// A new rating moves the expert in the walk of its tag as in
			// the list of all: the tag's page is the list's order
			// restricted to the tag.
			exec(`UPDATE experts SET rating = 5, review_count = review_count + 1 WHERE id = $1`, expertID)
			holders := map[string]bool{}
			for _, id := range experts(guide.ExpertFilter{Specialty: specialty}) {
				holders[id] = true
			}
			var want []string
			for _, id := range experts(guide.ExpertFilter{}) {
				if holders[id] {
					want = append(want, id)
				}
			}
			if got := experts(guide.ExpertFilter{Specialty: specialty}); !slices.Equal(got, want) || got[0] != expertID {
				t.Errorf("under %q: %v, want %v first in %v", specialty, got, expertID, want)
			}

			exec(`INSERT INTO expert_specialties (expert_id, specialty, position) VALUES ($1, 'Zebra riding', 9)`, expertID)
			if got := experts(guide.ExpertFilter{Specialty: "zebra RIDING"}); !slices.Equal(got, []string{expertID}) {
				t.Errorf("new specialty: %v, want [%s]", got, expertID)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO expert_specialties (expert_id, specialty, position) VALUES ($1, 'ZEBRA RIDING', 10)`, expertID); err == nil {
				t.Error("a specialty held twice in another case was taken")
			}
			exec(`UPDATE expert_specialties SET specialty = 'Llama riding' WHERE expert_id = $1 AND specialty = 'Zebra riding'`, expertID)
			exec(`DELETE FROM expert_specialties WHERE expert_id = $1 AND specialty = 'Llama riding'`, expertID)
			exec(`UPDATE experts SET location = 'Atlantis', country_code = 'HK' WHERE id = $1`, expertID)
			total := func(f guide.ExpertFilter) int {
				t.Helper()
				f.Locale, f.Page = "en", paging.Page{Page: 3, PageSize: 20, Order: "desc"}
				_, total, err := g.FindExperts(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				return total
			}
			if n := total(guide.ExpertFilter{City: "tlant"}); n != 1 {
				t.Errorf("experts in a city matching tlant: %d, want 1", n)
			}
			exec(`UPDATE packages SET category = 'Underwater', country_code = 'TW' WHERE id = $1`, packageID)
			exec(`UPDATE travelogues SET status = 'draft' WHERE id = (SELECT MIN(id) FROM travelogues WHERE status = 'published')`)
			exec(`UPDATE travelogues SET status = 'published', category = 'Underwater' WHERE id = (SELECT MIN(id) FROM travelogues WHERE status = 'draft')`)
			exec(`UPDATE travelogues SET hidden_at = created_at WHERE category = 'Underwater'`)
			exec(`UPDATE travelogues SET status = 'draft' WHERE category = 'Underwater'`)
			exec(`UPDATE travelogues SET hidden_at = NULL, status = 'published' WHERE category = 'Underwater'`)
			exec(`DELETE FROM expert_languages WHERE expert_id = $1`, expertID)
			exec(`UPDATE experts SET verified_at = NULL WHERE id = $1`, expertID)
		})
	}
}

// TestCountsUnderConcurrentWrites: experts adding, hiding and moving
// packages at the same time leave every count exact, and no write fails
// (the triggers take the count rows of a package in one order, so two
// writers cannot deadlock on them).
func TestCountsUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			db := storetest.MustOpenSample(t, engine, guidedb.Schema, loadSample)
			rows, err := db.QueryContext(ctx, `SELECT id FROM experts WHERE listed = TRUE ORDER BY id LIMIT 8`)
			if err != nil {
				t.Fatal(err)
			}
			var experts []string
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				experts = append(experts, id)
			}
			if err := rows.Err(); err != nil || len(experts) < 8 {
				t.Fatalf("listed experts: %v %v", experts, err)
			}
			now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
			categories, countries := []string{"Race A", "race a", "Race B"}, []string{"JP", "KR", "TW"}
			var wg sync.WaitGroup
			for w, expertID := range experts {
				wg.Go(func() {
					var mine []string
					for i := range 12 {
						err := db.InTx(ctx, func(tx *sql.Tx) error {
							id := store.NewID()
							mine = append(mine, id)
							if _, err := tx.ExecContext(ctx, `INSERT INTO packages (id, expert_id, title, description, category, country_code,
									base_price, currency, duration, max_participants, is_active, status, created_at, updated_at)
								VALUES ($1, $2, 'Race', 'Race', $3, $4, 10, 'USD', 2, 4, TRUE, 'active', $5, $5)`,
								id, expertID, categories[(w+i)%3], countries[i%3], now); err != nil {
								return err
							}
							if _, err := tx.ExecContext(ctx, `UPDATE packages SET is_active = NOT is_active WHERE id = $1`, mine[i/2]); err != nil {
								return err
							}
							_, err := tx.ExecContext(ctx, `UPDATE packages SET category = $1, country_code = $2 WHERE id = $3`,
								categories[(w+2*i)%3], countries[(w+i)%3], mine[i/3])
							return err
						})
						if err != nil {
							t.Errorf("expert %d, write %d: %v", w, i, err)
							return
						}
					}
				})
			}
			wg.Wait()
			for _, check := range []string{listedDrift, countsDrift} {
				var drift int
				if err := db.QueryRowContext(ctx, check).Scan(&drift); err != nil {
					t.Fatal(err)
				}
				if drift != 0 {
					t.Errorf("%d rows drifted:\n%s", drift, check)
				}
			}
		})
	}
}
