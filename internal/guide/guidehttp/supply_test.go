package guidehttp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestExpertAvailabilityUpdate: an expert replaces the schedule, blocked
// dates and time zone, and GET shows them; bad times, overlaps, unknown
// weekdays and past or malformed dates answer 400 naming the field; a
// non-expert gets 404.
func TestExpertAvailabilityUpdate(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, "sqlite")
	body := map[string]any{
		"weeklySchedule": map[string]any{"mon": []map[string]string{{"start": "13:00", "end": "17:00"}, {"start": "09:00", "end": "12:00"}}, "sat": []any{}},
		"blockedDates":   []map[string]any{{"date": "2027-01-02", "reason": "Family visit"}, {"date": "2026-12-31"}},
		"timezone":       "Asia/Seoul",
	}
	var got guide.Availability
	b.Do("PUT", "/api/expert/availability", body, bearer(b.expert.token)...).Expect(200).Decode(&got)
	var read guide.Availability
	b.Get("/api/expert/availability", bearer(b.expert.token)...).Expect(200).Decode(&read)
	gotRead := map[string]any{"timezone": read.Timezone, "expertId": read.ExpertID, "weekly": string(read.WeeklySchedule), "blocked": string(read.BlockedDates)}
	wantRead := map[string]any{"timezone": "Asia/Seoul", "expertId": b.expertID,
		"weekly":  `{"mon":[{"start":"09:00","end":"12:00"},{"start":"13:00","end":"17:00"}],"sat":[]}`,
		"blocked": `[{"date":"2026-12-31","reason":null},{"date":"2027-01-02","reason":"Family visit"}]`}
	if diff := cmp.Diff(wantRead, gotRead); diff != "" {
		t.Fatalf("read back (-want +got):\n%s", diff)
	}
	for field, change := range map[string]map[string]any{
		"weeklySchedule.mon[0].start": {"weeklySchedule": map[string]any{"mon": []map[string]string{{"start": "9:00", "end": "12:00"}}}},
		"weeklySchedule.mon[0].end":   {"weeklySchedule": map[string]any{"mon": []map[string]string{{"start": "12:00", "end": "12:00"}}}},
		"weeklySchedule.mon":          {"weeklySchedule": map[string]any{"mon": []map[string]string{{"start": "09:00", "end": "12:00"}, {"start": "11:00", "end": "13:00"}}}},
		"weeklySchedule.funday":       {"weeklySchedule": map[string]any{"funday": []any{}}},
		"blockedDates[0].date":        {"blockedDates": []map[string]any{{"date": "2026-01-01"}}},
		"timezone":                    {"timezone": "Mars/Olympus"},
	} {
		bad := map[string]any{}
		for k, v := range body {
			bad[k] = v
		}
		for k, v := range change {
			bad[k] = v
		}
		if res := b.Do("PUT", "/api/expert/availability", bad, bearer(b.expert.token)...).Expect(400); res.ErrorDetails()[field] == nil {
			t.Errorf("%s: %s", field, res.Body)
		}
	}
	bad := map[string]any{"weeklySchedule": map[string]any{}, "blockedDates": []map[string]any{{"date": "31-12-2026"}}, "timezone": "Asia/Seoul"}
	b.Do("PUT", "/api/expert/availability", bad, bearer(b.expert.token)...).Expect(400)
	b.Do("PUT", "/api/expert/availability", body, bearer(b.tourist.token)...).Expect(404)
	b.Get("/api/expert/availability", bearer(b.expert.token)...).Expect(200).Decode(&read)
	if read.Timezone != "Asia/Seoul" {
		t.Fatal("a refused update changed the availability")
	}
}

