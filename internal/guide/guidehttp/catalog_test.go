package guidehttp_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

type expertList struct {
	Data []guide.ExpertSummary `json:"data"`
	Meta paging.Meta           `json:"meta"`
}

type packageList struct {
	Data []guide.PackageSummary `json:"data"`
	Meta paging.Meta            `json:"meta"`
}

type travelogueList struct {
	Data []guide.TravelogueSummary `json:"data"`
	Meta paging.Meta               `json:"meta"`
}

type reviewList struct {
	Data []guide.Review `json:"data"`
	Meta paging.Meta    `json:"meta"`
}

const verifiedExperts = `SELECT COUNT(*) FROM experts e JOIN users u ON u.id = e.user_id
	WHERE e.verified_at IS NOT NULL AND u.deleted_at IS NULL`

// TestCatalog runs the public reads on every engine.
func TestCatalog(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			t.Run("experts", func(t *testing.T) { testExperts(t, e) })
			t.Run("packages", func(t *testing.T) { testPackages(t, e) })
			t.Run("travelogues", func(t *testing.T) { testTravelogues(t, e) })
			t.Run("reviews", func(t *testing.T) { testReviews(t, e) })
			t.Run("cities and specialties", func(t *testing.T) { testCitiesSpecialties(t, e) })
		})
	}
}

