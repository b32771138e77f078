package guidehttp_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// application is a valid application body for handle, guiding in city.
func application(handle, city string) map[string]any {
	return map[string]any{
		"handle": handle, "name": "Kaito Mori",
		"bio":       map[string]any{"en": "Born in " + city + ", I guide food lovers.", "ja": city + "生まれのガイドです。"},
		"languages": []string{"ja", "en"}, "specialties": []string{"food", "tea"},
		"location": map[string]any{"city": city, "countryCode": "JP"},
		"currency": "JPY", "hourlyRate": 4500, "timezone": "Asia/Tokyo",
		"weeklySchedule": map[string]any{"mon": []map[string]string{{"start": "09:00", "end": "17:00"}}},
		"socialLinks":    map[string]string{"instagram": "https://instagram.com/" + handle},
		"statement":      "Licensed guide since 2019; my licence is attached.",
	}
}

type appView struct {
	ID              string
	Status          string
	ReviewerMessage *string
	Documents       []struct {
		ID, ContentType string
		Size            int
	}
	DocumentsRemoveAt *time.Time
	Applicant         *struct{ Email string }
	Profile           struct{ Handle string }
}

// pdfBytes is a minimal PDF.
var pdfBytes = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

func (e *env) apply(t *testing.T, u user, body map[string]any) appView {
	t.Helper()
	var res struct{ Data appView }
	e.Do("POST", "/api/v1/expert-applications", body, bearer(u.token)...).Expect(201).Decode(&res)
	return res.Data
}

func (e *env) decide(t *testing.T, admin user, id, decision string, body any, want int) appView {
	t.Helper()
	var res struct{ Data appView }
	r := e.Do("POST", "/api/v1/admin/expert-applications/"+id+"/"+decision, body, bearer(admin.token)...).Expect(want)
	if want == 200 {
		r.Decode(&res)
	}
	return res.Data
}

func (e *env) postDocument(t *testing.T, u user, id string, data []byte) *apitest.Response {
	t.Helper()
	ct, body := upload(t, "file", "licence", data)
	return e.Do("POST", "/api/v1/expert-applications/"+id+"/documents", body, append(bearer(u.token), "Content-Type", ct)...)
}

