package guidedb_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// sampleLocales are the locales every public text is translated into.
var sampleLocales = []string{"zh", "zh-TW", "ja", "ko"}

// generated is the sample, made once for the tests that only read it
// (slow under the race detector).
var generated = sync.OnceValue(sample.Generate)

// loadSample is the load of the package's sample template
// (storetest.MustOpenSample).
func loadSample(ctx context.Context, db *store.DB) error {
	return guidedb.LoadSample(ctx, db, generated())
}

func TestGenerateIsDeterministic(t *testing.T) {
	t.Parallel()
	a, b := generated(), sample.Generate()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two calls of sample.Generate returned different datasets")
	}
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatal("two calls of sample.Generate marshal to different JSON")
	}
}

// TestLoadGuideSample loads the sample into each engine and checks its
// invariants against the stored rows. A load failing on its last table
// first leaves nothing behind, and loading twice fails.
func TestLoadGuideSample(t *testing.T) {
	t.Parallel()
	ds := generated()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			db := storetest.MustOpenDB(t, engine, guidedb.Schema)
			ctx := t.Context()
			if empty, err := guidedb.IsEmpty(ctx, db); err != nil || !empty {
				t.Fatalf("IsEmpty before loading = %v, %v; want true", empty, err)
			}
			bad := *ds
			bad.Messages = append(slices.Clone(ds.Messages), ds.Messages[0]) // a duplicate key in the last table
			if err := guidedb.LoadSample(ctx, db, &bad); err == nil {
				t.Fatal("loading a dataset with a duplicate message succeeded")
			}
			if empty, err := guidedb.IsEmpty(ctx, db); err != nil || !empty {
				t.Fatalf("after a failed load IsEmpty = %v, %v; want true", empty, err)
			}
			start := time.Now()
			if err := guidedb.LoadSample(ctx, db, ds); err != nil {
				t.Fatalf("LoadSample: %v", err)
			}
			t.Logf("LoadSample on %s took %v", engine, time.Since(start))
			if empty, err := guidedb.IsEmpty(ctx, db); err != nil || empty {
				t.Fatalf("IsEmpty after loading = %v, %v; want false", empty, err)
			}
			if err := guidedb.LoadSample(ctx, db, ds); err == nil {
				t.Fatal("loading into a non-empty database succeeded")
			}
			c := &sampleChecker{db: db, ds: ds}
			t.Run("row counts", c.rowCounts)
			t.Run("minimum counts", c.minimumCounts)
			t.Run("experts per country", c.expertsPerCountry)
			t.Run("no violations", c.noViolations)
			t.Run("rating invariant", c.ratings)
			t.Run("translations", c.translations)
			t.Run("ids", c.ids)
			t.Run("timeline", c.timeline)
			t.Run("expert json", c.expertJSON)
			t.Run("package json", c.packageJSON)
			t.Run("handles and slugs", c.handlesAndSlugs)
			t.Run("travelogues", c.travelogues)
			t.Run("conversations", c.conversations)
			t.Run("demo accounts", c.demoAccounts)
		})
	}
}

