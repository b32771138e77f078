package guidehttp_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// modEnv is a booking environment with the moderation calls.
type modEnv struct {
	*bookingEnv
	root user // an ADMIN_EMAILS admin
}

// total returns meta.total of a public list.
func (m *modEnv) total(t *testing.T, path string) int {
	t.Helper()
	var res struct{ Meta paging.Meta }
	m.Get(path).Expect(200).Decode(&res)
	return res.Meta.Total
}

// moderate runs an action as the demo admin and returns its result.
func (m *modEnv) moderate(t *testing.T, action, typ, id string) guide.ModerationResult {
	t.Helper()
	var res struct{ Data guide.ModerationResult }
	m.Do("POST", "/api/v1/admin/moderation", map[string]any{"action": action, "targetType": typ, "targetId": id,
		"reason": "Moderation test: " + action}, bearer(m.admin.token)...).Expect(200).Decode(&res)
	if res.Data.Action != action || res.Data.TargetType != typ {
		t.Fatalf("%s %s %s: %+v", action, typ, id, res.Data)
	}
	return res.Data
}

func (m *modEnv) report(t *testing.T, who user, body map[string]any, want int) guide.Report {
	t.Helper()
	var res struct{ Data guide.Report }
	r := m.Do("POST", "/api/v1/reports", body, bearer(who.token)...).Expect(want)
	if want == 201 {
		r.Decode(&res)
	}
	return res.Data
}

// expertRating is the demo expert's rating and review count as the
// public sees them.
func (m *modEnv) expertRating(t *testing.T) (float64, int) {
	t.Helper()
	var res struct{ Data guide.ExpertDetail }
	m.Get("/api/v1/experts/demo-expert").Expect(200).Decode(&res)
	return res.Data.Rating, res.Data.ReviewCount
}