// TestExpertApplication: a user applies, uploads documents, is asked for
// changes, edits and is approved; the expert then shows in every
// catalogue list like a sample one, the decisions are audited and pushed
// in the applicant's language, the documents are readable by admins only
// and queued for removal 30 days after the decision, and the verified
// expert edits the profile and its images.
func TestExpertApplication(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			admin := e.register(t, testAdminEmail, "TOURIST")
			other := e.register(t, "other@example.com", "TOURIST")
			// An EXPERT-role account without a verified profile applies too.
			guide1 := e.register(t, "kaito@example.com", "EXPERT")
			e.device(t, guide1, "kaito-phone", "ja-JP")
			sink := newPushSink(t)
			runner := e.pushRunner(sink)

			// Refused callers and fields.
			body := application("kaito-kanazawa", "Kanazawa")
			e.Do("POST", "/api/v1/expert-applications", body).Expect(401)
			key := e.apiKey(t, guide1, "profile:read", "profile:write")
			e.Do("POST", "/api/v1/expert-applications", body, bearer(key)...).Expect(403)
			bad := application("Kaito!", "Kanazawa")
			bad["bio"] = map[string]any{"ja": "日本語だけ", "fr": "non"}
			bad["languages"] = []string{"ja", "JA"}
			bad["specialties"] = []string{"skydiving"}
			bad["location"] = map[string]any{"city": "Kanazawa", "countryCode": "US"}
			bad["timezone"] = "Tokyo"
			bad["socialLinks"] = map[string]string{"site": "http://x.example"}
			bad["statement"] = "short"
			details := e.Do("POST", "/api/v1/expert-applications", bad, bearer(guide1.token)...).Expect(400).ErrorDetails()
			for _, f := range []string{"handle", "bio.en", "bio.fr", "languages[1]", "specialties[0]", "location.countryCode", "timezone", "socialLinks.site", "statement"} {
				if details[f] == nil {
					t.Errorf("no error for %s: %v", f, details)
				}
			}
			// A handle an account has is a 409 naming the field.
			taken := application(sample.DemoExpertHandle, "Kanazawa")
			if d := e.Do("POST", "/api/v1/expert-applications", taken, bearer(guide1.token)...).Expect(409).ErrorDetails(); d["handle"] == nil {
				t.Errorf("taken handle: %v", d)
			}

			app := e.apply(t, guide1, body)
			if app.Status != guide.ApplicationPending || app.Applicant != nil || app.Profile.Handle != "kaito-kanazawa" {
				t.Fatalf("applied: %+v", app)
			}
			// One open application per user; an open application holds its handle.
			e.Do("POST", "/api/v1/expert-applications", application("kaito-2", "Kanazawa"), bearer(guide1.token)...).Expect(409)
			if d := e.Do("POST", "/api/v1/expert-applications", body, bearer(other.token)...).Expect(409).ErrorDetails(); d["handle"] == nil {
				t.Errorf("handle of an open application: %v", d)
			}

			// Documents: a PDF and an image; anything else, or others, refused.
			e.postDocument(t, guide1, app.ID, pdfBytes).Expect(201)
			e.postDocument(t, guide1, app.ID, pngBytes(t, 40, 30)).Expect(201)
			e.postDocument(t, guide1, app.ID, []byte("#!/bin/sh\necho hi\n")).Expect(415)
			e.postDocument(t, guide1, app.ID, []byte("%PDF-1.4\n/JavaScript (app.alert(1))\n%%EOF")).Expect(400)
			e.postDocument(t, other, app.ID, pdfBytes).Expect(404)
			var mine struct{ Data appView }
			e.Get("/api/v1/expert-applications/mine", bearer(guide1.token)...).Expect(200).Decode(&mine)
			if len(mine.Data.Documents) != 2 || mine.Data.Documents[0].ContentType != "application/pdf" || mine.Data.Documents[1].ContentType != "image/jpeg" {
				t.Fatalf("documents: %+v", mine.Data.Documents)
			}
			e.Get("/api/v1/expert-applications/mine", bearer(other.token)...).Expect(404)

			// The admins' queue and the documents: admins only.
			queue := "/api/v1/admin/expert-applications?status=pending"
			e.Get(queue).Expect(401)
			e.Get(queue, bearer(guide1.token)...).Expect(403)
			e.Get(queue, bearer(e.apiKey(t, admin, "profile:read"))...).Expect(403)
			var q struct {
				Data []appView
				Meta struct{ Total int }
			}
			e.Get(queue, bearer(admin.token)...).Expect(200).Decode(&q)
			gotQueue := map[string]any{"total": q.Meta.Total}
			if len(q.Data) > 0 {
				gotQueue["id"], gotQueue["applicant"] = q.Data[0].ID, q.Data[0].Applicant
			}
			wantQueue := map[string]any{"total": 1, "id": app.ID, "applicant": &struct{ Email string }{"kaito@example.com"}}
			if diff := cmp.Diff(wantQueue, gotQueue); diff != "" {
				t.Fatalf("queue (-want +got):\n%s", diff)
			}
			doc := "/api/v1/admin/expert-applications/" + app.ID + "/documents/" + mine.Data.Documents[0].ID
			r := e.Get(doc, bearer(admin.token)...).Expect(200)
			gotDoc := map[string]any{"body": string(r.Body), "contentType": r.Header.Get("Content-Type"),
				"nosniff": r.Header.Get("X-Content-Type-Options"), "cacheControl": r.Header.Get("Cache-Control"),
				"attachment": strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment")}
			wantDoc := map[string]any{"body": string(pdfBytes), "contentType": "application/pdf", "attachment": true,
				"nosniff": "nosniff", "cacheControl": "no-store"}
			if diff := cmp.Diff(wantDoc, gotDoc); diff != "" {
				t.Errorf("document (-want +got):\n%s", diff)
			}
			e.Get(doc, bearer(guide1.token)...).Expect(403)
			e.Get(doc, bearer(other.token)...).Expect(403)
			var blobKey string
			if err := e.db.QueryRow(`SELECT blob_key FROM expert_application_documents WHERE id = $1`, mine.Data.Documents[0].ID).Scan(&blobKey); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"/media/" + blobKey, "/media/avatars/../" + blobKey, "/media/experts/../" + blobKey} {
				// 404, or a redirect to the cleaned path, /media/applications/…, a 404.
				if s := e.Get(p).Status; s != 404 && s != 307 {
					t.Errorf("GET %s: %d", p, s)
				}
			}

			// Decisions need their text; a request for changes, then an edit.
			e.decide(t, admin, app.ID, "reject", map[string]any{}, 400)
			e.decide(t, admin, app.ID, "request-changes", map[string]any{}, 400)
			e.decide(t, admin, app.ID, "promote", map[string]any{}, 404)
			e.decide(t, guide1, app.ID, "approve", map[string]any{}, 403)
			got := e.decide(t, admin, app.ID, "request-changes", map[string]any{"message": "Add your licence number."}, 200)
			if got.Status != guide.ApplicationChangesRequested {
				t.Fatalf("request-changes: %+v", got)
			}
			e.decide(t, admin, app.ID, "approve", map[string]any{}, 409) // not pending
			e.Get("/api/v1/expert-applications/mine", bearer(guide1.token)...).Expect(200).Decode(&mine)
			if mine.Data.Status != guide.ApplicationChangesRequested || mine.Data.ReviewerMessage == nil || *mine.Data.ReviewerMessage != "Add your licence number." {
				t.Fatalf("mine after request: %+v", mine.Data)
			}
			var edited struct{ Data appView }
			e.Do("PATCH", "/api/v1/expert-applications/"+app.ID, map[string]any{"statement": "Licence number 12-345, issued in 2019."},
				bearer(guide1.token)...).Expect(200).Decode(&edited)
			if edited.Data.Status != guide.ApplicationPending {
				t.Fatalf("edited: %+v", edited.Data)
			}

			// Approval publishes the expert in every list, at once (cached
			// pages are dropped).
			var before struct {
				Data []map[string]any
				Meta struct{ Total int }
			}
			e.Get("/api/v1/experts?pageSize=1").Expect(200).Decode(&before)
			var cities struct{ Data []guide.City }
			e.Get("/api/v1/cities").Expect(200).Decode(&cities)
			e.Get("/api/v1/experts/kaito-kanazawa").Expect(404)
			got = e.decide(t, admin, app.ID, "approve", map[string]any{}, 200)
			if got.Status != guide.ApplicationApproved || got.DocumentsRemoveAt == nil ||
				!got.DocumentsRemoveAt.Equal(e.clock.Now().Add(guide.DocumentRetention)) {
				t.Fatalf("approved: %+v", got)
			}
			e.decide(t, admin, app.ID, "reject", map[string]any{"reason": "late"}, 409)
			var detail struct{ Data guide.ExpertDetail }
			e.Get("/api/v1/experts/kaito-kanazawa?locale=ja").Expect(200).Decode(&detail)
			x := detail.Data
			gotExpert := map[string]any{"name": x.Name, "bio": x.Bio, "location": x.Location, "countryCode": x.CountryCode,
				"languages": x.Languages, "specialties": x.Specialties, "hourlyRate": x.HourlyRate, "verified": x.VerifiedAt != nil, "timezone": x.Timezone}
			wantExpert := map[string]any{"name": new("Kaito Mori"), "bio": new("Kanazawa生まれのガイドです。"), "location": new("Kanazawa"), "countryCode": "JP",
				"languages": []string{"ja", "en"}, "specialties": []string{"food", "tea"}, "hourlyRate": new(4500.0), "verified": true, "timezone": "Asia/Tokyo"}
			if diff := cmp.Diff(wantExpert, gotExpert); diff != "" {
				t.Fatalf("expert (-want +got):\n%s", diff)
			}
			var after struct {
				Data []map[string]any
				Meta struct{ Total int }
			}
			e.Get("/api/v1/experts?pageSize=1").Expect(200).Decode(&after)
			if after.Meta.Total != before.Meta.Total+1 {
				t.Errorf("experts total %d, then %d", before.Meta.Total, after.Meta.Total)
			}
			var inCity struct {
				Data []guide.ExpertSummary
				Meta struct{ Total int }
			}
			e.Get("/api/v1/experts?city=kanazawa&specialty=tea").Expect(200).Decode(&inCity)
			if inCity.Meta.Total != 1 || inCity.Data[0].Handle != "kaito-kanazawa" {
				t.Errorf("experts in Kanazawa: %+v", inCity)
			}
			e.Get("/api/v1/experts?city=kanazawa").Expect(200).Decode(&inCity)
			if inCity.Meta.Total != 1 {
				t.Errorf("experts in Kanazawa (counted): %+v", inCity.Meta)
			}
			e.Get("/api/v1/cities").Expect(200).Decode(&cities)
			if !slices.Contains(cities.Data, guide.City{Name: "Kanazawa", CountryCode: "JP"}) {
				t.Errorf("cities: %+v", cities.Data)
			}
			var specs struct{ Data []string }
			e.Get("/api/v1/specialties").Expect(200).Decode(&specs)
			if !slices.Contains(specs.Data, "tea") {
				t.Errorf("specialties: %v", specs.Data)
			}

			// Stored: the role, the audit, the event, the removal of the
			// documents in 30 days, and the pushes.
			if n := e.count(t, `SELECT COUNT(*) FROM users WHERE id = $1 AND role = 'EXPERT' AND handle = 'kaito-kanazawa'`, guide1.id); n != 1 {
				t.Error("user not made the expert")
			}
			if n := e.count(t, `SELECT COUNT(*) FROM audit_log WHERE target_type = 'expert_application' AND target_id = $1 AND actor_id = $2`, app.ID, admin.id); n != 2 {
				t.Errorf("%d audit entries", n)
			}
			var audit struct{ Data []guide.AuditEntry }
			e.Get("/api/v1/admin/audit?targetType=expert_application&targetId="+app.ID, bearer(admin.token)...).Expect(200).Decode(&audit)
			gotAudit := map[string]any{"entries": len(audit.Data)}
			if len(audit.Data) == 2 {
				gotAudit["first"], gotAudit["second"], gotAudit["reason"] = audit.Data[0].Action, audit.Data[1].Action, audit.Data[1].Reason
			}
			wantAudit := map[string]any{"entries": 2, "first": guide.AuditApplicationApprove, "second": guide.AuditApplicationRequestChanges,
				"reason": new("Add your licence number.")}
			if diff := cmp.Diff(wantAudit, gotAudit); diff != "" {
				t.Errorf("audit (-want +got):\n%s", diff)
			}
			if n := e.count(t, `SELECT COUNT(*) FROM events WHERE type = 'expert.verified' AND data LIKE '%kaito-kanazawa%'`); n != 1 {
				t.Errorf("%d expert.verified events", n)
			}
			var removals int
			rows, err := e.db.Query(`SELECT run_at FROM jobs WHERE kind = 'blob.delete' AND CAST(payload AS TEXT) LIKE $1`, "%applications/"+app.ID+"/%")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var at time.Time
				if err := rows.Scan(&at); err != nil {
					t.Fatal(err)
				}
				if !at.Equal(e.clock.Now().Add(guide.DocumentRetention)) {
					t.Errorf("document removed at %v", at)
				}
				removals++
			}
			rows.Close()
			if removals != 2 {
				t.Errorf("%d document removals queued", removals)
			}
			drain(t, runner)
			pushes := sink.all()
			gotPushes := map[string]any{"pushes": len(pushes)}
			if len(pushes) > 0 {
				gotPushes["title"], gotPushes["namesHandle"], gotPushes["status"] =
					pushes[0].Title, strings.Contains(pushes[0].Body, "@kaito-kanazawa"), pushes[0].Data["status"]
			}
			// The request for changes was answered: not sent.
			wantPushes := map[string]any{"pushes": 1, "title": "認定ガイドになりました", "namesHandle": true, "status": "approved"}
			if diff := cmp.Diff(wantPushes, gotPushes); diff != "" {
				t.Errorf("pushes (-want +got):\n%s", diff)
			}
			// A verified expert does not apply again.
			e.Do("POST", "/api/v1/expert-applications", application("kaito-3", "Kanazawa"), bearer(guide1.token)...).Expect(409)

			// The verified expert's profile.
			e.Get("/api/v1/expert/profile", bearer(other.token)...).Expect(404)
			var own struct{ Data guide.OwnExpertProfile }
			e.Get("/api/v1/expert/profile", bearer(guide1.token)...).Expect(200).Decode(&own)
			if own.Data.Handle != "kaito-kanazawa" || own.Data.Bio["ja"] == "" || own.Data.Location.City != "Kanazawa" {
				t.Fatalf("own profile: %+v", own.Data)
			}
			e.Do("PATCH", "/api/v1/expert/profile", map[string]any{"handle": "kaito-new"}, bearer(guide1.token)...).Expect(400)
			if d := e.Do("PATCH", "/api/v1/expert/profile", map[string]any{"bio": map[string]any{"en": nil}}, bearer(guide1.token)...).Expect(400).ErrorDetails(); d["bio.en"] == nil {
				t.Errorf("English bio removed: %v", d)
			}
			own.Data = guide.OwnExpertProfile{}
			e.Do("PATCH", "/api/v1/expert/profile", map[string]any{"handle": "kaito-kanazawa", "bio": map[string]any{"en": "Now in Toyama.", "ja": nil},
				"location": map[string]any{"city": "Toyama", "countryCode": "JP"}, "specialties": []string{"hiking"}, "messagingEnabled": false},
				bearer(guide1.token)...).Expect(200).Decode(&own)
			if own.Data.Bio["ja"] != "" || own.Data.Bio["en"] != "Now in Toyama." || own.Data.MessagingEnabled {
				t.Fatalf("patched: %+v", own.Data)
			}
			e.Get("/api/v1/experts/kaito-kanazawa?locale=ja").Expect(200).Decode(&detail)
			gotPatched := map[string]any{"bio": detail.Data.Bio, "location": detail.Data.Location, "specialties": detail.Data.Specialties,
				"messaging": detail.Data.MessagingEnabled}
			wantPatched := map[string]any{"bio": new("Now in Toyama."), "location": new("Toyama"), "specialties": []string{"hiking"}, "messaging": false}
			if diff := cmp.Diff(wantPatched, gotPatched); diff != "" {
				t.Errorf("catalogue after PATCH (-want +got):\n%s", diff)
			}
			e.Get("/api/v1/experts?city=kanazawa").Expect(200).Decode(&inCity)
			if inCity.Meta.Total != 0 {
				t.Errorf("still in Kanazawa: %+v", inCity.Meta)
			}
			ct, img := upload(t, "file", "cover.png", pngBytes(t, 64, 48))
			e.Do("POST", "/api/v1/expert/profile/images?kind=poster", img, append(bearer(guide1.token), "Content-Type", ct)...).Expect(400)
			e.Do("POST", "/api/v1/expert/profile/images?kind=cover", img, append(bearer(other.token), "Content-Type", ct)...).Expect(404)
			up := e.Do("POST", "/api/v1/expert/profile/images?kind=cover", img, append(bearer(guide1.token), "Content-Type", ct)...).Expect(201)
			loc := up.Header.Get("Location")
			if !strings.HasPrefix(loc, publicURL+"/media/experts/") {
				t.Fatalf("Location %q", loc)
			}
			e.Get("/api/v1/experts/kaito-kanazawa").Expect(200).Decode(&detail)
			if detail.Data.CoverImage == nil || *detail.Data.CoverImage != loc {
				t.Errorf("cover %v, want %s", detail.Data.CoverImage, loc)
			}
			u, _ := url.Parse(loc)
			if r := e.Get(u.Path); r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/jpeg" {
				t.Errorf("GET %s: %d %s", u.Path, r.Status, r.Header.Get("Content-Type"))
			}
			// A second cover replaces the first, whose file goes.
			e.Do("POST", "/api/v1/expert/profile/images?kind=cover", img, append(bearer(guide1.token), "Content-Type", ct)...).Expect(201)
			if n := e.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'blob.delete' AND CAST(payload AS TEXT) LIKE $1`, "%"+strings.TrimPrefix(u.Path, "/media/")+"%"); n != 1 {
				t.Errorf("replaced cover: %d removals", n)
			}
			if n := e.count(t, `SELECT COUNT(*) FROM events WHERE type = 'expert.updated' AND data LIKE '%kaito-kanazawa%'`); n != 3 {
				t.Errorf("%d expert.updated events", n)
			}
		})
	}
}

// TestApplicationRejectAndRace: of two admins deciding at once one
// decision stands and the other is a 409; a rejection needs a reason and
// lets the user apply again.
func TestApplicationRejectAndRace(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			admin := e.register(t, testAdminEmail, "TOURIST")
			demo := e.tokenFor(t, sample.DemoAdminEmail)
			for round, decisions := range [][2]string{{"approve", "reject"}, {"reject", "request-changes"}, {"approve", "approve"}} {
				u := e.register(t, "race"+string(rune('a'+round))+"@example.com", "TOURIST")
				app := e.apply(t, u, application("race-"+string(rune('a'+round)), "Nagoya"))
				codes := make([]int, 2)
				var wg sync.WaitGroup
				for i, who := range []user{admin, demo} {
					wg.Go(func() {
						body := map[string]any{"reason": "Not enough detail.", "message": "Fill in the statement."}
						switch decisions[i] {
						case "approve":
							body = map[string]any{}
						case "reject":
							delete(body, "message")
						default:
							delete(body, "reason")
						}
						codes[i] = e.Do("POST", "/api/v1/admin/expert-applications/"+app.ID+"/"+decisions[i], body, bearer(who.token)...).Status
					})
				}
				wg.Wait()
				slices.Sort(codes)
				if codes[0] != 200 || codes[1] != 409 {
					t.Fatalf("round %d %v: %v", round, decisions, codes)
				}
				if n := e.count(t, `SELECT COUNT(*) FROM audit_log WHERE target_id = $1`, app.ID); n != 1 {
					t.Errorf("round %d: %d audit entries", round, n)
				}
			}
			// A rejected user applies again, with the reason shown.
			u := e.register(t, "again@example.com", "TOURIST")
			app := e.apply(t, u, application("again-1", "Nagoya"))
			e.decide(t, admin, app.ID, "reject", map[string]any{"reason": "Blurry licence."}, 200)
			var mine struct{ Data appView }
			e.Get("/api/v1/expert-applications/mine", bearer(u.token)...).Expect(200).Decode(&mine)
			if mine.Data.Status != guide.ApplicationRejected || *mine.Data.ReviewerMessage != "Blurry licence." {
				t.Fatalf("rejected: %+v", mine.Data)
			}
			e.Do("PATCH", "/api/v1/expert-applications/"+app.ID, map[string]any{"name": "X"}, bearer(u.token)...).Expect(409)
			e.apply(t, u, application("again-1", "Nagoya"))
		})
	}
}

// TestApplicationApprovalAtomic: approval is one transaction. The handle
// goes to another account after the application was made (as a
// generated one could); approving then fails on the users row, after the
// application's status moved in the same transaction, and nothing of the
// approval stays: the application pending, no expert, no audit entry,
// event or job.
func TestApplicationApprovalAtomic(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			admin := e.register(t, testAdminEmail, "TOURIST")
			u := e.register(t, "atomic@example.com", "TOURIST")
			other := e.register(t, "squatter@example.com", "TOURIST")
			app := e.apply(t, u, application("atomic-guide", "Nagoya"))
			if _, err := e.db.Exec(`UPDATE users SET handle = 'atomic-guide' WHERE id = $1`, other.id); err != nil {
				t.Fatal(err)
			}
			events := e.count(t, `SELECT COUNT(*) FROM events`)
			jobs := e.count(t, `SELECT COUNT(*) FROM jobs`)
			r := e.Do("POST", "/api/v1/admin/expert-applications/"+app.ID+"/approve", map[string]any{}, bearer(admin.token)...).Expect(409)
			if r.ErrorDetails()["handle"] == nil {
				t.Errorf("details: %v", r.ErrorDetails())
			}
			var status string
			if err := e.db.QueryRow(`SELECT status FROM expert_applications WHERE id = $1`, app.ID).Scan(&status); err != nil || status != "pending" {
				t.Errorf("status %q, %v", status, err)
			}
			for q, want := range map[string]int{
				`SELECT COUNT(*) FROM experts WHERE user_id = '` + u.id + `'`:                                     0,
				`SELECT COUNT(*) FROM users WHERE id = '` + u.id + `' AND role = 'TOURIST'`:                       1,
				`SELECT COUNT(*) FROM audit_log`:                                                                  0,
				`SELECT COUNT(*) FROM events`:                                                                     events,
				`SELECT COUNT(*) FROM jobs`:                                                                       jobs,
				`SELECT COUNT(*) FROM expert_applications WHERE decided_at IS NOT NULL`:                           0,
				`SELECT COUNT(*) FROM experts e JOIN users x ON x.id = e.user_id WHERE x.id = '` + other.id + `'`: 0,
			} {
				if n := e.count(t, q); n != want {
					t.Errorf("%s: %d, want %d", q, n, want)
				}
			}
			// Asked for changes, the applicant picks another handle and is approved.
			e.decide(t, admin, app.ID, "request-changes", map[string]any{"message": "Your handle is taken."}, 200)
			e.Do("PATCH", "/api/v1/expert-applications/"+app.ID, map[string]any{"handle": sample.DemoExpertHandle}, bearer(u.token)...).Expect(409)
			e.Do("PATCH", "/api/v1/expert-applications/"+app.ID, map[string]any{"handle": "atomic-guide-2"}, bearer(u.token)...).Expect(200)
			e.decide(t, admin, app.ID, "approve", map[string]any{"message": "Welcome!"}, 200)
			e.Get("/api/v1/experts/atomic-guide-2").Expect(200)
		})
	}
}

// TestApplicationRateLimit: application writes spend a per-user budget.
func TestApplicationRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{applicationLimit: 2})
	u := e.register(t, "busy@example.com", "TOURIST")
	app := e.apply(t, u, application("busy-guide", "Nagoya"))
	e.Do("PATCH", "/api/v1/expert-applications/"+app.ID, map[string]any{"name": "Busy"}, bearer(u.token)...).Expect(200)
	r := e.postDocument(t, u, app.ID, pdfBytes).Expect(429)
	if r.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}

// TestClosingAccountWithdrawsApplication: closing the account of an
// applicant takes the open application out of the admins' queue, deletes
// it and its documents, and removes the documents' files at once.
func TestClosingAccountWithdrawsApplication(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			admin := e.register(t, testAdminEmail, "TOURIST")
			u := e.register(t, "leaving@example.com", "TOURIST")
			app := e.apply(t, u, application("leaving-guide", "Sendai"))
			e.postDocument(t, u, app.ID, pdfBytes).Expect(201)
			var key string
			if err := e.db.QueryRow(`SELECT blob_key FROM expert_application_documents WHERE application_id = $1`, app.ID).Scan(&key); err != nil {
				t.Fatal(err)
			}

			e.Do("POST", "/api/v1/profile/delete", map[string]any{"confirmation": "DELETE"}, bearer(u.token)...).Expect(200)
			var q struct{ Meta struct{ Total int } }
			e.Get("/api/v1/admin/expert-applications?status=pending", bearer(admin.token)...).Expect(200).Decode(&q)
			if q.Meta.Total != 0 {
				t.Errorf("a closed account's application is still queued: %d", q.Meta.Total)
			}
			e.Get("/api/v1/admin/expert-applications/"+app.ID, bearer(admin.token)...).Expect(404)
			if n := e.count(t, `SELECT COUNT(*) FROM expert_applications WHERE id = $1`, app.ID) +
				e.count(t, `SELECT COUNT(*) FROM expert_application_documents WHERE application_id = $1`, app.ID); n != 0 {
				t.Errorf("%d application rows left", n)
			}
			if n := e.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'blob.delete' AND run_at <= $1 AND CAST(payload AS TEXT) LIKE $2`,
				e.clock.Now(), "%"+key+"%"); n != 1 {
				t.Errorf("%d immediate removals of the document's file", n)
			}
		})
	}
}