func testExperts(t *testing.T, e *env) {
	var l expertList
	e.Get("/api/v1/experts").Expect(200).Decode(&l)
	total := e.count(t, verifiedExperts)
	if l.Meta != (paging.Meta{Page: 1, PageSize: 20, Total: total, HasMore: total > 20}) || len(l.Data) != 20 {
		t.Fatalf("default page: meta %+v, %d items; %d verified experts", l.Meta, len(l.Data), total)
	}
	if !slices.IsSortedFunc(l.Data, func(a, b guide.ExpertSummary) int { return cmpFloat(b.Rating, a.Rating) }) {
		t.Error("default sort is not rating descending")
	}

	// Walking every page returns each verified expert exactly once.
	seen := map[string]bool{}
	for page := 1; ; page++ {
		var p expertList
		e.Get("/api/v1/experts?pageSize=7&page=" + strconv.Itoa(page)).Expect(200).Decode(&p)
		for _, x := range p.Data {
			if seen[x.Handle] {
				t.Fatalf("expert %s on two pages", x.Handle)
			}
			seen[x.Handle] = true
		}
		if !p.Meta.HasMore {
			break
		}
	}
	if len(seen) != total {
		t.Fatalf("pages held %d experts, want %d", len(seen), total)
	}
	var unverified string
	if err := e.db.QueryRow(`SELECT u.handle FROM experts e JOIN users u ON u.id = e.user_id WHERE e.verified_at IS NULL LIMIT 1`).Scan(&unverified); err != nil {
		t.Fatal(err)
	}
	if seen[unverified] {
		t.Fatalf("unverified expert %s listed", unverified)
	}
	e.Get("/api/v1/experts/" + unverified).Expect(404)
	e.Get("/api/v1/experts/" + unverified + "/packages").Expect(404)
	e.Get("/api/v1/experts/" + unverified + "/reviews").Expect(404)

	filters := []struct {
		query string
		where string
		args  []any
		check func(guide.ExpertSummary) bool
	}{
		{"country=JP", "AND e.country_code = 'JP'", nil, func(x guide.ExpertSummary) bool { return x.CountryCode == "JP" }},
		{"country=kr", "AND e.country_code = 'KR'", nil, func(x guide.ExpertSummary) bool { return x.CountryCode == "KR" }},
		{"city=KYO", "AND lower(e.location) LIKE '%kyo%'", nil, func(x guide.ExpertSummary) bool {
			return x.Location != nil && strings.Contains(strings.ToLower(*x.Location), "kyo")
		}},
		{"language=ja", "AND EXISTS (SELECT 1 FROM expert_languages l WHERE l.expert_id = e.id AND l.language = 'ja')", nil,
			func(x guide.ExpertSummary) bool { return slices.Contains(x.Languages, "ja") }},
		{"specialty=food", "AND EXISTS (SELECT 1 FROM expert_specialties s WHERE s.expert_id = e.id AND s.specialty = 'food')", nil,
			func(x guide.ExpertSummary) bool { return slices.Contains(x.Specialties, "food") }},
		{"country=CN&specialty=history", "AND e.country_code = 'CN' AND EXISTS (SELECT 1 FROM expert_specialties s WHERE s.expert_id = e.id AND s.specialty = 'history')", nil,
			func(x guide.ExpertSummary) bool {
				return x.CountryCode == "CN" && slices.Contains(x.Specialties, "history")
			}},
		{"city=" + url.QueryEscape("%"), "AND e.location LIKE '%\\%%' ESCAPE '\\'", nil, func(guide.ExpertSummary) bool { return false }},
		{"city=kyo&language=ja", "AND lower(e.location) LIKE '%kyo%' AND EXISTS (SELECT 1 FROM expert_languages l WHERE l.expert_id = e.id AND l.language = 'ja')", nil,
			func(x guide.ExpertSummary) bool {
				return x.Location != nil && strings.Contains(strings.ToLower(*x.Location), "kyo") && slices.Contains(x.Languages, "ja")
			}},
	}
	for _, f := range filters {
		var fl expertList
		e.Get("/api/v1/experts?pageSize=100&" + f.query).Expect(200).Decode(&fl)
		want := e.count(t, verifiedExperts+" "+f.where, f.args...)
		if fl.Meta.Total != want || len(fl.Data) != want {
			t.Errorf("%s: total %d, %d items; want %d", f.query, fl.Meta.Total, len(fl.Data), want)
		}
		if want == 0 && !strings.Contains(f.query, "%") {
			t.Errorf("%s: the sample has no match; the test proves nothing", f.query)
		}
		for _, x := range fl.Data {
			if !f.check(x) {
				t.Errorf("%s: %s does not match", f.query, x.Handle)
			}
		}
	}

	// A city filter that matches several cities (Kyoto and Tokyo) walks
	// each city's experts to the page's end: page after page gives the
	// same experts in the same order as one page of all of them, each once.
	for _, sort := range []string{"sort=rating&order=desc", "sort=createdAt&order=asc", "sort=reviewCount&order=desc"} {
		var all expertList
		e.Get("/api/v1/experts?city=KYO&pageSize=100&" + sort).Expect(200).Decode(&all)
		var want, got []string
		cities := map[string]bool{}
		for _, x := range all.Data {
			want = append(want, x.Handle)
			cities[*x.Location] = true
		}
		for page := 1; page <= 20; page++ {
			var p expertList
			e.Get("/api/v1/experts?city=KYO&pageSize=3&page=" + strconv.Itoa(page) + "&" + sort).Expect(200).Decode(&p)
			if p.Meta.Total != all.Meta.Total {
				t.Errorf("city=KYO&%s page %d: total %d, want %d", sort, page, p.Meta.Total, all.Meta.Total)
			}
			for _, x := range p.Data {
				got = append(got, x.Handle)
			}
			if !p.Meta.HasMore {
				break
			}
		}
		gotPages := map[string]any{"severalCities": len(cities) >= 2, "overTwoPages": len(want) > 6, "onePageHasAll": len(want) == all.Meta.Total, "handles": got}
		wantPages := map[string]any{"severalCities": true, "overTwoPages": true, "onePageHasAll": true, "handles": want}
		if diff := cmp.Diff(wantPages, gotPages); diff != "" {
			t.Errorf("city=KYO&%s: pages of 3 against one page (-want +got):\n%s", sort, diff)
		}
	}

	var byReviews expertList
	e.Get("/api/v1/experts?sort=reviewCount&order=asc&pageSize=100").Expect(200).Decode(&byReviews)
	if !slices.IsSortedFunc(byReviews.Data, func(a, b guide.ExpertSummary) int { return a.ReviewCount - b.ReviewCount }) {
		t.Error("sort=reviewCount&order=asc is not ascending")
	}

	// Detail, localized, with English as the fallback.
	var en, ja struct{ Data guide.ExpertDetail }
	e.Get("/api/v1/experts/demo-expert").Expect(200).Decode(&en)
	e.Get("/api/v1/experts/demo-expert?locale=ja").Expect(200).Decode(&ja)
	gotEN := map[string]any{"handle": en.Data.Handle, "timezoneSet": en.Data.Timezone != "", "messaging": en.Data.MessagingEnabled, "verified": en.Data.VerifiedAt != nil}
	wantEN := map[string]any{"handle": "demo-expert", "timezoneSet": true, "messaging": true, "verified": true}
	if diff := cmp.Diff(wantEN, gotEN); diff != "" {
		t.Errorf("demo expert detail (-want +got):\n%s", diff)
	}
	var jaBio string
	if err := e.db.QueryRow(`SELECT t.bio FROM expert_translations t JOIN experts x ON x.id = t.expert_id
		JOIN users u ON u.id = x.user_id WHERE u.handle = 'demo-expert' AND t.locale = 'ja'`).Scan(&jaBio); err != nil {
		t.Fatal(err)
	}
	gotBio := map[string]any{"ja": ja.Data.Bio, "enSet": en.Data.Bio != nil, "enIsJA": en.Data.Bio != nil && *en.Data.Bio == jaBio}
	wantBio := map[string]any{"ja": &jaBio, "enSet": true, "enIsJA": false}
	if diff := cmp.Diff(wantBio, gotBio); diff != "" {
		t.Errorf("locale=ja bio (-want +got):\n%s", diff)
	}
	e.Get("/api/v1/experts/DEMO-EXPERT").Expect(200)
	e.Get("/api/v1/experts/no-such-expert").Expect(404)
}

