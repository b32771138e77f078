package guide

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// asAppErr returns err as the *apperr.Error a door would render, nil for
// nil; any other error fails the test.
func asAppErr(t *testing.T, err error) *apperr.Error {
	t.Helper()
	if err == nil {
		return nil
	}
	e, ok := err.(*apperr.Error)
	if !ok {
		t.Fatalf("error %v is no *apperr.Error", err)
	}
	return e
}

func checkErr(t *testing.T, name string, got error, want *apperr.Error) {
	t.Helper()
	if diff := cmp.Diff(want, asAppErr(t, got)); diff != "" {
		t.Errorf("%s: error (-want +got):\n%s", name, diff)
	}
}

func strp(s string) *string { return &s }

// TestTransitionCheck runs every transition for every party on every
// status against the life cycle written out here: who may make it and
// from where, with the messages the API answers.
func TestTransitionCheck(t *testing.T) {
	parties := map[string]Party{
		"nobody":  {},
		"tourist": {Tourist: true},
		"expert":  {Expert: true},
		"admin":   {Admin: true},
		// An admin who booked as traveller: the admin's rights count.
		"tourist admin": {Tourist: true, Admin: true},
	}
	cycle := []struct {
		t         Transition
		who       string // as the message names them
		parties   []string
		from      []string
		pastTense string
	}{
		{Accept, "the booked expert", []string{"expert"}, []string{StatusPending}, "accepted"},
		{Start, "the booked expert", []string{"expert"}, []string{StatusConfirmed}, "started"},
		{Complete, "the booked expert, an admin", []string{"expert", "admin", "tourist admin"}, []string{StatusInProgress}, "completed"},
		{Cancel, "the traveller, the booked expert, an admin", []string{"tourist", "expert", "admin", "tourist admin"},
			[]string{StatusPending, StatusConfirmed, StatusInProgress}, "cancelled"},
	}
	for _, c := range cycle {
		for name, p := range parties {
			for _, status := range BookingStatuses {
				var want *apperr.Error
				switch {
				case name == "nobody":
					want = &apperr.Error{Code: apperr.Forbidden, Message: "This booking is not yours."}
				case !slices.Contains(c.parties, name):
					want = &apperr.Error{Code: apperr.Forbidden, Message: "Only " + c.who + " may " + c.t.Name + " this booking."}
				case !slices.Contains(c.from, status):
					want = &apperr.Error{Code: apperr.InvalidState, Message: fmt.Sprintf("A %s booking cannot be %s; only a %s one can.",
						status, c.pastTense, strings.Join(c.from, " or "))}
				}
				checkErr(t, c.t.Name+" by "+name+" on "+status, c.t.Check(p, status), want)
			}
		}
	}
}

func TestPartyCheckAny(t *testing.T) {
	for _, tc := range []struct {
		p    Party
		want *apperr.Error
	}{
		{Party{}, &apperr.Error{Code: apperr.Forbidden, Message: "This booking is not yours."}},
		{Party{Tourist: true}, nil},
		{Party{Expert: true}, nil},
		{Party{Admin: true}, nil},
	} {
		checkErr(t, fmt.Sprintf("%+v", tc.p), tc.p.CheckAny(), tc.want)
	}
}

func TestCheckReview(t *testing.T) {
	tourist := Party{Tourist: true}
	for _, tc := range []struct {
		name      string
		p         Party
		status    string
		hasExpert bool
		hasReview bool
		want      *apperr.Error
	}{
		{"the traveller, completed", tourist, StatusCompleted, true, false, nil},
		{"the expert", Party{Expert: true}, StatusCompleted, true, false,
			&apperr.Error{Code: apperr.Forbidden, Message: "Only the traveller who made the booking can review it."}},
		{"an admin", Party{Admin: true}, StatusCompleted, true, false,
			&apperr.Error{Code: apperr.Forbidden, Message: "Only the traveller who made the booking can review it."}},
		{"in progress", tourist, StatusInProgress, true, false,
			&apperr.Error{Code: apperr.Conflict, Message: "Only a COMPLETED booking can be reviewed; this one is IN_PROGRESS."}},
		{"cancelled", tourist, StatusCancelled, true, false,
			&apperr.Error{Code: apperr.Conflict, Message: "Only a COMPLETED booking can be reviewed; this one is CANCELLED."}},
		{"the expert's account is gone", tourist, StatusCompleted, false, false,
			&apperr.Error{Code: apperr.Conflict, Message: "Only a COMPLETED booking can be reviewed; this one is COMPLETED."}},
		{"reviewed", tourist, StatusCompleted, true, true,
			&apperr.Error{Code: apperr.Conflict, Message: "This booking already has a review."}},
	} {
		got := CheckReview(tc.p, tc.status, tc.hasExpert, tc.hasReview)
		checkErr(t, tc.name, got, tc.want)
		// The booking's canReview says the same.
		if can := CanReview(tc.p, tc.status, tc.hasExpert, tc.hasReview); can != (got == nil) {
			t.Errorf("%s: CanReview %v, CheckReview %v", tc.name, can, got)
		}
	}
}

