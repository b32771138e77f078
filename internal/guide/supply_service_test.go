package guide_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// newService returns the guide service on a fresh database with the
// sample data, at a clock of 2026-11-22 12:00 UTC: already the 23rd in
// Pacific/Kiritimati (UTC+14), still the 22nd in Asia/Tokyo.
func newService(t *testing.T, engine store.Engine) *guide.Service {
	t.Helper()
	db := storetest.MustOpenSample(t, engine, guidedb.Schema, func(ctx context.Context, db *store.DB) error {
		return guidedb.LoadSample(ctx, db, sample.Generate())
	})
	clk := clock.NewFake(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	gs := guidedb.New(db, clk)
	return &guide.Service{Accounts: gs, Profiles: gs, Supply: gs, Actions: gs, Closure: gs, Clock: clk,
		ActionTTL: 10 * time.Minute, PublicURL: "https://guide.api.test"}
}

// callerOf returns the caller of the sample account with the e-mail.
func callerOf(t *testing.T, s *guide.Service, email string) *guide.Caller {
	t.Helper()
	u, _, err := s.Accounts.FindUserByEmail(t.Context(), email)
	if err != nil {
		t.Fatal(err)
	}
	return &guide.Caller{User: u}
}

// availability decodes a JSON body as a door does.
func availability(t *testing.T, body string) guide.AvailabilityUpdate {
	t.Helper()
	var in guide.AvailabilityUpdate
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// fieldErrors returns the per-field details of a VALIDATION_ERROR.
func fieldErrors(t *testing.T, err error) map[string]any {
	t.Helper()
	e, ok := err.(*apperr.Error)
	if !ok || e.Code != apperr.Validation {
		t.Fatalf("want a validation error, got %v", err)
	}
	return e.Details
}

func TestUpdateAvailabilityRules(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			s := newService(t, engine)
			expert := callerOf(t, s, sample.DemoExpertEmail)
			ctx := t.Context()

			// Intervals are sorted by start, blocked dates by day.
			a, err := s.UpdateAvailability(ctx, expert, availability(t, `{"timezone":"Asia/Tokyo",
				"weeklySchedule":{"mon":[{"start":"13:00","end":"17:00"},{"start":"09:00","end":"13:00"}],"sun":[]},
				"blockedDates":[{"date":"2026-12-31","reason":" New Year "},{"date":"2026-11-22"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			// As stored: PostgreSQL's jsonb spaces and orders keys its own way.
			var schedule guide.WeeklySchedule
			var blocked []guide.BlockedDate
			if err := json.Unmarshal(a.WeeklySchedule, &schedule); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(a.BlockedDates, &blocked); err != nil {
				t.Fatal(err)
			}
			reason := "New Year"
			if a.Timezone != "Asia/Tokyo" ||
				!reflect.DeepEqual(schedule, guide.WeeklySchedule{"mon": {{Start: "09:00", End: "13:00"}, {Start: "13:00", End: "17:00"}}, "sun": {}}) ||
				!reflect.DeepEqual(blocked, []guide.BlockedDate{{Date: "2026-11-22"}, {Date: "2026-12-31", Reason: &reason}}) {
				t.Errorf("stored %s %s %s", a.Timezone, a.WeeklySchedule, a.BlockedDates)
			}

			thirteen := strings.TrimSuffix(strings.Repeat(`{"start":"09:00","end":"10:00"},`, 13), ",")
			for name, c := range map[string]struct{ body, field, msg string }{
				"no time zone":     {`{"weeklySchedule":{},"blockedDates":[]}`, "timezone", "is required"},
				"zone, no region":  {`{"timezone":"UTC","weeklySchedule":{},"blockedDates":[]}`, "timezone", "must be an IANA time zone such as Asia/Tokyo"},
				"unknown zone":     {`{"timezone":"Mars/Olympus","weeklySchedule":{},"blockedDates":[]}`, "timezone", "must be an IANA time zone such as Asia/Tokyo"},
				"no schedule":      {`{"timezone":"Asia/Tokyo","blockedDates":[]}`, "weeklySchedule", "is required"},
				"unknown weekday":  {`{"timezone":"Asia/Tokyo","weeklySchedule":{"funday":[]},"blockedDates":[]}`, "weeklySchedule.funday", "unknown weekday: use mon, tue, wed, thu, fri, sat or sun"},
				"13 intervals":     {`{"timezone":"Asia/Tokyo","weeklySchedule":{"tue":[` + thirteen + `]},"blockedDates":[]}`, "weeklySchedule.tue", "at most 12 intervals a day"},
				"H:MM":             {`{"timezone":"Asia/Tokyo","weeklySchedule":{"mon":[{"start":"9:00","end":"12:00"}]},"blockedDates":[]}`, "weeklySchedule.mon[0].start", "must be a time HH:MM such as 09:00"},
				"24:00":            {`{"timezone":"Asia/Tokyo","weeklySchedule":{"mon":[{"start":"09:00","end":"24:00"}]},"blockedDates":[]}`, "weeklySchedule.mon[0].end", "must be a time HH:MM such as 17:00"},
				"no start":         {`{"timezone":"Asia/Tokyo","weeklySchedule":{"mon":[{"end":"12:00"}]},"blockedDates":[]}`, "weeklySchedule.mon[0].start", "must be a time HH:MM such as 09:00"},
				"empty interval":   {`{"timezone":"Asia/Tokyo","weeklySchedule":{"mon":[{"start":"12:00","end":"12:00"}]},"blockedDates":[]}`, "weeklySchedule.mon[0].end", "must be after start"},
				"overlap":          {`{"timezone":"Asia/Tokyo","weeklySchedule":{"wed":[{"start":"11:00","end":"13:00"},{"start":"09:00","end":"12:00"}]},"blockedDates":[]}`, "weeklySchedule.wed", "intervals 09:00–12:00 and 11:00–13:00 overlap"},
				"no blocked dates": {`{"timezone":"Asia/Tokyo","weeklySchedule":{}}`, "blockedDates", "is required"},
				"not a date":       {`{"timezone":"Asia/Tokyo","weeklySchedule":{},"blockedDates":[{"date":"31-12-2026"}]}`, "blockedDates[0].date", "must be a date YYYY-MM-DD"},
				"twice":            {`{"timezone":"Asia/Tokyo","weeklySchedule":{},"blockedDates":[{"date":"2026-12-01"},{"date":"2026-12-01"}]}`, "blockedDates[1].date", "is listed twice"},
				// The 22nd is today in Tokyo but yesterday in Kiritimati.
				"past in its zone": {`{"timezone":"Pacific/Kiritimati","weeklySchedule":{},"blockedDates":[{"date":"2026-11-22"}]}`, "blockedDates[0].date", "is in the past in the expert's time zone, where today is 2026-11-23"},
			} {
				_, err := s.UpdateAvailability(ctx, expert, availability(t, c.body))
				if got := fieldErrors(t, err)[c.field]; got != c.msg {
					t.Errorf("%s: %s = %v, want %q (%v)", name, c.field, got, c.msg, err)
				}
			}
			// Touching intervals do not overlap.
			if _, err := s.UpdateAvailability(ctx, expert, availability(t,
				`{"timezone":"Asia/Tokyo","weeklySchedule":{"mon":[{"start":"09:00","end":"12:00"},{"start":"12:00","end":"13:00"}]},"blockedDates":[]}`)); err != nil {
				t.Errorf("touching intervals: %v", err)
			}

			// Who may: the expert in person; a key is refused, a traveller
			// has no availability, nobody is unauthorised.
			body := availability(t, `{"timezone":"Asia/Tokyo","weeklySchedule":{},"blockedDates":[]}`)
			withKey := &guide.Caller{User: expert.User, APIKey: &guide.APIKey{ID: "k"}}
			for name, c := range map[string]struct {
				caller *guide.Caller
				code   string
			}{
				"key":       {withKey, apperr.Forbidden},
				"traveller": {callerOf(t, s, sample.DemoTravellerEmail), apperr.NotFound},
				"nobody":    {nil, apperr.Unauthorized},
			} {
				if _, err := s.UpdateAvailability(ctx, c.caller, body); apperr.Code(err) != c.code {
					t.Errorf("%s: %v, want %s", name, err, c.code)
				}
			}
		})
	}
}

func TestPackageFieldRules(t *testing.T) {
	t.Parallel()
	s := newService(t, store.SQLite)
	expert := callerOf(t, s, sample.DemoExpertEmail)
	ctx := t.Context()
	fields := func(body string) guide.PackageFields {
		var in guide.PackageFields
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		return in
	}
	const valid = `"title":{"en":"Night market walk"},"description":{"en":"Three hours of street food."},` +
		`"category":"food_tour","basePrice":8000,"currency":"JPY","duration":3,"maxParticipants":6`

	p, err := s.CreatePackage(ctx, expert, fields(`{`+valid+`,"countryCode":"JP"}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != guide.PackageDraft || p.Translations["en"].Title != "Night market walk" {
		t.Errorf("created %+v", p)
	}

	for name, c := range map[string]struct{ body, field, msg string }{
		"nothing":          {`{}`, "category", "is required"},
		"no English":       {`{` + valid + `,"title":{"ja":"夜市"}}`, "title.en", "the English title and description are required"},
		"half translation": {`{` + valid + `,"title":{"en":"Walk","ja":"夜市"}}`, "title.ja", "a translation needs both title and description"},
		"unknown locale":   {`{` + valid + `,"title":{"en":"Walk","xx":"?"}}`, "title.xx", "unknown locale: use en, zh, zh-TW, ja, ko"},
		"category":         {`{` + valid + `,"category":"Food Tour"}`, "category", "must be a lower-case tag such as city_tour, food_tour or shopping"},
		"price":            {`{` + valid + `,"basePrice":-1}`, "basePrice", "must be from 0 to 10000000"},
		"currency":         {`{` + valid + `,"currency":"yen"}`, "currency", "must be an ISO 4217 code such as JPY"},
		"duration":         {`{` + valid + `,"duration":241}`, "duration", "must be from 1 to 240 hours"},
		"participants":     {`{` + valid + `,"maxParticipants":0}`, "maxParticipants", "must be from 1 to 50"},
		"status":           {`{` + valid + `,"status":"live"}`, "status", "must be one of draft, active, archived"},
		"foreign image":    {`{` + valid + `,"images":["https://elsewhere.test/a.jpg"]}`, "images[0]", "must be an image URL on this API (https://guide.api.test/media/…)"},
		"another's upload": {`{` + valid + `,"images":["/media/packages/0190f1a8-0000-7000-8000-000000000000/a.jpg"]}`, "images", guide.ForeignPackageImage},
		"for another":      {`{` + valid + `,"expertId":"0190f1a8-0000-7000-8000-000000000000"}`, "expertId", "only an admin creates packages for another expert"},
	} {
		_, err := s.CreatePackage(ctx, expert, fields(c.body))
		if got := fieldErrors(t, err)[c.field]; got != c.msg {
			t.Errorf("%s: %s = %v, want %q (%v)", name, c.field, got, c.msg, err)
		}
	}

	// An update changes only what it sends; English stays, the expert too.
	up, err := s.UpdatePackage(ctx, expert, strings.ToUpper(p.ID), fields(`{"title":{"ja":"夜市さんぽ"},"description":{"ja":"屋台を三時間。"},"status":"active"}`))
	if err != nil {
		t.Fatal(err)
	}
	if up.Status != guide.PackageActive || up.Translations["ja"].Title != "夜市さんぽ" || up.Translations["en"].Title != "Night market walk" {
		t.Errorf("updated %+v", up)
	}
	if _, err := s.UpdatePackage(ctx, expert, p.ID, fields(`{"title":{"en":null}}`)); fieldErrors(t, err)["title.en"] != "English is required" {
		t.Errorf("English removed: %v", err)
	}
	if _, err := s.UpdatePackage(ctx, expert, p.ID, fields(`{"expertId":"x"}`)); fieldErrors(t, err)["expertId"] != "a package's expert does not change" {
		t.Errorf("expert moved: %v", err)
	}
	if _, err := s.UpdatePackage(ctx, expert, "not-an-id", fields(`{}`)); apperr.Code(err) != apperr.NotFound {
		t.Errorf("bad id: %v", err)
	}
	if _, err := s.UpdatePackage(ctx, callerOf(t, s, sample.DemoTravellerEmail), p.ID, fields(`{}`)); apperr.Code(err) != apperr.Forbidden {
		t.Errorf("another's package: %v", err)
	}
	if _, err := s.CreatePackage(ctx, &guide.Caller{User: expert.User, APIKey: &guide.APIKey{ID: "k"}}, fields(`{`+valid+`}`)); apperr.Code(err) != apperr.Forbidden {
		t.Errorf("with a key: %v", err)
	}
}
