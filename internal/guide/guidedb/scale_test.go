package guidedb_test

import (
	"reflect"
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestLoadSampleScaled loads SAMPLE_SCALE=3 and checks that the public
// catalogue triples, that replicas keep the filters' distributions and
// that the load is reproducible.
func TestLoadSampleScaled(t *testing.T) {
	t.Parallel()
	ds := generated()
	var verified, active, published, food int
	foodExperts := map[string]bool{}
	for _, s := range ds.ExpertSpecialties {
		if s.Specialty == "food" {
			foodExperts[s.ExpertID] = true
		}
	}
	isVerified := map[string]bool{}
	for _, x := range ds.Experts {
		if x.VerifiedAt != nil {
			isVerified[x.ID] = true
			verified++
			if foodExperts[x.ID] {
				food++
			}
		}
	}
	for _, p := range ds.Packages {
		if p.IsActive && isVerified[p.ExpertID] {
			active++
		}
	}
	for _, tr := range ds.Travelogues {
		if tr.Status == "published" {
			published++
		}
	}
	if a, b := sample.CopyExpert(ds.Experts[3], 7), sample.CopyExpert(ds.Experts[3], 7); !reflect.DeepEqual(a, b) {
		t.Error("CopyExpert is not reproducible")
	}
	if a, b := sample.CopyPackage(ds.Packages[0], 1), sample.CopyPackage(ds.Packages[0], 2); a.ID == b.ID || a.ID == ds.Packages[0].ID {
		t.Errorf("replica ids collide: %s %s", a.ID, b.ID)
	}
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenDB(t, engine, guidedb.Schema)
			if err := guidedb.LoadSampleScaled(t.Context(), db, ds, 3); err != nil {
				t.Fatal(err)
			}
			g := guidedb.New(db, clock.System{})
			page := paging.Page{Page: 1, PageSize: 20, Order: "desc"}
			if _, total, err := g.FindExperts(t.Context(), guide.ExpertFilter{Page: page, Locale: "en"}); err != nil || total != 3*verified {
				t.Errorf("experts: total %d, want %d (%v)", total, 3*verified, err)
			}
			if _, total, err := g.FindExperts(t.Context(), guide.ExpertFilter{Page: page, Locale: "en", Specialty: "food"}); err != nil || total != 3*food {
				t.Errorf("food experts: total %d, want %d (%v)", total, 3*food, err)
			}
			if _, total, err := g.FindPackages(t.Context(), guide.PackageFilter{Page: page, Locale: "ja"}); err != nil || total != 3*active {
				t.Errorf("packages: total %d, want %d (%v)", total, 3*active, err)
			}
			if _, total, err := g.FindTravelogues(t.Context(), guide.TravelogueFilter{Page: page, Locale: "ko"}); err != nil || total != 3*published {
				t.Errorf("travelogues: total %d, want %d (%v)", total, 3*published, err)
			}
		})
	}
}

// TestCatalogTotalsFollowWrites checks that the cached totals of the lists
// change with every kind of write that changes what a list shows, on
// both engines (the catalog_versions triggers of migration 00008).
func TestCatalogTotalsFollowWrites(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenSample(t, engine, guidedb.Schema, loadSample)
			g := guidedb.New(db, clock.System{})
			page := paging.Page{Page: 1, PageSize: 5, Order: "desc"}
			experts := func() int {
				_, n, err := g.FindExperts(t.Context(), guide.ExpertFilter{Page: page, Locale: "en", Specialty: "food"})
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			packages := func() int {
				_, n, err := g.FindPackages(t.Context(), guide.PackageFilter{Page: page, Locale: "en"})
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			travelogues := func() int {
				_, n, err := g.FindTravelogues(t.Context(), guide.TravelogueFilter{Page: paging.Page{Page: 99, PageSize: 5}, Locale: "en"})
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			e0, p0, t0 := experts(), packages(), travelogues()
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(t.Context(), q, args...); err != nil {
					t.Fatal(err)
				}
			}
			var expertID, userID string
			if err := db.QueryRowContext(t.Context(), `SELECT e.id, e.user_id FROM experts e JOIN expert_specialties s ON s.expert_id = e.id
				WHERE s.specialty = 'food' AND e.verified_at IS NOT NULL ORDER BY e.id LIMIT 1`).Scan(&expertID, &userID); err != nil {
				t.Fatal(err)
			}
			exec(`DELETE FROM expert_specialties WHERE expert_id = $1 AND specialty = 'food'`, expertID)
			if n := experts(); n != e0-1 {
				t.Errorf("food experts after a specialty is removed: %d, want %d", n, e0-1)
			}
			var active int
			if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM packages WHERE expert_id = $1 AND is_active = TRUE`, expertID).Scan(&active); err != nil {
				t.Fatal(err)
			}
			exec(`UPDATE users SET deleted_at = created_at WHERE id = $1`, userID)
			if n := packages(); n != p0-active {
				t.Errorf("packages after their expert's account is closed: %d, want %d", n, p0-active)
			}
			exec(`UPDATE travelogues SET status = 'draft' WHERE id = (SELECT MIN(id) FROM travelogues WHERE status = 'published')`)
			if n := travelogues(); n != t0-1 {
				t.Errorf("travelogues after one is unpublished (an empty page): %d, want %d", n, t0-1)
			}
		})
	}
}