func TestNewBookingCheckFuture(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	past := &apperr.Error{Code: apperr.Validation, Message: "The request has invalid fields; see details.",
		Details: map[string]any{"scheduledDate": "must be in the future"}}
	for _, tc := range []struct {
		at   time.Time
		want *apperr.Error
	}{
		{now.Add(time.Microsecond), nil},
		{now, past},
		{now.Add(-time.Hour), past},
	} {
		checkErr(t, tc.at.String(), NewBooking{ScheduledDate: tc.at}.CheckFuture(now), tc.want)
	}
}

func TestNewBookingCheckBookable(t *testing.T) {
	traveller := &User{ID: "traveller"}
	pkg := BookedExpert{ExpertID: "e1", UserID: "expert-user", MaxParticipants: 4}
	invalid := func(field, msg string) *apperr.Error {
		return &apperr.Error{Code: apperr.Validation, Message: "The request has invalid fields; see details.", Details: map[string]any{field: msg}}
	}
	for _, tc := range []struct {
		name string
		user *User
		nb   NewBooking
		e    BookedExpert
		want *apperr.Error
	}{
		{"an expert", traveller, NewBooking{ExpertID: strp("e1"), Participants: 30}, BookedExpert{ExpertID: "e1", UserID: "expert-user"}, nil},
		{"a package", traveller, NewBooking{PackageID: strp("p1"), Participants: 4}, pkg, nil},
		{"a package and its expert", traveller, NewBooking{ExpertID: strp("e1"), PackageID: strp("p1"), Participants: 1}, pkg, nil},
		{"a package of another expert", traveller, NewBooking{ExpertID: strp("e2"), PackageID: strp("p1"), Participants: 1}, pkg,
			invalid("packageId", "belongs to another expert than expertId")},
		{"too many", traveller, NewBooking{PackageID: strp("p1"), Participants: 5}, pkg,
			invalid("participants", "this package takes at most 4 participants")},
		{"oneself", &User{ID: "expert-user"}, NewBooking{ExpertID: strp("e1"), Participants: 1}, BookedExpert{ExpertID: "e1", UserID: "expert-user"},
			&apperr.Error{Code: apperr.InvalidState, Message: "Experts cannot book themselves."}},
		{"one's own package", &User{ID: "expert-user"}, NewBooking{PackageID: strp("p1"), Participants: 1}, pkg,
			&apperr.Error{Code: apperr.InvalidState, Message: "Experts cannot book themselves."}},
	} {
		checkErr(t, tc.name, tc.nb.CheckBookable(tc.user, tc.e), tc.want)
	}
}

func TestPendingActionCheckConfirm(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	expires := now.Add(time.Minute)
	person := &Caller{User: &User{ID: "u"}}
	key := &Caller{User: &User{ID: "u"}, APIKey: &APIKey{}}
	personOnly := &apperr.Error{Code: apperr.PersonConfirmation, Message: "Only the person confirms this action, with their user token (in the app) " +
		"or signed in on the confirmation page: it was asked for through the MCP endpoint or by a key created with " +
		"\"confirmation\": \"person\". No API key can confirm it; it stays pending."}
	expired := &apperr.Error{Code: apperr.InvalidState, Message: "The action expired at 2026-11-22T12:01:00Z; make the request again."}
	confirmed := &apperr.Error{Code: apperr.InvalidState, Message: "The action is already confirmed; make a new request to repeat it."}
	for _, tc := range []struct {
		name       string
		status     string
		personOnly bool
		c          *Caller
		at         time.Time
		want       *apperr.Error
	}{
		{"pending, by the person", ActionPending, false, person, now, nil},
		{"pending, by the key", ActionPending, false, key, now, nil},
		{"person only, by the person", ActionPending, true, person, now, nil},
		{"person only, by a key", ActionPending, true, key, now, personOnly},
		{"expired", ActionExpired, false, person, now, expired},
		{"past its time", ActionPending, false, person, expires, expired},
		{"person only, expired, by a key", ActionExpired, true, key, now, expired},
		{"confirmed", ActionConfirmed, false, person, now, confirmed},
		{"confirmed, by a key", ActionConfirmed, false, key, now, confirmed},
	} {
		a := &PendingAction{Status: tc.status, PersonOnly: tc.personOnly, ExpiresAt: expires}
		checkErr(t, tc.name, a.CheckConfirm(tc.c, tc.at), tc.want)
	}
}