func testPackages(t *testing.T, e *env) {
	activeWhere := `FROM packages p JOIN experts e ON e.id = p.expert_id JOIN users u ON u.id = e.user_id
		WHERE p.is_active = TRUE AND e.verified_at IS NOT NULL AND u.deleted_at IS NULL`
	var l packageList
	e.Get("/api/v1/packages?pageSize=100&sort=basePrice&order=asc").Expect(200).Decode(&l)
	total := e.count(t, "SELECT COUNT(*) "+activeWhere)
	gotMeta := map[string]any{"total": l.Meta.Total, "atLeast100": total >= 100, "items": len(l.Data), "hasMore": l.Meta.HasMore}
	wantMeta := map[string]any{"total": total, "atLeast100": true, "items": 100, "hasMore": true}
	if diff := cmp.Diff(wantMeta, gotMeta); diff != "" {
		t.Fatalf("packages meta (-want +got):\n%s", diff)
	}
	// The specification's sort=basePrice orders by the field as answered,
	// across pages too, whatever the currency: with exchange rates set,
	// the converted order (sort=price) differs from it.
	if err := e.store.SetCurrencyRates(t.Context(), map[string]float64{"CNY": 0.14, "HKD": 0.128, "JPY": 0.0067}); err != nil {
		t.Fatal(err)
	}
	for _, order := range []string{"asc", "desc"} {
		var all []guide.PackageSummary
		for page := 1; ; page++ {
			var p packageList
			e.Get(fmt.Sprintf("/api/v1/packages?pageSize=40&page=%d&sort=basePrice&order=%s", page, order)).Expect(200).Decode(&p)
			all = append(all, p.Data...)
			if !p.Meta.HasMore {
				break
			}
		}
		cmp := func(a, b guide.PackageSummary) int { return cmpFloat(a.BasePrice, b.BasePrice) }
		if order == "desc" {
			cmp = func(a, b guide.PackageSummary) int { return cmpFloat(b.BasePrice, a.BasePrice) }
		}
		if len(all) != total || !slices.IsSortedFunc(all, cmp) {
			t.Errorf("sort=basePrice&order=%s: %d packages, want %d, in basePrice order", order, len(all), total)
		}
	}
	e.Get("/api/v1/packages?sort=price&order=asc").Expect(200)
	var inactive string
	if err := e.db.QueryRow(`SELECT id FROM packages WHERE is_active = FALSE LIMIT 1`).Scan(&inactive); err != nil {
		t.Fatal(err)
	}
	e.Get("/api/v1/packages/" + inactive).Expect(404)
	e.Get("/api/v1/packages/00000000-0000-7000-8000-000000000000").Expect(404)

	var jp packageList
	e.Get("/api/v1/packages?country=JP&category=food_tour&pageSize=100").Expect(200).Decode(&jp)
	if want := e.count(t, "SELECT COUNT(*) "+activeWhere+" AND p.country_code = 'JP' AND p.category = 'food_tour'"); jp.Meta.Total != want || want == 0 {
		t.Errorf("JP food tours: %d, want %d (nonzero)", jp.Meta.Total, want)
	}
	for _, p := range jp.Data {
		if p.CountryCode != "JP" || p.Category != "food_tour" {
			t.Errorf("filter leak: %+v", p)
		}
	}

	var byDuration packageList
	e.Get("/api/v1/packages?sort=duration&pageSize=50").Expect(200).Decode(&byDuration)
	if !slices.IsSortedFunc(byDuration.Data, func(a, b guide.PackageSummary) int { return b.Duration - a.Duration }) {
		t.Error("sort=duration is not descending by default")
	}

	// Detail in Korean; a package without a Korean translation falls back
	// to English.
	id := l.Data[0].ID
	var ko, en struct{ Data guide.PackageDetail }
	e.Get("/api/v1/packages/" + id + "?locale=ko").Expect(200).Decode(&ko)
	e.Get("/api/v1/packages/" + id).Expect(200).Decode(&en)
	var koTitle string
	if err := e.db.QueryRow(`SELECT title FROM package_translations WHERE package_id = $1 AND locale = 'ko'`, id).Scan(&koTitle); err == nil {
		if ko.Data.Title != koTitle || en.Data.Title == koTitle {
			t.Errorf("ko title %q, want %q", ko.Data.Title, koTitle)
		}
	}
	var untranslated string
	if err := e.db.QueryRow(`SELECT p.id, p.title `+activeWhere+` AND NOT EXISTS
		(SELECT 1 FROM package_translations t WHERE t.package_id = p.id AND t.locale = 'ko') LIMIT 1`).Scan(&untranslated, new(string)); err == nil {
		var fb, base struct{ Data guide.PackageDetail }
		e.Get("/api/v1/packages/" + untranslated + "?locale=ko").Expect(200).Decode(&fb)
		e.Get("/api/v1/packages/" + untranslated + "?locale=en").Expect(200).Decode(&base)
		if fb.Data.Title != base.Data.Title || fb.Data.Title == "" {
			t.Errorf("missing ko translation: title %q, want the English %q", fb.Data.Title, base.Data.Title)
		}
	} else {
		t.Errorf("the sample has no active package without a Korean translation: %v", err)
	}
	if len(en.Data.Excluded) == 0 || len(en.Data.Highlights) == 0 {
		t.Errorf("package detail lacks lists: %+v", en.Data)
	}

	var mine packageList
	e.Get("/api/v1/experts/demo-expert/packages").Expect(200).Decode(&mine)
	if mine.Meta.Total < 1 {
		t.Fatal("demo expert has no packages")
	}
	for _, p := range mine.Data {
		if p.ExpertHandle != "demo-expert" {
			t.Errorf("another expert's package in the demo expert's list: %+v", p)
		}
	}
}