func BenchmarkLoadGuideSample(b *testing.B) {
	ds := generated()
	for _, engine := range storetest.Engines() {
		b.Run(string(engine), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				db := storetest.MustOpenDB(b, engine, guidedb.Schema)
				b.StartTimer()
				if err := guidedb.LoadSample(b.Context(), db, ds); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type sampleChecker struct {
	db *store.DB
	ds *sample.Dataset
}

// count runs a query returning one integer.
func (c *sampleChecker) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := c.db.QueryRowContext(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// each runs query and calls scan for every row.
func (c *sampleChecker) each(t *testing.T, query string, scan func(rows *sql.Rows) error) {
	t.Helper()
	rows, err := c.db.QueryContext(t.Context(), query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			t.Fatalf("%s: scan: %v", query, err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func (c *sampleChecker) rowCounts(t *testing.T) {
	ds := c.ds
	for _, tc := range []struct {
		table string
		want  int
	}{
		{"users", len(ds.Users)},
		{"experts", len(ds.Experts)},
		{"expert_translations", len(ds.ExpertTranslations)},
		{"expert_languages", len(ds.ExpertLanguages)},
		{"expert_specialties", len(ds.ExpertSpecialties)},
		{"packages", len(ds.Packages)},
		{"package_translations", len(ds.PackageTranslations)},
		{"bookings", len(ds.Bookings)},
		{"reviews", len(ds.Reviews)},
		{"travelogues", len(ds.Travelogues)},
		{"travelogue_translations", len(ds.TravelogueTranslations)},
		{"conversations", len(ds.Conversations)},
		{"messages", len(ds.Messages)},
	} {
		if got := c.count(t, "SELECT COUNT(*) FROM "+tc.table); got != tc.want {
			t.Errorf("%s has %d rows, want the dataset's %d", tc.table, got, tc.want)
		}
	}
}

func (c *sampleChecker) minimumCounts(t *testing.T) {
	const verified = "verified_at IS NOT NULL"
	for _, tc := range []struct {
		what  string
		query string
		min   int
	}{
		{"verified experts", "SELECT COUNT(*) FROM experts WHERE " + verified, 44},
		{"unverified experts", "SELECT COUNT(*) FROM experts WHERE verified_at IS NULL", 3},
		{"unverified experts with packages", "SELECT COUNT(DISTINCT e.id) FROM experts e JOIN packages p ON p.expert_id = e.id WHERE e.verified_at IS NULL", 3},
		{"cities with verified experts", "SELECT COUNT(DISTINCT location) FROM experts WHERE " + verified, 14},
		{"verified experts with messaging disabled", "SELECT COUNT(*) FROM experts WHERE NOT messaging_enabled AND " + verified, 2},
		{"verified experts with AI auto-reply and instructions", "SELECT COUNT(*) FROM experts WHERE ai_auto_reply AND ai_instructions IS NOT NULL AND ai_instructions <> '' AND " + verified, 5},
		{"verified experts without an hourly rate", "SELECT COUNT(*) FROM experts WHERE hourly_rate IS NULL AND " + verified, 2},
		{"verified experts without reviews", "SELECT COUNT(*) FROM experts WHERE review_count = 0 AND " + verified, 1},
		{"verified experts with 3 to 15 reviews", "SELECT COUNT(*) FROM experts WHERE review_count BETWEEN 3 AND 15 AND " + verified, 40},
		{"packages", "SELECT COUNT(*) FROM packages", 110},
		{"active packages", "SELECT COUNT(*) FROM packages WHERE is_active", 100},
		{"active packages of verified experts", "SELECT COUNT(*) FROM packages p JOIN experts e ON e.id = p.expert_id WHERE p.is_active AND e." + verified, 100},
		{"inactive packages", "SELECT COUNT(*) FROM packages WHERE NOT is_active", 10},
		{"tourists", "SELECT COUNT(*) FROM users WHERE role = 'TOURIST'", 140},
		{"tourists without a name", "SELECT COUNT(*) FROM users WHERE role = 'TOURIST' AND name IS NULL", 1},
		{"reviews", "SELECT COUNT(*) FROM reviews", 320},
		{"reviews without a comment", "SELECT COUNT(*) FROM reviews WHERE comment IS NULL", 1},
		{"completed bookings without a review", "SELECT COUNT(*) FROM bookings b WHERE status = 'COMPLETED' AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.booking_id = b.id)", 25},
		{"cancelled bookings", "SELECT COUNT(*) FROM bookings WHERE status = 'CANCELLED'", 15},
		{"pending bookings", "SELECT COUNT(*) FROM bookings WHERE status = 'PENDING'", 2},
		{"confirmed bookings", "SELECT COUNT(*) FROM bookings WHERE status = 'CONFIRMED'", 2},
		{"published travelogues", "SELECT COUNT(*) FROM travelogues WHERE status = 'published'", 34},
		{"draft travelogues", "SELECT COUNT(*) FROM travelogues WHERE status = 'draft'", 5},
		{"travelogues by travellers", "SELECT COUNT(*) FROM travelogues t JOIN users u ON u.id = t.author_id WHERE u.role = 'TOURIST'", 1},
		{"conversations", "SELECT COUNT(*) FROM conversations", 12},
		{"unread messages", "SELECT COUNT(*) FROM messages WHERE NOT is_read", 1},
		{"AI-generated messages", "SELECT COUNT(*) FROM messages WHERE is_ai_generated", 1},
	} {
		if got := c.count(t, tc.query); got < tc.min {
			t.Errorf("%d %s, want at least %d", got, tc.what, tc.min)
		}
	}
}

func (c *sampleChecker) expertsPerCountry(t *testing.T) {
	got := map[string]int{}
	c.each(t, "SELECT country_code, COUNT(*) FROM experts WHERE verified_at IS NOT NULL GROUP BY country_code", func(rows *sql.Rows) error {
		var cc string
		var n int
		err := rows.Scan(&cc, &n)
		got[cc] = n
		return err
	})
	for _, cc := range guide.CountryCodes {
		if got[cc] < 7 {
			t.Errorf("%d verified experts in %s, want at least 7", got[cc], cc)
		}
	}
}

// noViolations runs queries that count rows breaking a rule.
func (c *sampleChecker) noViolations(t *testing.T) {
	in := func(values []string) string { // an SQL list of string literals
		quoted := make([]string, len(values))
		for i, v := range values {
			quoted[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		}
		return "(" + strings.Join(quoted, ", ") + ")"
	}
	for _, tc := range []struct {
		rule  string
		query string
	}{
		{"email_normalized is lower(email)", "SELECT COUNT(*) FROM users WHERE email IS NOT NULL AND (email_normalized IS NULL OR email_normalized <> LOWER(email))"},
		{"no password is set", "SELECT COUNT(*) FROM users WHERE password_hash IS NOT NULL"},
		{"experts are EXPERT users with verified guide e-mails", "SELECT COUNT(*) FROM experts e JOIN users u ON u.id = e.user_id WHERE u.role <> 'EXPERT' OR NOT u.email_verified OR (u.email <> u.handle || '@guides.example.com' AND u.handle <> 'demo-expert')"},
		{"tourists have traveller e-mails", "SELECT COUNT(*) FROM users WHERE role = 'TOURIST' AND email <> handle || '@travellers.example.com' AND handle <> 'demo-traveller'"},
		{"user locales are content locales", "SELECT COUNT(*) FROM users WHERE locale NOT IN " + in(guide.Locales)},
		{"avatars are sample paths", "SELECT COUNT(*) FROM users WHERE avatar IS NOT NULL AND avatar <> '/media/sample/avatars/' || handle || '.jpg'"},
		{"expert images are sample paths", "SELECT COUNT(*) FROM experts e JOIN users u ON u.id = e.user_id WHERE (e.profile_image IS NOT NULL AND e.profile_image <> '/media/sample/experts/' || u.handle || '.jpg') OR (e.cover_image IS NOT NULL AND e.cover_image <> '/media/sample/covers/' || u.handle || '.jpg')"},
		{"currency and time zone follow the country", `SELECT COUNT(*) FROM experts WHERE NOT (
			(country_code = 'CN' AND currency = 'CNY' AND timezone = 'Asia/Shanghai') OR
			(country_code = 'JP' AND currency = 'JPY' AND timezone = 'Asia/Tokyo') OR
			(country_code = 'KR' AND currency = 'KRW' AND timezone = 'Asia/Seoul') OR
			(country_code = 'TW' AND currency = 'TWD' AND timezone = 'Asia/Taipei') OR
			(country_code = 'HK' AND currency = 'HKD' AND timezone = 'Asia/Hong_Kong'))`},
		{"hourly rates are realistic", `SELECT COUNT(*) FROM experts WHERE hourly_rate IS NOT NULL AND NOT (
			(currency = 'CNY' AND hourly_rate BETWEEN 150 AND 450) OR
			(currency = 'JPY' AND hourly_rate BETWEEN 4000 AND 9000) OR
			(currency = 'KRW' AND hourly_rate BETWEEN 40000 AND 90000) OR
			(currency = 'TWD' AND hourly_rate BETWEEN 800 AND 2000) OR
			(currency = 'HKD' AND hourly_rate BETWEEN 250 AND 600))`},
		{"locations are sample cities", "SELECT COUNT(*) FROM experts WHERE location IS NULL OR location NOT IN " + in(sample.Cities())},
		{"experts speak 2 to 4 languages", "SELECT COUNT(*) FROM experts e WHERE (SELECT COUNT(*) FROM expert_languages l WHERE l.expert_id = e.id) NOT BETWEEN 2 AND 4"},
		{"languages are known codes", "SELECT COUNT(*) FROM expert_languages WHERE language NOT IN " + in(sample.Languages())},
		{"experts have 2 to 4 specialties", "SELECT COUNT(*) FROM experts e WHERE (SELECT COUNT(*) FROM expert_specialties s WHERE s.expert_id = e.id) NOT BETWEEN 2 AND 4"},
		{"specialties are from the vocabulary", "SELECT COUNT(*) FROM expert_specialties WHERE specialty NOT IN " + in(sample.Specialties())},
		{"verified experts have bios", "SELECT COUNT(*) FROM experts WHERE verified_at IS NOT NULL AND (bio IS NULL OR bio = '')"},
		{"AI instructions only with auto-reply", "SELECT COUNT(*) FROM experts WHERE (ai_auto_reply AND ai_instructions IS NULL) OR (NOT ai_auto_reply AND ai_instructions IS NOT NULL)"},
		{"packages match their expert's country and currency", "SELECT COUNT(*) FROM packages p JOIN experts e ON e.id = p.expert_id WHERE p.country_code <> e.country_code OR p.currency <> e.currency"},
		{"package categories are known", "SELECT COUNT(*) FROM packages WHERE category NOT IN " + in(sample.Categories())},
		{"package durations are 2 to 10 hours", "SELECT COUNT(*) FROM packages WHERE duration NOT BETWEEN 2 AND 10"},
		{"packages take 1 to 15 people", "SELECT COUNT(*) FROM packages WHERE max_participants NOT BETWEEN 1 AND 15"},
		{"package prices are realistic", `SELECT COUNT(*) FROM packages WHERE NOT (
			(currency = 'CNY' AND base_price BETWEEN 100 AND 5000) OR
			(currency = 'JPY' AND base_price BETWEEN 3000 AND 100000) OR
			(currency = 'KRW' AND base_price BETWEEN 30000 AND 1000000) OR
			(currency = 'TWD' AND base_price BETWEEN 500 AND 25000) OR
			(currency = 'HKD' AND base_price BETWEEN 200 AND 7000))`},
		{"reviews belong to a completed booking of their author and expert", "SELECT COUNT(*) FROM reviews r JOIN bookings b ON b.id = r.booking_id WHERE b.status <> 'COMPLETED' OR b.tourist_id <> r.author_id OR b.expert_id IS NULL OR b.expert_id <> r.expert_id"},
		{"ratings are 1 to 5", "SELECT COUNT(*) FROM reviews WHERE rating NOT BETWEEN 1 AND 5"},
		{"bookings copy their package's price, currency, duration and expert", "SELECT COUNT(*) FROM bookings b JOIN packages p ON p.id = b.package_id WHERE b.price <> p.base_price OR b.currency <> p.currency OR b.duration <> p.duration OR b.expert_id <> p.expert_id"},
		{"bookings are with verified experts", "SELECT COUNT(*) FROM bookings b JOIN experts e ON e.id = b.expert_id WHERE e.verified_at IS NULL"},
		{"bookings are by tourists", "SELECT COUNT(*) FROM bookings b JOIN users u ON u.id = b.tourist_id WHERE u.role <> 'TOURIST'"},
		{"bookings have 1 to 6 participants", "SELECT COUNT(*) FROM bookings WHERE participants NOT BETWEEN 1 AND 6"},
		{"booking timestamps fit the status", `SELECT COUNT(*) FROM bookings WHERE
			(status = 'COMPLETED' AND (confirmed_at IS NULL OR completed_at IS NULL OR cancelled_at IS NOT NULL)) OR
			(status = 'CANCELLED' AND (cancelled_at IS NULL OR cancelled_by IS NULL OR cancelled_by NOT IN ('tourist', 'expert') OR completed_at IS NOT NULL)) OR
			(status = 'CONFIRMED' AND (confirmed_at IS NULL OR completed_at IS NOT NULL OR cancelled_at IS NOT NULL)) OR
			(status = 'PENDING' AND (confirmed_at IS NOT NULL OR completed_at IS NOT NULL OR cancelled_at IS NOT NULL)) OR
			status = 'IN_PROGRESS'`},
		{"published travelogues and only they have published_at", "SELECT COUNT(*) FROM travelogues WHERE (status = 'published' AND published_at IS NULL) OR (status = 'draft' AND published_at IS NOT NULL)"},
		{"travelogue counters are in range", "SELECT COUNT(*) FROM travelogues WHERE score NOT BETWEEN 0 AND 500 OR view_count NOT BETWEEN 100 AND 20000 OR comment_count NOT BETWEEN 0 AND 80"},
		{"drafts have no hot score", "SELECT COUNT(*) FROM travelogues WHERE status = 'draft' AND hot_score <> 0"},
		{"travelogue categories are known", "SELECT COUNT(*) FROM travelogues WHERE category NOT IN ('food', 'adventure', 'culture', 'nature', 'city', 'shopping')"},
		{"travelogue covers are sample paths", "SELECT COUNT(*) FROM travelogues WHERE cover_image IS NOT NULL AND cover_image <> '/media/sample/travelogues/' || slug || '.jpg'"},
		{"conversations are with verified experts who take messages", "SELECT COUNT(*) FROM conversations c JOIN experts e ON e.id = c.expert_id WHERE e.verified_at IS NULL OR NOT e.messaging_enabled"},
		{"conversations are started by tourists", "SELECT COUNT(*) FROM conversations c JOIN users u ON u.id = c.tourist_id WHERE u.role <> 'TOURIST'"},
		{"messages come from the conversation's two parties", "SELECT COUNT(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN experts e ON e.id = c.expert_id WHERE m.sender_id <> c.tourist_id AND m.sender_id <> e.user_id"},
		{"only expert messages are AI-generated, and only with auto-reply", "SELECT COUNT(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN experts e ON e.id = c.expert_id WHERE m.is_ai_generated AND (m.sender_id <> e.user_id OR NOT e.ai_auto_reply)"},
		{"image messages have an image", "SELECT COUNT(*) FROM messages WHERE message_type = 'IMAGE' AND (image_url IS NULL OR image_width IS NULL OR image_height IS NULL)"},
	} {
		if n := c.count(t, tc.query); n != 0 {
			t.Errorf("%d rows break the rule: %s", n, tc.rule)
		}
	}
}

// ratings checks that every expert's rating and review_count are what the
// reviews give, computed as Go computes them.
func (c *sampleChecker) ratings(t *testing.T) {
	checked := 0
	c.each(t, `SELECT e.id, e.rating, e.review_count, COALESCE(SUM(r.rating), 0), COUNT(r.id)
		FROM experts e LEFT JOIN reviews r ON r.expert_id = e.id
		GROUP BY e.id, e.rating, e.review_count`, func(rows *sql.Rows) error {
		var id string
		var rating float64
		var reviewCount, sum, count int64
		if err := rows.Scan(&id, &rating, &reviewCount, &sum, &count); err != nil {
			return err
		}
		want := 0.0
		if count > 0 {
			want = float64(sum) / float64(count)
		}
		if reviewCount != count {
			t.Errorf("expert %s: review_count %d, but it has %d reviews", id, reviewCount, count)
		}
		if rating != want {
			t.Errorf("expert %s: rating %v, want %d/%d = %v", id, rating, sum, count, want)
		}
		checked++
		return nil
	})
	if checked != len(c.ds.Experts) {
		t.Errorf("checked %d experts, want %d", checked, len(c.ds.Experts))
	}
}

// translations checks that every verified expert, active package and
// published travelogue has a translation in each locale, except the
// dataset's documented gaps.
func (c *sampleChecker) translations(t *testing.T) {
	gaps := map[string]bool{}
	for _, g := range c.ds.TranslationGaps {
		gaps[g.Table+" "+g.ID+" "+g.Locale] = true
	}
	if len(gaps) == 0 {
		t.Error("the dataset documents no translation gaps; the English fallback goes untested")
	}
	for _, tc := range []struct {
		table, subjects, key, filled string
	}{
		{"expert_translations", "SELECT id FROM experts WHERE verified_at IS NOT NULL", "expert_id", "bio IS NOT NULL AND bio <> ''"},
		{"package_translations", "SELECT id FROM packages WHERE is_active", "package_id", "title <> '' AND description <> '' AND highlights IS NOT NULL AND included IS NOT NULL AND excluded IS NOT NULL"},
		{"travelogue_translations", "SELECT id FROM travelogues WHERE status = 'published'", "travelogue_id", "title <> '' AND excerpt <> '' AND content LIKE '%<p>%'"},
	} {
		for _, locale := range sampleLocales {
			var missing []string
			c.each(t, tc.subjects+" EXCEPT SELECT "+tc.key+" FROM "+tc.table+" WHERE locale = '"+locale+"' AND "+tc.filled,
				func(rows *sql.Rows) error {
					var id string
					err := rows.Scan(&id)
					if !gaps[tc.table+" "+id+" "+locale] {
						missing = append(missing, id)
					}
					return err
				})
			if len(missing) > 0 {
				t.Errorf("%s: %d rows lack a complete %s translation: %v", tc.table, len(missing), locale, missing)
			}
		}
	}
	for _, g := range c.ds.TranslationGaps {
		n := c.count(t, "SELECT COUNT(*) FROM "+g.Table+" WHERE package_id = $1 AND locale = $2", g.ID, g.Locale)
		active := c.count(t, "SELECT COUNT(*) FROM packages WHERE id = $1 AND is_active", g.ID)
		if n != 0 || active != 1 {
			t.Errorf("gap %v: %d translation rows and %d active packages, want 0 and 1", g, n, active)
		}
	}
}

// ids checks that every id is a UUIDv7 whose timestamp is the row's
// created_at.
func (c *sampleChecker) ids(t *testing.T) {
	for _, table := range []string{"users", "experts", "packages", "bookings", "reviews", "travelogues", "conversations", "messages"} {
		c.each(t, "SELECT id, created_at FROM "+table, func(rows *sql.Rows) error {
			var id string
			var created time.Time
			if err := rows.Scan(&id, &created); err != nil {
				return err
			}
			u, err := uuid.Parse(id)
			switch {
			case err != nil:
				t.Errorf("%s id %q: %v", table, id, err)
			case u.Version() != 7 || u.Variant() != uuid.RFC4122:
				t.Errorf("%s id %s: version %d, variant %v; want 7, RFC4122", table, id, u.Version(), u.Variant())
			case u.String() != id:
				t.Errorf("%s id %s is not in canonical form", table, id)
			default:
				ms := int64(binary.BigEndian.Uint64(append([]byte{0, 0}, u[:6]...)))
				if ms != created.UnixMilli() {
					t.Errorf("%s id %s: timestamp %d ms, created_at %d ms", table, id, ms, created.UnixMilli())
				}
			}
			return nil
		})
	}
}

// timeline checks that timestamps are in the past of the sample, in order,
// and that tours are where the rules put them.
func (c *sampleChecker) timeline(t *testing.T) {
	horizon := sample.Horizon
	for _, table := range []string{"users", "experts", "packages", "bookings", "reviews", "travelogues", "conversations", "messages"} {
		if n := c.count(t, "SELECT COUNT(*) FROM "+table+" WHERE created_at >= $1", horizon); n != 0 {
			t.Errorf("%d %s created on or after %v", n, table, horizon)
		}
	}
	c.each(t, "SELECT id, created_at, updated_at, verified_at FROM experts", func(rows *sql.Rows) error {
		var id string
		var created, updated time.Time
		var verified sql.NullTime
		if err := rows.Scan(&id, &created, &updated, &verified); err != nil {
			return err
		}
		got := map[string]bool{"createdIn2024To2026": created.Year() >= 2024 && created.Year() <= 2026,
			"updatedBeforeCreated": updated.Before(created), "updatedAfterHorizon": updated.After(horizon)}
		want := map[string]bool{"createdIn2024To2026": true, "updatedBeforeCreated": false, "updatedAfterHorizon": false}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("expert %s: created %v, updated %v (-want +got):\n%s", id, created, updated, diff)
		}
		if verified.Valid && (verified.Time.Before(created) || verified.Time.After(horizon)) {
			t.Errorf("expert %s: verified %v, created %v", id, verified.Time, created)
		}
		return nil
	})
	lastTour := time.Date(2026, 10, 15, 0, 0, 0, 0, time.UTC)
	upcomingFrom, upcomingTo := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)
	c.each(t, `SELECT b.id, b.status, b.created_at, b.updated_at, b.scheduled_date, b.confirmed_at, b.completed_at, b.cancelled_at, r.created_at, t.created_at
		FROM bookings b JOIN users t ON t.id = b.tourist_id LEFT JOIN reviews r ON r.booking_id = b.id`, func(rows *sql.Rows) error {
		var id, status string
		var created, updated, scheduled, touristCreated time.Time
		var confirmed, completed, cancelled, reviewed sql.NullTime
		if err := rows.Scan(&id, &status, &created, &updated, &scheduled, &confirmed, &completed, &cancelled, &reviewed, &touristCreated); err != nil {
			return err
		}
		fail := func(why string) {
			t.Errorf("booking %s (%s): %s: created %v, scheduled %v, confirmed %v, completed %v, cancelled %v, reviewed %v",
				id, status, why, created, scheduled, confirmed.Time, completed.Time, cancelled.Time, reviewed.Time)
		}
		if !touristCreated.Before(created) {
			fail("booked before the traveller signed up")
		}
		if confirmed.Valid && !created.Before(confirmed.Time) {
			fail("confirmed before it was made")
		}
		if updated.Before(created) || updated.After(horizon) {
			fail("updated_at out of order")
		}
		switch status {
		case "COMPLETED":
			if !scheduled.Before(lastTour) || !confirmed.Time.Before(completed.Time) || !scheduled.Before(completed.Time) || completed.Time.After(horizon) {
				fail("completed tour out of order")
			}
			if reviewed.Valid && (!completed.Time.Before(reviewed.Time) || !reviewed.Time.Before(horizon)) {
				fail("reviewed before completion or after the horizon")
			}
		case "CANCELLED":
			if !created.Before(cancelled.Time) || cancelled.Time.After(horizon) || (confirmed.Valid && !confirmed.Time.Before(cancelled.Time)) {
				fail("cancellation out of order")
			}
		case "PENDING", "CONFIRMED":
			if scheduled.Before(upcomingFrom) || !scheduled.Before(upcomingTo) {
				fail("upcoming tour outside December 2026 and January 2027")
			}
		}
		return nil
	})
}

func (c *sampleChecker) expertJSON(t *testing.T) {
	hhmm := regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)
	c.each(t, "SELECT e.id, u.handle, e.weekly_schedule, e.blocked_dates, e.social_links FROM experts e JOIN users u ON u.id = e.user_id", func(rows *sql.Rows) error {
		var id, handle, scheduleJSON, blockedJSON, linksJSON string
		if err := rows.Scan(&id, &handle, &scheduleJSON, &blockedJSON, &linksJSON); err != nil {
			return err
		}
		var schedule guide.WeeklySchedule
		if err := json.Unmarshal([]byte(scheduleJSON), &schedule); err != nil {
			t.Errorf("expert %s: weekly_schedule %s: %v", handle, scheduleJSON, err)
		}
		working := 0
		for day, slots := range schedule {
			if !slices.Contains(guide.Weekdays, day) {
				t.Errorf("expert %s: weekly_schedule has key %q", handle, day)
			}
			for _, s := range slots {
				if !hhmm.MatchString(s.Start) || !hhmm.MatchString(s.End) || s.Start >= s.End {
					t.Errorf("expert %s: bad slot %v on %s", handle, s, day)
				}
			}
			if len(slots) > 0 {
				working++
			}
		}
		if working < 4 {
			t.Errorf("expert %s works %d days a week", handle, working)
		}
		var blocked []guide.BlockedDate
		if err := json.Unmarshal([]byte(blockedJSON), &blocked); err != nil || len(blocked) == 0 {
			t.Errorf("expert %s: blocked_dates %s: %v", handle, blockedJSON, err)
		}
		for _, b := range blocked {
			if !strings.HasPrefix(b.Date, "2026-12-") && !strings.HasPrefix(b.Date, "2027-01-") {
				t.Errorf("expert %s: blocked date %s outside December 2026 and January 2027", handle, b.Date)
			}
			if _, err := time.Parse(time.DateOnly, b.Date); err != nil {
				t.Errorf("expert %s: blocked date %q: %v", handle, b.Date, err)
			}
		}
		var links map[string]string
		if err := json.Unmarshal([]byte(linksJSON), &links); err != nil || links == nil {
			t.Errorf("expert %s: social_links %s is not an object: %v", handle, linksJSON, err)
		}
		for k, v := range links {
			if !strings.HasPrefix(v, "https://") {
				t.Errorf("expert %s: social link %s is %q", handle, k, v)
			}
		}
		return nil
	})
}

func (c *sampleChecker) packageJSON(t *testing.T) {
	image := regexp.MustCompile(`^/media/sample/packages/[0-9]+-[1-4]\.jpg$`)
	c.each(t, "SELECT id, images, highlights, included, excluded FROM packages", func(rows *sql.Rows) error {
		var id string
		var lists [4]string
		if err := rows.Scan(&id, &lists[0], &lists[1], &lists[2], &lists[3]); err != nil {
			return err
		}
		for i, r := range []struct {
			name     string
			min, max int
		}{{"images", 2, 4}, {"highlights", 3, 5}, {"included", 2, 4}, {"excluded", 1, 3}} {
			var items []string
			if err := json.Unmarshal([]byte(lists[i]), &items); err != nil {
				t.Errorf("package %s: %s %s: %v", id, r.name, lists[i], err)
			}
			if len(items) < r.min || len(items) > r.max {
				t.Errorf("package %s has %d %s, want %d to %d", id, len(items), r.name, r.min, r.max)
			}
			for _, it := range items {
				if it == "" || (r.name == "images" && !image.MatchString(it)) {
					t.Errorf("package %s: bad %s entry %q", id, r.name, it)
				}
			}
		}
		return nil
	})
}

func (c *sampleChecker) handlesAndSlugs(t *testing.T) {
	slug := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, q := range []string{"SELECT handle FROM users", "SELECT slug FROM travelogues"} {
		c.each(t, q, func(rows *sql.Rows) error {
			var s string
			err := rows.Scan(&s)
			if !slug.MatchString(s) {
				t.Errorf("%q is not a lowercase ASCII slug (%s)", s, q)
			}
			return err
		})
	}
}

func (c *sampleChecker) travelogues(t *testing.T) {
	tag := regexp.MustCompile(`<[^>]+>`)
	c.each(t, "SELECT slug, status, excerpt, content, location_tags, images, score, view_count, comment_count, hot_score, published_at FROM travelogues", func(rows *sql.Rows) error {
		var slug, status, content, tagsJSON, imagesJSON string
		var excerpt sql.NullString
		var score, views, comments int
		var hot float64
		var published sql.NullTime
		if err := rows.Scan(&slug, &status, &excerpt, &content, &tagsJSON, &imagesJSON, &score, &views, &comments, &hot, &published); err != nil {
			return err
		}
		if status == "published" {
			if want := guide.HotScore(score, views, comments, published.Time); hot != want {
				t.Errorf("travelogue %s: hot_score %v, want guide.HotScore = %v", slug, hot, want)
			}
		}
		for _, el := range []string{"<h2>", "<p>"} {
			if !strings.Contains(content, el) {
				t.Errorf("travelogue %s: content has no %s", slug, el)
			}
		}
		if !strings.Contains(content, "<ul>") && !strings.Contains(content, "<ol>") {
			t.Errorf("travelogue %s: content has no list", slug)
		}
		if words := len(strings.Fields(tag.ReplaceAllString(content, " "))); words < 300 || words > 900 {
			t.Errorf("travelogue %s: %d words, want 300 to 900", slug, words)
		}
		gotExcerpt := map[string]bool{"set": excerpt.Valid && excerpt.String != "", "markup": strings.Contains(excerpt.String, "<"),
			"fromContent": strings.Contains(content, excerpt.String)}
		wantExcerpt := map[string]bool{"set": true, "markup": false, "fromContent": true}
		if diff := cmp.Diff(wantExcerpt, gotExcerpt); diff != "" {
			t.Errorf("travelogue %s: excerpt %q is not plain text from the content (-want +got):\n%s", slug, excerpt.String, diff)
		}
		var tags, images []string
		if err := json.Unmarshal([]byte(tagsJSON), &tags); err != nil || len(tags) < 1 || len(tags) > 3 {
			t.Errorf("travelogue %s: location_tags %s, want 1 to 3", slug, tagsJSON)
		}
		if err := json.Unmarshal([]byte(imagesJSON), &images); err != nil || len(images) < 1 || len(images) > 4 {
			t.Errorf("travelogue %s: images %s, want 1 to 4", slug, imagesJSON)
		}
		return nil
	})
}

// conversations checks that each conversation's messages alternate between
// its parties and that last_message is the newest one.
func (c *sampleChecker) conversations(t *testing.T) {
	type conv struct {
		id, tourist string
		last        sql.NullString
		lastAt      sql.NullTime
	}
	var convs []conv
	c.each(t, "SELECT id, tourist_id, last_message, last_message_at FROM conversations", func(rows *sql.Rows) error {
		var cv conv
		err := rows.Scan(&cv.id, &cv.tourist, &cv.last, &cv.lastAt)
		convs = append(convs, cv)
		return err
	})
	for _, cv := range convs {
		rows, err := c.db.QueryContext(t.Context(), "SELECT sender_id, content, created_at FROM messages WHERE conversation_id = $1 ORDER BY created_at, id", cv.id)
		if err != nil {
			t.Fatal(err)
		}
		var senders []string
		var content sql.NullString
		var at time.Time
		for rows.Next() {
			var sender string
			if err := rows.Scan(&sender, &content, &at); err != nil {
				t.Fatal(err)
			}
			senders = append(senders, sender)
		}
		rows.Close()
		if len(senders) < 2 || len(senders) > 12 {
			t.Errorf("conversation %s has %d messages, want 2 to 12", cv.id, len(senders))
			continue
		}
		for i, s := range senders {
			if (s == cv.tourist) != (i%2 == 0) {
				t.Errorf("conversation %s: message %d is not the traveller's and the expert's turn about", cv.id, i)
			}
		}
		if cv.last != content || !cv.lastAt.Valid || !cv.lastAt.Time.Equal(at) {
			t.Errorf("conversation %s: last message %q at %v, newest message %q at %v", cv.id, cv.last.String, cv.lastAt.Time, content.String, at)
		}
	}
}

func (c *sampleChecker) demoAccounts(t *testing.T) {
	for _, tc := range []struct{ email, handle, role string }{
		{sample.DemoTravellerEmail, sample.DemoTravellerHandle, "TOURIST"},
		{sample.DemoExpertEmail, sample.DemoExpertHandle, "EXPERT"},
		{sample.DemoAdminEmail, sample.DemoAdminHandle, "ADMIN"},
	} {
		n := c.count(t, "SELECT COUNT(*) FROM users WHERE email_normalized = $1 AND handle = $2 AND role = $3 AND password_hash IS NULL", tc.email, tc.handle, tc.role)
		if n != 1 {
			t.Errorf("no %s account %s with handle %s and no password", tc.role, tc.email, tc.handle)
		}
	}
	if n := c.count(t, "SELECT COUNT(*) FROM users WHERE handle = 'demo-traveller' AND name = 'Demo Traveller'"); n != 1 {
		t.Error("the demo traveller is not named Demo Traveller")
	}
	const expert = "(SELECT e.id FROM experts e JOIN users u ON u.id = e.user_id WHERE u.handle = 'demo-expert')"
	const traveller = "(SELECT id FROM users WHERE handle = 'demo-traveller')"
	for _, tc := range []struct {
		what  string
		query string
		want  int
	}{
		{"verified Tokyo expert with messages, without auto-reply, in JPY", "SELECT COUNT(*) FROM experts WHERE id = " + expert + " AND verified_at IS NOT NULL AND messaging_enabled AND NOT ai_auto_reply AND location = 'Tokyo' AND country_code = 'JP' AND currency = 'JPY'", 1},
		{"active packages of the demo expert", "SELECT COUNT(*) FROM packages WHERE is_active AND expert_id = " + expert, 4},
		{"completed unreviewed bookings with the demo expert", "SELECT COUNT(*) FROM bookings b WHERE b.tourist_id = " + traveller + " AND b.expert_id = " + expert + " AND b.status = 'COMPLETED' AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.booking_id = b.id)", 1},
		{"pending bookings with the demo expert", "SELECT COUNT(*) FROM bookings WHERE tourist_id = " + traveller + " AND expert_id = " + expert + " AND status = 'PENDING' AND scheduled_date >= $1 AND scheduled_date < $2", 1},
		{"confirmed bookings with the demo expert", "SELECT COUNT(*) FROM bookings WHERE tourist_id = " + traveller + " AND expert_id = " + expert + " AND status = 'CONFIRMED' AND scheduled_date >= $1 AND scheduled_date < $2", 1},
		{"conversations with the demo expert", "SELECT COUNT(*) FROM conversations WHERE tourist_id = " + traveller + " AND expert_id = " + expert, 1},
	} {
		var args []any
		if strings.Contains(tc.query, "$1") {
			args = []any{time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Add(-9 * time.Hour), time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC).Add(-9 * time.Hour)}
		}
		if got := c.count(t, tc.query, args...); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.what, got, tc.want)
		}
	}
	if n := c.count(t, "SELECT review_count FROM experts WHERE id = "+expert); n == 0 {
		t.Error("the demo expert has no reviews")
	}
	if n := c.count(t, "SELECT COUNT(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.tourist_id = "+traveller+" AND m.sender_id <> c.tourist_id AND NOT m.is_read"); n == 0 {
		t.Error("the demo traveller has no unread message")
	}
}