func TestDeletionCheck(t *testing.T) {
	blockers := []DeletionBlocker{{Type: "active_bookings", Count: 2, Message: "2 bookings are still to happen."}}
	checkErr(t, "free", (&DeletionCheck{CanDelete: true, Blockers: []DeletionBlocker{}}).Check(), nil)
	checkErr(t, "blocked", (&DeletionCheck{Blockers: blockers}).Check(), &apperr.Error{Code: apperr.InvalidState,
		Message: "The account cannot be closed: 2 bookings are still to happen.", Details: map[string]any{"blockers": blockers}})
}

func TestConversationRules(t *testing.T) {
	for _, tc := range []struct {
		name      string
		user      string
		messaging bool
		want      *apperr.Error
	}{
		{"a traveller", "traveller", true, nil},
		{"oneself", "expert-user", true, &apperr.Error{Code: apperr.InvalidState, Message: "You cannot open a conversation with yourself."}},
		{"no messages", "traveller", false, &apperr.Error{Code: apperr.InvalidState, Message: "This expert does not take messages."}},
	} {
		checkErr(t, "open: "+tc.name, CheckNewConversation(tc.user, "expert-user", tc.messaging), tc.want)
	}
	for _, tc := range []struct {
		user string
		want *apperr.Error
	}{
		{"traveller", nil},
		{"expert-user", nil},
		{"someone", &apperr.Error{Code: apperr.Forbidden, Message: "This conversation is not yours."}},
	} {
		checkErr(t, "participant: "+tc.user, CheckParticipant(tc.user, "traveller", "expert-user"), tc.want)
	}
}

func TestModerationCheck(t *testing.T) {
	for _, tc := range []struct {
		action, target string
		moderated      bool
		want           string // the message; "" when allowed
	}{
		{ActionHide, TargetReview, false, ""},
		{ActionHide, TargetReview, true, "This review is already hidden."},
		{ActionRestore, TargetTravelogue, true, ""},
		{ActionRestore, TargetTravelogue, false, "This travelogue is already visible."},
		{ActionHide, TargetPackage, true, "This package is already hidden."},
		{ActionSuspend, TargetExpert, false, ""},
		{ActionSuspend, TargetExpert, true, "This expert is already suspended."},
		{ActionReinstate, TargetExpert, true, ""},
		{ActionReinstate, TargetExpert, false, "This expert is already active."},
	} {
		var want *apperr.Error
		if tc.want != "" {
			want = &apperr.Error{Code: apperr.InvalidState, Message: tc.want}
		}
		m := Moderation{Action: tc.action, TargetType: tc.target}
		checkErr(t, fmt.Sprintf("%s %s moderated=%v", tc.action, tc.target, tc.moderated), m.Check(tc.moderated), want)
	}
}

func TestReportCheckDismiss(t *testing.T) {
	for _, tc := range []struct {
		status string
		want   *apperr.Error
	}{
		{ReportOpen, nil},
		{ReportResolved, &apperr.Error{Code: apperr.InvalidState, Message: "This report is resolved; only an open one can be dismissed."}},
		{ReportDismissed, &apperr.Error{Code: apperr.InvalidState, Message: "This report is dismissed; only an open one can be dismissed."}},
	} {
		checkErr(t, tc.status, (&Report{Status: tc.status}).CheckDismiss(), tc.want)
	}
}