func testTravelogues(t *testing.T, e *env) {
	var l travelogueList
	e.Get("/api/v1/travelogues?pageSize=100").Expect(200).Decode(&l)
	total := e.count(t, `SELECT COUNT(*) FROM travelogues WHERE status = 'published'`)
	if l.Meta.Total != total || len(l.Data) != total || total < 30 {
		t.Fatalf("travelogues meta %+v, %d items; want %d published", l.Meta, len(l.Data), total)
	}
	var draft string
	if err := e.db.QueryRow(`SELECT slug FROM travelogues WHERE status = 'draft' LIMIT 1`).Scan(&draft); err != nil {
		t.Fatal(err)
	}
	for _, x := range l.Data {
		if x.Slug == draft || x.PublishedAt == nil {
			t.Fatalf("draft listed: %+v", x)
		}
	}
	e.Get("/api/v1/travelogues/" + draft).Expect(404)

	var byViews travelogueList
	e.Get("/api/v1/travelogues?sort=viewCount&order=asc&pageSize=100").Expect(200).Decode(&byViews)
	if !slices.IsSortedFunc(byViews.Data, func(a, b guide.TravelogueSummary) int { return a.ViewCount - b.ViewCount }) {
		t.Error("sort=viewCount&order=asc is not ascending")
	}
	var food travelogueList
	e.Get("/api/v1/travelogues?category=food&pageSize=100").Expect(200).Decode(&food)
	if want := e.count(t, `SELECT COUNT(*) FROM travelogues WHERE status = 'published' AND category = 'food'`); food.Meta.Total != want || want == 0 {
		t.Errorf("food travelogues %d, want %d (nonzero)", food.Meta.Total, want)
	}

	slug := l.Data[0].Slug
	var en, zh struct{ Data guide.TravelogueDetail }
	e.Get("/api/v1/travelogues/" + slug).Expect(200).Decode(&en)
	e.Get("/api/v1/travelogues/" + slug + "?locale=zh-TW").Expect(200).Decode(&zh)
	if !strings.Contains(en.Data.Content, "<p>") || en.Data.Author.Handle == "" {
		t.Errorf("travelogue detail: %+v", en.Data.TravelogueSummary)
	}
	if zh.Data.Title == en.Data.Title || zh.Data.Content == en.Data.Content {
		t.Error("locale=zh-TW returned the English text")
	}
	e.Get("/api/v1/travelogues/" + slug + "?locale=zh-tw").Expect(200)
}