// TestReports: signed-in people report what the public sees, once while
// open; targets are named by id, slug or handle; the admins list them
// with their targets and dismiss them, audited; no one else, and no API
// key, reaches the admin routes.
func TestReports(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			m := &modEnv{bookingEnv: newBookingEnv(t, engine)}
			m.root = m.register(t, testAdminEmail, "TOURIST")
			var reviews struct{ Data []guide.Review }
			m.Get("/api/v1/experts/demo-expert/reviews?pageSize=1").Expect(200).Decode(&reviews)
			var travelogues struct{ Data []guide.TravelogueSummary }
			m.Get("/api/v1/travelogues?pageSize=2").Expect(200).Decode(&travelogues)
			reviewID, slug := reviews.Data[0].ID, travelogues.Data[0].Slug
			review := map[string]any{"targetType": "review", "targetId": reviewID, "reason": "spam", "text": "Copied from elsewhere."}

			m.Do("POST", "/api/v1/reports", review).Expect(401)
			key := m.apiKey(t, m.tourist, "bookings:read")
			m.Do("POST", "/api/v1/reports", review, bearer(key)...).Expect(403)
			for field, body := range map[string]map[string]any{
				"reason":     {"targetType": "review", "targetId": reviewID, "reason": "boring"},
				"text":       {"targetType": "review", "targetId": reviewID, "reason": "other"},
				"targetType": {"targetType": "booking", "targetId": reviewID, "reason": "spam"},
				"targetId":   {"targetType": "review", "reason": "spam"},
			} {
				r := m.Do("POST", "/api/v1/reports", body, bearer(m.tourist.token)...).Expect(400)
				if _, ok := r.ErrorDetails()[field]; !ok {
					t.Errorf("%v: details %v do not name %s", body, r.ErrorDetails(), field)
				}
			}
			m.report(t, m.tourist, map[string]any{"targetType": "review", "targetId": "0193a4f5-3c4d-7e5f-8a6b-7c8d9e0f1a2b", "reason": "spam"}, 404)
			m.report(t, m.tourist, map[string]any{"targetType": "expert", "targetId": "no-such-expert", "reason": "fraud"}, 404)
			m.report(t, m.tourist, map[string]any{"targetType": "package", "targetId": reviewID, "reason": "fraud"}, 404)

			first := m.report(t, m.tourist, review, 201)
			gotFirst := map[string]any{"status": first.Status, "targetId": first.TargetID, "reason": first.Reason, "textSet": first.Text != nil}
			wantFirst := map[string]any{"status": "open", "targetId": reviewID, "reason": "spam", "textSet": true}
			if diff := cmp.Diff(wantFirst, gotFirst); diff != "" {
				t.Fatalf("report (-want +got):\n%s", diff)
			}
			m.report(t, m.tourist, review, 409)
			m.report(t, m.stranger, review, 201)
			// A slug or handle in another case names the same target, stored as the public API spells it.
			byStranger := m.report(t, m.stranger, map[string]any{"targetType": "travelogue", "targetId": strings.ToUpper(slug), "reason": "misleading"}, 201)
			if byStranger.TargetID != slug {
				t.Errorf("travelogue report names %q, want %q", byStranger.TargetID, slug)
			}
			m.report(t, m.tourist, map[string]any{"targetType": "expert", "targetId": "Demo-Expert", "reason": "other", "text": "Asked to pay outside."}, 201)
			m.report(t, m.tourist, map[string]any{"targetType": "package", "targetId": m.packageID, "reason": "inappropriate"}, 201)

			// The admins' list: open ones, oldest first, with the target.
			for _, who := range []string{"", m.tourist.token, m.apiKey(t, m.root, "profile:read")} {
				want := 403
				if who == "" {
					want = 401
				}
				h := []string{}
				if who != "" {
					h = bearer(who)
				}
				m.Get("/api/v1/admin/reports", h...).Expect(want)
				m.Do("POST", "/api/v1/admin/moderation", map[string]any{"action": "hide", "targetType": "review", "targetId": reviewID, "reason": "x"}, h...).Expect(want)
				m.Do("POST", "/api/v1/admin/reports/"+first.ID+"/dismiss", map[string]any{"reason": "x"}, h...).Expect(want)
			}
			m.Get("/api/v1/admin/reports?status=closed", bearer(m.root.token)...).Expect(400)
			var list struct {
				Data []guide.AdminReport
				Meta paging.Meta
			}
			m.Get("/api/v1/admin/reports?pageSize=100", bearer(m.root.token)...).Expect(200).Decode(&list)
			if list.Meta.Total != 5 || len(list.Data) != 5 || list.Data[0].ID != first.ID {
				t.Fatalf("open reports: %+v", list)
			}
			r0 := list.Data[0]
			gotR0 := map[string]any{"reporter": r0.Reporter.ID, "ownerHandle": r0.Target.OwnerHandle, "openReports": r0.Target.OpenReports,
				"moderated": r0.Target.Moderated, "resolutionSet": r0.Resolution != nil}
			wantR0 := map[string]any{"reporter": m.tourist.id, "ownerHandle": new("demo-expert"), "openReports": 2,
				"moderated": false, "resolutionSet": false}
			if diff := cmp.Diff(wantR0, gotR0); diff != "" {
				t.Errorf("review report (-want +got):\n%s", diff)
			}
			if x := list.Data[3]; x.TargetType != "expert" || x.Target.Label == nil || x.Target.OpenReports != 1 {
				t.Errorf("expert report: %+v", x)
			}

			// Dismissed: closed without acting, audited; not twice.
			var dismissed struct{ Data guide.AdminReport }
			m.Do("POST", "/api/v1/admin/reports/"+byStranger.ID+"/dismiss", map[string]any{"reason": "Accurate enough."},
				bearer(m.root.token)...).Expect(200).Decode(&dismissed)
			gotDismissed := map[string]any{"status": dismissed.Data.Status, "resolutionSet": dismissed.Data.Resolution != nil}
			if r := dismissed.Data.Resolution; r != nil {
				gotDismissed["action"], gotDismissed["by"] = r.Action, r.By.ID
			}
			wantDismissed := map[string]any{"status": "dismissed", "resolutionSet": true, "action": "dismiss", "by": m.root.id}
			if diff := cmp.Diff(wantDismissed, gotDismissed); diff != "" {
				t.Errorf("dismissed (-want +got):\n%s", diff)
			}
			m.Do("POST", "/api/v1/admin/reports/"+byStranger.ID+"/dismiss", map[string]any{"reason": "again"}, bearer(m.root.token)...).Expect(422)
			m.Do("POST", "/api/v1/admin/reports/0193a4f5-3c4d-7e5f-8a6b-7c8d9e0f1a2b/dismiss", map[string]any{"reason": "x"}, bearer(m.root.token)...).Expect(404)
			m.Do("POST", "/api/v1/admin/reports/"+first.ID+"/dismiss", map[string]any{}, bearer(m.root.token)...).Expect(400)
			m.Get("/api/v1/admin/reports?status=dismissed", bearer(m.root.token)...).Expect(200).Decode(&list)
			if list.Meta.Total != 1 || list.Data[0].ID != byStranger.ID {
				t.Errorf("dismissed reports: %+v", list)
			}
			var audit struct{ Data []guide.AuditEntry }
			m.Get("/api/v1/admin/audit?targetType=report&targetId="+byStranger.ID, bearer(m.root.token)...).Expect(200).Decode(&audit)
			gotAudit := map[string]any{"entries": len(audit.Data)}
			if len(audit.Data) > 0 {
				gotAudit["action"], gotAudit["reason"] = audit.Data[0].Action, audit.Data[0].Reason
			}
			wantAudit := map[string]any{"entries": 1, "action": "report.dismiss", "reason": new("Accurate enough.")}
			if diff := cmp.Diff(wantAudit, gotAudit); diff != "" {
				t.Errorf("audit of the dismissal (-want +got):\n%s", diff)
			}
			// Once dismissed, the reporter may report the target again.
			m.report(t, m.stranger, map[string]any{"targetType": "travelogue", "targetId": slug, "reason": "spam"}, 201)

			// An action on the target resolves its open reports.
			res := m.moderate(t, "hide", "review", reviewID)
			if res.ResolvedReports != 2 {
				t.Errorf("hide resolved %d reports, want 2", res.ResolvedReports)
			}
			m.Get("/api/v1/admin/reports?status=resolved", bearer(m.root.token)...).Expect(200).Decode(&list)
			gotResolved := map[string]any{"total": list.Meta.Total}
			if len(list.Data) > 0 {
				gotResolved["resolutionSet"], gotResolved["moderated"] = list.Data[0].Resolution != nil, list.Data[0].Target.Moderated
				if r := list.Data[0].Resolution; r != nil {
					gotResolved["action"] = r.Action
				}
			}
			wantResolved := map[string]any{"total": 2, "resolutionSet": true, "action": "hide", "moderated": true}
			if diff := cmp.Diff(wantResolved, gotResolved); diff != "" {
				t.Errorf("resolved reports (-want +got):\n%s", diff)
			}
			// What is hidden cannot be reported.
			m.report(t, m.tourist, review, 404)
		})
	}
}