// TestPackageSupply: an expert creates a package (a draft, outside the
// catalogue), activates it (in the catalogue at once, past the page
// cache), translates and archives it (out again, is_active following
// status); another user gets 403, an admin may change it.
func TestPackageSupply(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			b := newBookingEnv(t, engine)
			count := func() int {
				var list struct{ Meta struct{ Total int } }
				b.Get("/api/v1/packages?category=ramen_walk").Expect(200).Decode(&list)
				return list.Meta.Total
			}
			if count() != 0 { // and the page is now cached
				t.Fatal("ramen_walk packages already")
			}
			in := map[string]any{
				"title":       map[string]any{"en": "Ramen walk", "ja": "ラーメン散歩"},
				"description": map[string]any{"en": "Four shops in Ebisu.", "ja": "恵比寿の四軒。"},
				"category":    "ramen_walk", "basePrice": 9000, "currency": "JPY", "duration": 3, "maxParticipants": 4,
				"images": []string{publicURL + "/media/sample/packages/a.jpg"},
			}
			var created struct{ Data guide.ExpertPackage }
			b.Do("POST", "/api/v1/packages", in, bearer(b.expert.token)...).Expect(201).Decode(&created)
			p := created.Data
			var firstImage string
			if len(p.Images) > 0 {
				firstImage = p.Images[0]
			}
			gotCreated := map[string]any{"status": p.Status, "title": p.Title, "jaTitle": p.Translations["ja"].Title, "firstImage": firstImage}
			wantCreated := map[string]any{"status": "draft", "title": "Ramen walk", "jaTitle": "ラーメン散歩", "firstImage": publicURL + "/media/sample/packages/a.jpg"}
			if diff := cmp.Diff(wantCreated, gotCreated); diff != "" {
				t.Fatalf("created (-want +got):\n%s", diff)
			}
			b.Get("/api/v1/packages/" + p.ID).Expect(404)
			if count() != 0 {
				t.Fatal("a draft is in the catalogue")
			}
			var changed struct{ Data guide.ExpertPackage }
			b.Do("PATCH", "/api/v1/packages/"+p.ID, map[string]any{"status": "active", "title": map[string]any{"ko": "라멘 산책", "ja": nil},
				"description": map[string]any{"ko": "에비스의 네 가게."}}, bearer(b.expert.token)...).Expect(200).Decode(&changed)
			if changed.Data.Status != "active" || changed.Data.Translations["ko"].Title != "라멘 산책" || changed.Data.Translations["ja"].Title != "" {
				t.Fatalf("changed: %+v", changed.Data)
			}
			if count() != 1 {
				t.Fatal("the active package is not in the catalogue")
			}
			var ko struct{ Data guide.PackageDetail }
			b.Get("/api/v1/packages/" + p.ID + "?locale=ko").Expect(200).Decode(&ko)
			if ko.Data.Title != "라멘 산책" {
				t.Fatalf("ko: %+v", ko.Data)
			}
			b.Do("PATCH", "/api/v1/packages/"+p.ID, map[string]any{"status": "archived"}, bearer(b.stranger.token)...).Expect(403)
			b.Do("PATCH", "/api/v1/packages/"+p.ID, map[string]any{"title": map[string]any{"en": nil}}, bearer(b.expert.token)...).Expect(400)
			b.Do("PATCH", "/api/v1/packages/"+p.ID, map[string]any{"status": "archived"}, bearer(b.admin.token)...).Expect(200)
			if count() != 0 {
				t.Fatal("the archived package is in the catalogue")
			}
			var active bool
			var status string
			if err := b.db.QueryRow(`SELECT is_active, status FROM packages WHERE id = $1`, p.ID).Scan(&active, &status); err != nil {
				t.Fatal(err)
			}
			if active || status != "archived" {
				t.Fatalf("is_active %v, status %s", active, status)
			}
			var events int
			if err := b.db.QueryRow(`SELECT COUNT(*) FROM events WHERE type = 'package.updated'`).Scan(&events); err != nil {
				t.Fatal(err)
			}
			if events != 3 {
				t.Fatalf("%d package.updated events", events)
			}
			res := b.Do("POST", "/api/v1/packages", map[string]any{"title": map[string]any{"ja": "x"}}, bearer(b.expert.token)...).Expect(400)
			for _, f := range []string{"category", "basePrice", "title.en"} {
				if res.ErrorDetails()[f] == nil {
					t.Errorf("missing %s not named: %s", f, res.Body)
				}
			}
			b.Do("POST", "/api/v1/packages", mergeIn(in, "images", []string{"https://elsewhere.example/a.jpg"}), bearer(b.expert.token)...).Expect(400)
			b.Do("POST", "/api/v1/packages", in, bearer(b.tourist.token)...).Expect(404)
			if strings.Contains(string(res.Body), "SQL") {
				t.Fatal(string(res.Body))
			}
		})
	}
}

func mergeIn(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{}
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}