func testReviews(t *testing.T, e *env) {
	var handle string
	var count int
	var rating float64
	if err := e.db.QueryRow(`SELECT u.handle, e.review_count, e.rating FROM experts e JOIN users u ON u.id = e.user_id
		WHERE e.verified_at IS NOT NULL ORDER BY e.review_count DESC LIMIT 1`).Scan(&handle, &count, &rating); err != nil {
		t.Fatal(err)
	}
	var all reviewList
	e.Get("/api/v1/experts/" + handle + "/reviews?pageSize=100").Expect(200).Decode(&all)
	if all.Meta.Total != count || len(all.Data) != count {
		t.Fatalf("reviews of %s: %d (meta %+v), want %d", handle, len(all.Data), all.Meta, count)
	}
	sum := 0
	for _, r := range all.Data {
		sum += r.Rating
	}
	if got := float64(sum) / float64(count); got != rating {
		t.Errorf("mean of listed reviews %v, stored rating %v", got, rating)
	}
	if !slices.IsSortedFunc(all.Data, func(a, b guide.Review) int { return b.CreatedAt.Compare(a.CreatedAt) }) {
		t.Error("reviews are not newest first by default")
	}
	var byRating reviewList
	e.Get("/api/v1/experts/" + handle + "/reviews?sort=rating&order=asc&pageSize=100").Expect(200).Decode(&byRating)
	if !slices.IsSortedFunc(byRating.Data, func(a, b guide.Review) int { return a.Rating - b.Rating }) {
		t.Error("sort=rating&order=asc is not ascending")
	}
	var second reviewList
	e.Get("/api/v1/experts/" + handle + "/reviews?pageSize=2&page=2").Expect(200).Decode(&second)
	if len(second.Data) != 2 || second.Data[0].ID != all.Data[2].ID {
		t.Error("page 2 of size 2 does not start at the third review")
	}
}

func testCitiesSpecialties(t *testing.T, e *env) {
	var cities struct{ Data []guide.City }
	e.Get("/api/v1/cities").Expect(200).Decode(&cities)
	want := e.count(t, `SELECT COUNT(*) FROM (SELECT DISTINCT e.location, e.country_code FROM experts e
		JOIN users u ON u.id = e.user_id WHERE e.verified_at IS NOT NULL AND u.deleted_at IS NULL AND e.location IS NOT NULL) c`)
	if len(cities.Data) != want || want < 12 {
		t.Fatalf("%d cities, want %d (at least 12)", len(cities.Data), want)
	}
	countries := map[string]bool{}
	for _, c := range cities.Data {
		countries[c.CountryCode] = true
		var l expertList
		e.Get("/api/v1/experts?city=" + url.QueryEscape(c.Name)).Expect(200).Decode(&l)
		if l.Meta.Total == 0 {
			t.Errorf("city %s has no verified expert", c.Name)
		}
	}
	if len(countries) != 5 {
		t.Errorf("cities cover %d countries, want 5", len(countries))
	}
	var specialties struct{ Data []string }
	e.Get("/api/v1/specialties").Expect(200).Decode(&specialties)
	if len(specialties.Data) < 5 || !slices.IsSorted(specialties.Data) || !slices.Contains(specialties.Data, "food") {
		t.Errorf("specialties: %v", specialties.Data)
	}
}