func TestApplicationRules(t *testing.T) {
	decided := &apperr.Error{Code: apperr.Conflict, Message: "The application has been decided; it can no longer change."}
	full := &apperr.Error{Code: apperr.Conflict, Message: fmt.Sprintf("The application has %d documents, the most it may have.", MaxApplicationDocuments)}
	for _, tc := range []struct {
		status    string
		documents int
		open      *apperr.Error // CheckOpen
		document  *apperr.Error // CheckNewDocument
		decidable *apperr.Error // CheckDecidable
	}{
		{ApplicationPending, 0, nil, nil, nil},
		{ApplicationPending, MaxApplicationDocuments - 1, nil, nil, nil},
		{ApplicationPending, MaxApplicationDocuments, nil, full, nil},
		{ApplicationChangesRequested, 0, nil, nil,
			&apperr.Error{Code: apperr.Conflict, Message: "The application is changes requested, not pending: it is not for a decision now."}},
		{ApplicationApproved, 0, decided, decided,
			&apperr.Error{Code: apperr.Conflict, Message: "The application is approved, not pending: it is not for a decision now."}},
		{ApplicationRejected, MaxApplicationDocuments, decided, decided,
			&apperr.Error{Code: apperr.Conflict, Message: "The application is rejected, not pending: it is not for a decision now."}},
	} {
		a := &Application{Status: tc.status, Documents: make([]ApplicationDocument, tc.documents)}
		name := fmt.Sprintf("%s with %d documents", tc.status, tc.documents)
		checkErr(t, name+": open", a.CheckOpen(), tc.open)
		checkErr(t, name+": new document", a.CheckNewDocument(), tc.document)
		checkErr(t, name+": decidable", a.CheckDecidable(), tc.decidable)
	}
	for _, tc := range []struct {
		verified, open bool
		want           *apperr.Error
	}{
		{false, false, nil},
		{true, false, &apperr.Error{Code: apperr.Conflict, Message: "This account is a verified expert already: edit the profile with PATCH /api/v1/expert/profile."}},
		{true, true, &apperr.Error{Code: apperr.Conflict, Message: "This account is a verified expert already: edit the profile with PATCH /api/v1/expert/profile."}},
		{false, true, &apperr.Error{Code: apperr.Conflict,
			Message: "You have an open application already: follow it with GET /api/v1/expert-applications/mine, and edit it while it is open."}},
	} {
		checkErr(t, fmt.Sprintf("apply verified=%v open=%v", tc.verified, tc.open), CheckApply(tc.verified, tc.open), tc.want)
	}
}

func TestEditorRules(t *testing.T) {
	author, other, admin := &User{ID: "author"}, &User{ID: "other"}, &User{ID: "admin", Role: RoleAdmin}
	notExpert := &apperr.Error{Code: apperr.Forbidden, Message: "Only the package's expert can change it."}
	for _, tc := range []struct {
		user *User
		want *apperr.Error
	}{
		{author, nil},
		{admin, nil},
		{other, notExpert},
	} {
		checkErr(t, "package by "+tc.user.ID, CheckPackageEditor(tc.user, "author"), tc.want)
	}
	notAuthor := &apperr.Error{Code: apperr.Forbidden, Message: "Only its author can change a travelogue."}
	hidden := &apperr.Error{Code: apperr.NotFound, Message: `No travelogue with slug "Kyoto-Walks".`}
	for _, tc := range []struct {
		user   *User
		status string
		want   *apperr.Error
	}{
		{author, TravelogueDraft, nil},
		{author, TraveloguePublished, nil},
		{other, TraveloguePublished, notAuthor},
		{other, TravelogueDraft, hidden},
		// Admins moderate travelogues; they do not edit them.
		{admin, TraveloguePublished, notAuthor},
	} {
		tr := &AuthorTravelogue{Status: tc.status}
		checkErr(t, "travelogue "+tc.status+" by "+tc.user.ID, tr.CheckAuthor(tc.user, "author", "Kyoto-Walks"), tc.want)
	}
}

func TestPackageContentDefaultCountry(t *testing.T) {
	for _, tc := range []struct {
		given, profile, want string
		err                  *apperr.Error
	}{
		{"TH", "JP", "TH", nil},
		{"", "JP", "JP", nil},
		{"TH", "", "TH", nil},
		{"", "", "", &apperr.Error{Code: apperr.Validation, Message: "The request has invalid fields; see details.",
			Details: map[string]any{"countryCode": "is required: the expert profile names no country"}}},
	} {
		c := PackageContent{CountryCode: tc.given}
		checkErr(t, tc.given+"/"+tc.profile, c.DefaultCountry(tc.profile), tc.err)
		if c.CountryCode != tc.want {
			t.Errorf("%s/%s: country %q, want %q", tc.given, tc.profile, c.CountryCode, tc.want)
		}
	}
}
