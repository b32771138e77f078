package guidedb

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// planScale is the catalogue size of the plan test per engine: SQLite
// is given statistics (ANALYZE) so that its choice between indexes does
// not hang on how the random sample ids fill the b-trees; PostgreSQL needs
// enough rows that its planner weighs the indexes as at marketplace scale.
var planScale = map[store.Engine]int{store.SQLite: 2, store.Postgres: 20}

// TestCatalogPlans fails when a catalogue list query stops walking the
// index of its sort (migrations 00008 and 00012): then its cost grows with
// the catalogue. It reads the plan of page 3 of every sort, in both
// directions, alone and under each filter that has indexes of its own.
func TestCatalogPlans(t *testing.T) {
	t.Parallel()
	type plan struct {
		name  string
		q     func(g *Guide, p paging.Page) (catalogQuery, error)
		index string
	}
	// The filters are the commonest values: for a rare one the planners
	// rightly read the few matches and sort them.
	ds := sample.Generate()
	categories := map[string]int{}
	common := ""
	for _, tr := range ds.Travelogues {
		if categories[tr.Category]++; categories[tr.Category] > categories[common] {
			common = tr.Category
		}
	}
	packageCategories := map[string]int{}
	packageCategory := ""
	for _, p := range ds.Packages {
		if packageCategories[p.Category]++; packageCategories[p.Category] > packageCategories[packageCategory] {
			packageCategory = p.Category
		}
	}
	matched := map[string]bool{}
	for _, x := range ds.Experts {
		if x.Location != nil && strings.Contains(strings.ToLower(*x.Location), strings.ToLower(severalCities)) {
			matched[*x.Location] = true
		}
	}
	if len(matched) < 2 {
		t.Fatalf("the sample's cities matching %q: %v; want several", severalCities, matched)
	}
	var plans []plan
	cities := map[string]int{}
	city := ""
	for _, x := range ds.Experts {
		if x.Location != nil {
			if cities[*x.Location]++; cities[*x.Location] > cities[city] {
				city = *x.Location
			}
		}
	}
	for sort, suffix := range map[string]string{"rating": "rating", "reviewCount": "reviews", "createdAt": "created"} {
		experts := func(name string, f guide.ExpertFilter, index string) plan {
			return plan{"experts " + name + sort, func(g *Guide, p paging.Page) (catalogQuery, error) {
				f := f // the engines' subtests run this at once
				f.Page, f.Sort = p, sort
				return g.expertsQuery(t.Context(), f)
			}, index + suffix}
		}
		plans = append(plans,
			experts("", guide.ExpertFilter{Locale: "ja"}, "experts_listed_"),
			experts("food en ", guide.ExpertFilter{Locale: "ja", Specialty: "food", Language: "en"}, "expert_specialties_listed_"),
			experts("en ", guide.ExpertFilter{Locale: "ja", Language: "EN"}, "expert_languages_listed_"),
			experts("city ", guide.ExpertFilter{Locale: "en", City: strings.ToUpper(city)}, "experts_listed_city_"),
			experts("JP ", guide.ExpertFilter{Locale: "ko", Country: "JP"}, "experts_listed_country_"))
	}
	for sort, suffix := range map[string]string{"basePrice": "base_price", "price": "price", "duration": "duration", "createdAt": "created"} {
		plans = append(plans,
			plan{"packages " + sort, func(g *Guide, p paging.Page) (catalogQuery, error) {
				return g.packagesQuery(t.Context(), guide.PackageFilter{Page: p, Sort: sort, Locale: "zh"})
			}, "packages_listed_" + suffix},
			plan{"packages JP " + sort, func(g *Guide, p paging.Page) (catalogQuery, error) {
				return g.packagesQuery(t.Context(), guide.PackageFilter{Page: p, Sort: sort, Locale: "zh", Country: "JP"})
			}, "packages_listed_country_" + suffix},
			plan{"packages category " + sort, func(g *Guide, p paging.Page) (catalogQuery, error) {
				return g.packagesQuery(t.Context(), guide.PackageFilter{Page: p, Sort: sort, Locale: "zh", Category: packageCategory})
			}, "packages_listed_category_" + suffix})
	}
	for sort, suffix := range map[string]string{"hotScore": "hot", "score": "score", "viewCount": "views", "createdAt": "created", "publishedAt": "published"} {
		plans = append(plans,
			plan{"travelogues " + sort, func(_ *Guide, p paging.Page) (catalogQuery, error) {
				return traveloguesQuery(guide.TravelogueFilter{Page: p, Sort: sort, Locale: "en"}), nil
			}, "travelogues_published_" + suffix},
			plan{"travelogues category " + sort, func(_ *Guide, p paging.Page) (catalogQuery, error) {
				return traveloguesQuery(guide.TravelogueFilter{Page: p, Sort: sort, Locale: "en", Category: common}), nil
			}, "travelogues_published_category_" + suffix})
	}
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenDB(t, engine, Schema)
			if err := LoadSampleScaled(t.Context(), db, ds, planScale[engine]); err != nil {
				t.Fatal(err)
			}
			tx, err := db.BeginTx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if engine == store.SQLite {
				if _, err := tx.ExecContext(t.Context(), "ANALYZE"); err != nil {
					t.Fatal(err)
				}
			}
			if engine == store.Postgres {
				// At this size sorting a few hundred rows is rightly
				// cheaper than walking an index; at marketplace size it
				// is not. Sorts priced out, the plan shows whether the
				// index can deliver the page in order, which is what a
				// change of query or index breaks.
				for _, q := range []string{"ANALYZE", "SET LOCAL enable_sort = off"} {
					if _, err := tx.ExecContext(t.Context(), q); err != nil {
						t.Fatal(err)
					}
				}
			}
			g := New(db, clock.System{})
			for _, p := range plans {
				for _, order := range []string{"asc", "desc"} {
					q, err := p.q(g, paging.Page{Page: 3, PageSize: 20, Order: order})
					if err != nil {
						t.Fatal(err)
					}
					text := storetest.Plan(t, tx, engine, q.pageSQL(paging.Page{Page: 3, PageSize: 20, Order: order}, engine), q.where.Args...)
					// The page's ids come from the index, in its order: no sort
					// of the inner query (PostgreSQL names the tables it reads
					// twice e_1, p_1, tr_1; a tag walk reads s or l once; the
					// outer sort of 20 rows is fine).
					if !strings.Contains(text, p.index) || innerSort.MatchString(text) || sqliteInnerSort(text) {
						t.Errorf("%s %s does not walk %s:\n%s", p.name, order, p.index, text)
					}
				}
			}
			// A page's tags are read by expert, on SQLite from the
			// covering indexes (migration 00015), without a descent into
			// the tables per tag, and merged in their order, without a
			// sort. PostgreSQL reads them by index too; it scans the
			// covering ones index-only once autovacuum has marked the
			// tables' pages all-visible, which parallel tests hold back.
			ids := make([]any, 20)
			for i := range ids {
				ids[i] = ds.Experts[i].ID
			}
			if engine == store.Postgres {
				// At this size reading the small tables whole is rightly
				// cheaper; at marketplace size it is not.
				if _, err := tx.ExecContext(t.Context(), "SET LOCAL enable_seqscan = off"); err != nil {
					t.Fatal(err)
				}
			}
			text := storetest.Plan(t, tx, engine, expertTagsSQL(len(ids)), ids...)
			switch {
			case engine == store.SQLite && (!strings.Contains(text, "COVERING INDEX expert_languages_by_expert") ||
				!strings.Contains(text, "COVERING INDEX expert_specialties_by_expert") || strings.Contains(text, "TEMP B-TREE")),
				engine == store.Postgres && strings.Contains(text, "Seq Scan"):
				t.Errorf("the tags of a page are not read by expert from their indexes:\n%s", text)
			}
			// A city filter matching several cities walks each city's
			// index and stops at the page's end: only their union is
			// sorted (SQLite), or merged (PostgreSQL).
			for sort, suffix := range map[string]string{"rating": "rating", "reviewCount": "reviews", "createdAt": "created"} {
				for _, order := range []string{"asc", "desc"} {
					p := paging.Page{Page: 3, PageSize: 20, Order: order}
					q, err := g.expertsQuery(t.Context(), guide.ExpertFilter{Locale: "en", City: severalCities, Sort: sort, Page: p})
					if err != nil {
						t.Fatal(err)
					}
					text := storetest.Plan(t, tx, engine, q.pageSQL(p, engine), q.where.Args...)
					arms, _, _ := strings.Cut(text, "SCAN m\n") // SQLite: the cities' walks, before their union's sort
					walks := strings.Count(text, "experts_listed_city_"+suffix)
					got := map[string]any{
						"severalWalks": walks >= 2, "armSort": armSort.MatchString(text), "seqScan": strings.Contains(text, "Seq Scan"),
					}
					want := map[string]any{"severalWalks": true, "armSort": false, "seqScan": false}
					switch engine {
					case store.Postgres:
						got["mergeAppend"] = strings.Contains(text, "Merge Append")
						want["mergeAppend"] = true
					case store.SQLite:
						got["armTempBTree"] = strings.Contains(arms, "TEMP B-TREE")
						want["armTempBTree"] = false
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("city %q by %s %s: %d walks of experts_listed_city_%s (-want +got):\n%s\n%s", severalCities, sort, order, walks, suffix, diff, text)
					}
				}
			}
		})
	}
}

// severalCities is a city filter that several of the sample's cities
// match (Kyoto and Tokyo).
const severalCities = "KYO"

// armSort matches a PostgreSQL sort of a city's walk (a Merge Append of
// the walks names its key too, but sorts nothing).
var armSort = regexp.MustCompile(`Sort  \(.*\n\s*Sort Key: e_\d+\.`)

var innerSort = regexp.MustCompile(`Sort Key: ((e|p|tr)_1|s|l)\.`)

// sqliteInnerSort tells whether a SQLite plan sorts the inner query (the
// lines before the scan of its result, pg): a temporary B-tree there means
// the index does not deliver the page's order.
func sqliteInnerSort(plan string) bool {
	inner, _, found := strings.Cut(plan, "SCAN pg")
	return found && strings.Contains(inner, "TEMP B-TREE")
}
