package guidedb_test

import (
	"encoding/json"
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// The hot paths of the load benchmark (bench/run.sh), one engine each:
// the catalogue page the `list` workload reads (query, and query plus
// JSON encoding as the handler answers it), and the API key lookup every
// key-authenticated request makes.

func sampleGuide(b *testing.B, engine store.Engine) *guidedb.Guide {
	b.Helper()
	db := storetest.MustOpenDB(b, engine, guidedb.Schema)
	if err := guidedb.LoadSample(b.Context(), db, sample.Generate()); err != nil {
		b.Fatal(err)
	}
	return guidedb.New(db, clock.System{})
}

// listPage is the filter of the benchmark's catalogue list: 20 experts
// with the specialty "food", in Japanese.
var listPage = guide.ExpertFilter{Page: paging.Page{Page: 1, PageSize: 20, Order: "desc"}, Locale: "ja", Sort: "rating", Specialty: "food"}

func BenchmarkFindExpertsPage(b *testing.B) {
	for _, engine := range storetest.Engines() {
		b.Run(string(engine), func(b *testing.B) {
			g := sampleGuide(b, engine)
			b.ReportAllocs()
			for b.Loop() {
				experts, _, err := g.FindExperts(b.Context(), listPage)
				if err != nil || len(experts) != 20 {
					b.Fatalf("FindExperts: %d experts, %v", len(experts), err)
				}
			}
		})
	}
}

// BenchmarkExpertsPageJSON encodes the page as the handler does (the
// envelope with data and meta, encoding/json), without the query.
func BenchmarkExpertsPageJSON(b *testing.B) {
	g := sampleGuide(b, store.SQLite)
	experts, total, err := g.FindExperts(b.Context(), listPage)
	if err != nil {
		b.Fatal(err)
	}
	page := struct {
		Data []guide.ExpertSummary `json:"data"`
		Meta paging.Meta           `json:"meta"`
	}{experts, paging.NewMeta(listPage.Page, total)}
	b.ReportAllocs()
	var n int
	for b.Loop() {
		body, err := json.Marshal(page)
		if err != nil {
			b.Fatal(err)
		}
		n = len(body)
	}
	b.SetBytes(int64(n))
}

func BenchmarkFindAPIKeyByHash(b *testing.B) {
	for _, engine := range storetest.Engines() {
		b.Run(string(engine), func(b *testing.B) {
			g := sampleGuide(b, engine)
			u, err := g.CreateUser(b.Context(), guide.NewUser{Email: "bench-key@example.com", Role: "TOURIST"})
			if err != nil {
				b.Fatal(err)
			}
			key, prefix, hash, err := auth.NewAPIKey("live")
			if err != nil {
				b.Fatal(err)
			}
			k := &guide.APIKey{UserID: u.ID, Name: "bench", KeyPrefix: prefix, Scopes: []string{"bookings:write"}, RateLimit: 1000, Mode: "live"}
			if err := g.CreateAPIKey(b.Context(), k, hash); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := g.FindAPIKeyByHash(b.Context(), auth.HashAPIKey(key)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