// TestReportRateLimit: reports are bounded per user before the body is
// read.
func TestReportRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true, reportLimit: 1})
	u := e.register(t, "reporter@example.com", "TOURIST")
	body := map[string]any{"targetType": "expert", "targetId": "nobody", "reason": "spam"}
	e.Do("POST", "/api/v1/reports", body, bearer(u.token)...).Expect(404)
	e.Do("POST", "/api/v1/reports", body, bearer(u.token)...).Expect(429)
}

// TestModeration: hiding a review, package or travelogue takes it out of
// every public list and page at once and restoring brings it back as it
// was; a hidden review leaves its expert's rating, recomputed exactly;
// suspending an expert takes its profile and packages out, cancels its
// future bookings with their events and refuses new ones, and
// reinstating lists them again. Every action is audited.
func TestModeration(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			m := &modEnv{bookingEnv: newBookingEnv(t, engine)}
			m.root = m.register(t, testAdminEmail, "TOURIST")

			// Wrong pairs, missing reason, unknown targets.
			for _, body := range []map[string]any{
				{"action": "suspend", "targetType": "review", "targetId": "x", "reason": "r"},
				{"action": "hide", "targetType": "expert", "targetId": "demo-expert", "reason": "r"},
				{"action": "hide", "targetType": "package", "targetId": m.packageID},
				{"action": "ban", "targetType": "expert", "targetId": "demo-expert", "reason": "r"},
			} {
				m.Do("POST", "/api/v1/admin/moderation", body, bearer(m.root.token)...).Expect(400)
			}
			m.Do("POST", "/api/v1/admin/moderation", map[string]any{"action": "hide", "targetType": "travelogue", "targetId": "no-such-slug", "reason": "r"},
				bearer(m.root.token)...).Expect(404)

			// A review: gone from the list, the rating recomputed from the others.
			rating0, count0 := m.expertRating(t)
			var reviews struct {
				Data []guide.Review
				Meta paging.Meta
			}
			m.Get("/api/v1/experts/demo-expert/reviews?pageSize=100", bearer(m.tourist.token)...).Expect(200).Decode(&reviews)
			if reviews.Meta.Total != count0 || count0 < 2 {
				t.Fatalf("reviews: total %d, expert's count %d", reviews.Meta.Total, count0)
			}
			hidden := reviews.Data[0]
			sum := 0
			for _, r := range reviews.Data {
				sum += r.Rating
			}
			wantRating := float64(sum-hidden.Rating) / float64(count0-1)
			res := m.moderate(t, "hide", "review", hidden.ID)
			gotHidden := map[string]any{"expertSet": res.Expert != nil, "moderated": res.Moderated}
			if res.Expert != nil {
				gotHidden["handle"], gotHidden["rating"], gotHidden["reviewCount"] = res.Expert.Handle, res.Expert.Rating, res.Expert.ReviewCount
			}
			wantHidden := map[string]any{"expertSet": true, "moderated": true, "handle": "demo-expert", "rating": wantRating, "reviewCount": count0 - 1}
			if diff := cmp.Diff(wantHidden, gotHidden); diff != "" {
				t.Fatalf("hidden review (-want +got):\n%s", diff)
			}
			if r, n := m.expertRating(t); r != wantRating || n != count0-1 {
				t.Errorf("expert after hiding: %v of %d, want %v of %d", r, n, wantRating, count0-1)
			}
			m.Get("/api/v1/experts/demo-expert/reviews?pageSize=100").Expect(200).Decode(&reviews)
			if reviews.Meta.Total != count0-1 || slices.ContainsFunc(reviews.Data, func(r guide.Review) bool { return r.ID == hidden.ID }) {
				t.Errorf("reviews after hiding: total %d, hidden one listed %v", reviews.Meta.Total, reviews.Data)
			}
			m.Do("POST", "/api/v1/admin/moderation", map[string]any{"action": "hide", "targetType": "review", "targetId": hidden.ID, "reason": "again"},
				bearer(m.root.token)...).Expect(422)
			res = m.moderate(t, "restore", "review", hidden.ID)
			if res.Expert.Rating != rating0 || res.Expert.ReviewCount != count0 || res.Moderated {
				t.Errorf("restored review: %+v, want %v of %d", res.Expert, rating0, count0)
			}
			if r, n := m.expertRating(t); r != rating0 || n != count0 {
				t.Errorf("expert after restoring: %v of %d, want %v of %d", r, n, rating0, count0)
			}

			// A package: gone from the lists and its page, not bookable.
			packages0, own0 := m.total(t, "/api/v1/packages?pageSize=1"), m.total(t, "/api/v1/experts/demo-expert/packages?pageSize=1")
			m.Get("/api/v1/packages/" + m.packageID).Expect(200)
			m.moderate(t, "hide", "package", m.packageID)
			m.Get("/api/v1/packages/" + m.packageID).Expect(404)
			if p, own := m.total(t, "/api/v1/packages?pageSize=1"), m.total(t, "/api/v1/experts/demo-expert/packages?pageSize=1"); p != packages0-1 || own != own0-1 {
				t.Errorf("packages after hiding one: %d (%d of the expert), want %d (%d)", p, own, packages0-1, own0-1)
			}
			m.Do("POST", "/api/v1/bookings", map[string]any{"packageId": m.packageID, "participants": 1,
				"scheduledDate": m.clock.Now().Add(48 * time.Hour).Format(time.RFC3339)}, bearer(m.tourist.token)...).Expect(404)
			m.moderate(t, "restore", "package", m.packageID)
			m.Get("/api/v1/packages/" + m.packageID).Expect(200)
			if p := m.total(t, "/api/v1/packages?pageSize=1"); p != packages0 {
				t.Errorf("packages after restoring: %d, want %d", p, packages0)
			}

			// A travelogue: gone from the list and its page.
			var travelogues struct {
				Data []guide.TravelogueSummary
				Meta paging.Meta
			}
			m.Get("/api/v1/travelogues?pageSize=100").Expect(200).Decode(&travelogues)
			slug, travelogues0 := travelogues.Data[0].Slug, travelogues.Meta.Total
			m.moderate(t, "hide", "travelogue", slug)
			m.Get("/api/v1/travelogues/" + slug).Expect(404)
			m.Get("/api/v1/travelogues?pageSize=100").Expect(200).Decode(&travelogues)
			if travelogues.Meta.Total != travelogues0-1 || slices.ContainsFunc(travelogues.Data, func(x guide.TravelogueSummary) bool { return x.Slug == slug }) {
				t.Errorf("travelogues after hiding one: total %d of %d", travelogues.Meta.Total, travelogues0)
			}
			m.moderate(t, "restore", "travelogue", slug)
			m.Get("/api/v1/travelogues/" + slug).Expect(200)

			// An expert: its future bookings cancelled with their events, and
			// each traveller told on their devices in their language.
			m.device(t, m.tourist, "tourist-phone", "ko-KR")
			sink := newPushSink(t)
			runner := m.pushRunner(sink)
			drain(t, runner) // what the earlier steps queued
			pending := m.book(t, m.tourist, nil)
			confirmed := m.book(t, m.stranger, nil)
			m.Do("POST", "/api/v1/bookings/"+confirmed+"/accept", nil, bearer(m.expert.token)...).Expect(200)
			future := m.count(t, `SELECT COUNT(*) FROM bookings WHERE expert_id = $1 AND status IN ('PENDING', 'CONFIRMED') AND scheduled_date > $2`,
				m.expertID, m.clock.Now())
			other := m.count(t, `SELECT COUNT(*) FROM bookings WHERE expert_id = $1 AND status <> 'CANCELLED'`, m.expertID) - future
			experts0 := m.total(t, "/api/v1/experts?pageSize=1")
			res = m.moderate(t, "suspend", "expert", "Demo-Expert")
			if res.TargetID != "demo-expert" || res.CancelledBookings != future || future < 2 {
				t.Errorf("suspended: %+v, want %d bookings cancelled", res, future)
			}
			if d := m.detail(t, m.tourist, pending); d.Status != "CANCELLED" || d.CancelledAt == nil {
				t.Errorf("booking after the suspension: %+v", d)
			}
			drain(t, runner)
			var told []notification
			for _, n := range sink.all() {
				if n.Data["type"] == "booking_cancelled" {
					told = append(told, n)
				}
			}
			if len(told) != 1 || told[0].Title != "예약이 취소되었습니다" || told[0].Data["bookingId"] != pending {
				t.Errorf("cancellation pushes: %+v", told)
			}
			for _, id := range []string{pending, confirmed} {
				if s := m.status(t, id); s != "CANCELLED" {
					t.Errorf("booking %s: %s", id, s)
				}
				if n := m.count(t, `SELECT COUNT(*) FROM events WHERE type = 'booking.cancelled' AND data LIKE $1`, "%"+id+"%"); n != 1 {
					t.Errorf("booking %s: %d booking.cancelled events", id, n)
				}
			}
			if n := m.count(t, `SELECT COUNT(*) FROM bookings WHERE expert_id = $1 AND status <> 'CANCELLED'`, m.expertID); n != other {
				t.Errorf("bookings left to the expert: %d, want %d (started or past)", n, other)
			}
			if n := m.count(t, `SELECT COUNT(*) FROM bookings WHERE expert_id = $1 AND status = 'CANCELLED' AND cancelled_by = 'admin'`, m.expertID); n != future {
				t.Errorf("cancelled by an admin: %d, want %d", n, future)
			}
			m.Get("/api/v1/experts/demo-expert").Expect(404)
			m.Get("/api/v1/experts/demo-expert/packages").Expect(404)
			m.Get("/api/v1/experts/demo-expert/reviews").Expect(404)
			m.Get("/api/v1/packages/" + m.packageID).Expect(404)
			if n := m.total(t, "/api/v1/experts?pageSize=1"); n != experts0-1 {
				t.Errorf("experts after the suspension: %d, want %d", n, experts0-1)
			}
			if p := m.total(t, "/api/v1/packages?pageSize=1"); p != packages0-own0 {
				t.Errorf("packages after the suspension: %d, want %d", p, packages0-own0)
			}
			m.Do("POST", "/api/v1/bookings", map[string]any{"packageId": m.packageID, "participants": 1,
				"scheduledDate": m.clock.Now().Add(48 * time.Hour).Format(time.RFC3339)}, bearer(m.tourist.token)...).Expect(404)
			m.Do("POST", "/api/v1/bookings", map[string]any{"expertId": m.expertID, "participants": 1,
				"scheduledDate": m.clock.Now().Add(48 * time.Hour).Format(time.RFC3339)}, bearer(m.tourist.token)...).Expect(404)
			m.Do("POST", "/api/v1/admin/moderation", map[string]any{"action": "suspend", "targetType": "expert", "targetId": "demo-expert", "reason": "again"},
				bearer(m.root.token)...).Expect(422)

			res = m.moderate(t, "reinstate", "expert", "demo-expert")
			if res.Moderated || res.CancelledBookings != 0 {
				t.Errorf("reinstated: %+v", res)
			}
			m.Get("/api/v1/experts/demo-expert").Expect(200)
			if n, p, own := m.total(t, "/api/v1/experts?pageSize=1"), m.total(t, "/api/v1/packages?pageSize=1"),
				m.total(t, "/api/v1/experts/demo-expert/packages?pageSize=1"); n != experts0 || p != packages0 || own != own0 {
				t.Errorf("after reinstating: %d experts, %d packages (%d of the expert), want %d, %d (%d)", n, p, own, experts0, packages0, own0)
			}
			if s := m.status(t, pending); s != "CANCELLED" {
				t.Errorf("a cancelled booking after reinstating: %s", s)
			}
			m.book(t, m.tourist, nil)

			// Every action is in the audit log, with its admin and reason.
			var audit struct {
				Data []guide.AuditEntry
				Meta paging.Meta
			}
			m.Get("/api/v1/admin/audit?pageSize=100&order=asc", bearer(m.root.token)...).Expect(200).Decode(&audit)
			var got []string
			for _, a := range audit.Data {
				got = append(got, a.Action+" "+a.TargetType)
				if a.Actor.ID != m.admin.id || a.Reason == nil || !strings.HasPrefix(*a.Reason, "Moderation test: ") {
					t.Errorf("audit entry: %+v", a)
				}
			}
			want := []string{"moderation.hide review", "moderation.restore review", "moderation.hide package", "moderation.restore package",
				"moderation.hide travelogue", "moderation.restore travelogue", "moderation.suspend expert", "moderation.reinstate expert"}
			if !slices.Equal(got, want) {
				t.Errorf("audit: %v, want %v", got, want)
			}
			m.Get("/api/v1/admin/audit?targetType=expert&targetId=demo-expert", bearer(m.root.token)...).Expect(200).Decode(&audit)
			if audit.Meta.Total != 2 {
				t.Errorf("audit of the expert: %+v", audit)
			}
		})
	}
}