// TestCatalogBadInput groups the 400 and 404 answers of the public reads.
func TestCatalogBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	cases := []struct {
		path  string
		field string
	}{
		{"/api/v1/experts?pageSize=101", "pageSize"},
		{"/api/v1/experts?pageSize=0", "pageSize"},
		{"/api/v1/experts?page=0", "page"},
		{"/api/v1/experts?page=abc", "page"},
		{"/api/v1/experts?order=up", "order"},
		{"/api/v1/experts?sort=x", "sort"},
		{"/api/v1/experts?sort=basePrice", "sort"},
		{"/api/v1/experts?country=US", "country"},
		{"/api/v1/experts?locale=fr", "locale"},
		{"/api/v1/experts?city=" + strings.Repeat("a", 101), "city"},
		{"/api/v1/experts/demo-expert?locale=fr", "locale"},
		{"/api/v1/experts/demo-expert/packages?pageSize=101", "pageSize"},
		{"/api/v1/experts/demo-expert/reviews?sort=hotScore", "sort"},
		{"/api/v1/packages?sort=rating", "sort"},
		{"/api/v1/packages?country=TH", "country"},
		{"/api/v1/packages?page=-1", "page"},
		{"/api/v1/travelogues?sort=basePrice", "sort"},
		{"/api/v1/travelogues?order=random", "order"},
		{"/api/v1/travelogues/some-slug?locale=de", "locale"},
	}
	for _, c := range cases {
		res := e.Get(c.path).Expect(http.StatusBadRequest)
		if res.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: code %s", c.path, res.ErrorCode())
		}
		if _, ok := res.ErrorDetails()[c.field]; !ok {
			t.Errorf("%s: details %v do not name %s", c.path, res.ErrorDetails(), c.field)
		}
	}
	// Several bad parameters are all reported at once.
	d := e.Get("/api/v1/experts?page=0&pageSize=500&order=up").Expect(400).ErrorDetails()
	if len(d) != 3 {
		t.Errorf("details %v, want page, pageSize and order", d)
	}

	for _, path := range []string{"/api/v1/experts/nobody", "/api/v1/experts/nobody/packages", "/api/v1/experts/nobody/reviews",
		"/api/v1/packages/not-a-uuid", "/api/v1/travelogues/no-such-story", "/api/v1/nothing-here", "/nothing-here"} {
		if res := e.Get(path).Expect(404); res.ErrorCode() != "NOT_FOUND" {
			t.Errorf("%s: code %s", path, res.ErrorCode())
		}
	}
	res := e.Do(http.MethodPost, "/api/v1/experts", `{}`).Expect(http.StatusMethodNotAllowed)
	if res.ErrorCode() != "METHOD_NOT_ALLOWED" || !strings.Contains(res.Header.Get("Allow"), "GET") {
		t.Errorf("405: code %s, Allow %q", res.ErrorCode(), res.Header.Get("Allow"))
	}
	e.Do(http.MethodDelete, "/api/v1/cities", nil).Expect(405)

	// Past the last page: no items, the right total, no more pages.
	var l expertList
	e.Get("/api/v1/experts?page=999").Expect(200).Decode(&l)
	got := map[string]any{"items": len(l.Data), "total": l.Meta.Total, "hasMore": l.Meta.HasMore, "page": l.Meta.Page}
	want := map[string]any{"items": 0, "total": e.count(t, verifiedExperts), "hasMore": false, "page": 999}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("page 999 (-want +got):\n%s", diff)
	}
}

// TestEmptyCatalog: a database without the sample answers empty lists.
func TestEmptyCatalog(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	for _, path := range []string{"/api/v1/experts", "/api/v1/packages", "/api/v1/travelogues"} {
		var l struct {
			Data []any
			Meta paging.Meta
		}
		res := e.Get(path).Expect(200)
		res.Decode(&l)
		got := map[string]any{"dataNil": l.Data == nil, "items": len(l.Data), "total": l.Meta.Total, "hasMore": l.Meta.HasMore,
			"emptyArray": strings.Contains(string(res.Body), `"data":[]`)}
		want := map[string]any{"dataNil": false, "items": 0, "total": 0, "hasMore": false, "emptyArray": true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s\n%s", path, diff, res.Body)
		}
	}
	e.Get("/api/v1/cities").Expect(200)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
