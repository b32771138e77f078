package guidehttp_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide/guidejobs"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
	"github.com/wayfarer-asia/platform/internal/platform/push"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// notification is what the local push gateway received for one device.
type notification struct {
	Token, Title, Body string
	Data               map[string]string
}

// pushSink is a local push gateway (the FCM HTTP v1 shape HTTPSender
// posts) that keeps every notification it accepts.
type pushSink struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []notification
}

func newPushSink(t *testing.T) *pushSink {
	s := &pushSink{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Message struct {
				Token        string
				Notification struct{ Title, Body string }
				Data         map[string]string
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("push sink: %v", err)
		}
		m := req.Message
		s.mu.Lock()
		s.got = append(s.got, notification{Token: m.Token, Title: m.Notification.Title, Body: m.Notification.Body, Data: m.Data})
		s.mu.Unlock()
		io.WriteString(w, `{"name":"projects/test/messages/1"}`)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *pushSink) all() []notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]notification(nil), s.got...)
}

// pushRunner is the guide's job runner of a replica, sending to sink.
func (e *env) pushRunner(sink *pushSink) *jobs.Runner {
	r := &jobs.Runner{Jobs: store.NewJobs(e.db, e.clock), Clock: e.clock, Logger: slog.New(slog.DiscardHandler)}
	(&guidejobs.Jobs{Store: e.store, Push: &push.HTTPSender{URL: sink.srv.URL}, PublicURL: publicURL, Logger: r.Logger}).Register(r)
	return r
}

// device registers a push token for u through the API; locale "" sends
// none (the account's language then applies).
func (e *env) device(t *testing.T, u user, token, locale string) {
	t.Helper()
	body := map[string]any{"token": token, "platform": "ANDROID"}
	if locale != "" {
		body["deviceLocale"] = locale
	}
	e.Do("POST", "/api/push/register", body, bearer(u.token)...).Expect(200)
}

// actionJobs returns the tokens of the push.action jobs of an action, and
// how many of them are still to run.
func (e *env) actionJobs(t *testing.T, actionID string) (tokens []string, open int) {
	t.Helper()
	rows, err := e.db.Query(`SELECT payload, done_at IS NULL FROM jobs WHERE kind = 'push.action' ORDER BY created_at, id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var payload string
		var pending bool
		if err := rows.Scan(&payload, &pending); err != nil {
			t.Fatal(err)
		}
		var p struct{ ActionID, Token string }
		if err := json.Unmarshal([]byte(payload), &p); err != nil {
			t.Fatal(err)
		}
		if p.ActionID == actionID {
			tokens = append(tokens, p.Token)
			if pending {
				open++
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return tokens, open
}

// TestActionPushREST: a key's cancel over REST tells the person on each of
// their devices, once, in the device's language, with what to confirm and
// where; a push still queued when the action is confirmed, or once it has
// expired, is not sent.
func TestActionPushREST(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			sink := newPushSink(t)
			b.device(t, b.tourist, "phone-ja", "ja-JP")
			b.device(t, b.tourist, "tablet", "")
			b.device(t, b.stranger, "stranger-phone", "en")
			key := b.apiKey(t, b.tourist, "bookings:read", "bookings:write")
			runner := b.pushRunner(sink)

			id := b.book(t, b.tourist, nil)
			var pending struct{ ActionID string }
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(key)...).Expect(202).Decode(&pending)
			// Committed with the action: one job per device of the person.
			tokens, open := b.actionJobs(t, pending.ActionID)
			gotJobs := map[string]any{"tokens": tokens, "open": open}
			wantJobs := map[string]any{"tokens": []string{"phone-ja", "tablet"}, "open": 2}
			if diff := cmp.Diff(wantJobs, gotJobs); diff != "" {
				t.Fatalf("jobs of the action (-want +got):\n%s", diff)
			}
			drain(t, runner)
			drain(t, runner)
			got := sink.all()
			if len(got) != 2 {
				t.Fatalf("%d notifications, want 2: %+v", len(got), got)
			}
			byToken := map[string]notification{got[0].Token: got[0], got[1].Token: got[1]}
			ja, en := byToken["phone-ja"], byToken["tablet"]
			if ja.Title != "予約キャンセルの確認" || en.Title != "Confirm booking cancellation" ||
				en.Body != "The API key “agent” asks to cancel one of your bookings. Nothing happens unless you confirm it in the app." {
				t.Errorf("texts: %+v / %+v", ja, en)
			}
			wantData := map[string]string{"type": "action.pending", "actionId": pending.ActionID, "action": "booking.cancel", "bookingId": id,
				"expiresAt":  b.clock.Now().Add(10 * time.Minute).Format(time.RFC3339),
				"confirmUrl": publicURL + "/api/v1/actions/" + pending.ActionID + "/confirm"}
			for _, n := range got {
				if len(n.Data) != len(wantData) {
					t.Errorf("%s: data %v, want %v", n.Token, n.Data, wantData)
				}
				for k, v := range wantData {
					if n.Data[k] != v {
						t.Errorf("%s: data[%s] = %q, want %q", n.Token, k, n.Data[k], v)
					}
				}
			}
			if _, open := b.actionJobs(t, pending.ActionID); open != 0 {
				t.Errorf("%d jobs still open after delivery", open)
			}

			// Confirmed before the runner gets to it: nothing is sent.
			id2 := b.book(t, b.tourist, nil)
			b.Do("POST", "/api/v1/bookings/"+id2+"/cancel", nil, bearer(key)...).Expect(202).Decode(&pending)
			b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(b.tourist.token)...).Expect(200)
			drain(t, runner)
			if n := len(sink.all()); n != 2 {
				t.Errorf("%d notifications after a confirmed action, want still 2", n)
			}
			if tokens, open := b.actionJobs(t, pending.ActionID); len(tokens) != 2 || open != 0 {
				t.Errorf("jobs of the confirmed action: %v (%d open)", tokens, open)
			}

			// Expired before the runner gets to it: nothing is sent either.
			id3 := b.book(t, b.tourist, nil)
			b.Do("POST", "/api/v1/bookings/"+id3+"/cancel", nil, bearer(key)...).Expect(202).Decode(&pending)
			b.clock.Advance(10 * time.Minute)
			drain(t, runner)
			if n := len(sink.all()); n != 2 {
				t.Errorf("%d notifications after an expired action, want still 2", n)
			}
			if _, open := b.actionJobs(t, pending.ActionID); open != 0 {
				t.Errorf("%d jobs of the expired action still open", open)
			}
		})
	}
}

// TestActionPushMCP: the same through the MCP door. A cancellation the
// person confirms before the runner gets to it sends nothing; an account
// closure asked by the agent reaches the person's device once, with the
// confirmation URL the tool returned.
func TestActionPushMCP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	sink := newPushSink(t)
	u := e.register(t, "mcp-push@example.com", "TOURIST")
	e.device(t, u, "phone", "ko-KR")
	cs := mcpSession(t, e, e.apiKey(t, u, "packages:read", "bookings:read", "bookings:write", "profile:write"))
	runner := e.pushRunner(sink)

	var pkgs struct{ Data []struct{ ID string } }
	if res := mcptest.Call(t, cs, "search_packages", map[string]any{"pageSize": 1}, &pkgs); res.IsError || len(pkgs.Data) != 1 {
		t.Fatalf("search_packages: %+v", res)
	}
	var booked struct{ Data struct{ ID string } }
	if res := mcptest.Call(t, cs, "create_booking", map[string]any{"packageId": pkgs.Data[0].ID,
		"scheduledDate": e.clock.Now().Add(96 * time.Hour).Format(time.RFC3339)}, &booked); res.IsError {
		t.Fatalf("create_booking: %+v", res)
	}
	var pending struct{ ActionID, ConfirmURL string }
	if res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": booked.Data.ID}, &pending); res.IsError {
		t.Fatalf("cancel_booking: %+v", res)
	}
	if tokens, open := e.actionJobs(t, pending.ActionID); len(tokens) != 1 || tokens[0] != "phone" || open != 1 {
		t.Fatalf("jobs of the cancellation: %v (%d open)", tokens, open)
	}
	e.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(u.token)...).Expect(200)
	drain(t, runner)
	if got := sink.all(); len(got) != 0 {
		t.Fatalf("a confirmed action was notified: %+v", got)
	}

	// The booking is cancelled, so the account may close once confirmed.
	if res := mcptest.Call(t, cs, "close_account", map[string]any{}, &pending); res.IsError {
		t.Fatalf("close_account: %+v", res)
	}
	drain(t, runner)
	drain(t, runner)
	got := sink.all()
	if len(got) != 1 {
		t.Fatalf("%d notifications, want 1: %+v", len(got), got)
	}
	n := got[0]
	gotNote := map[string]any{
		"token": n.Token, "title": n.Title, "type": n.Data["type"], "action": n.Data["action"],
		"actionId": n.Data["actionId"], "confirmUrl": n.Data["confirmUrl"],
	}
	wantNote := map[string]any{
		"token": "phone", "title": "계정 삭제 확인", "type": "action.pending", "action": "account.delete",
		"actionId": pending.ActionID, "confirmUrl": pending.ConfirmURL,
	}
	if diff := cmp.Diff(wantNote, gotNote); diff != "" {
		t.Errorf("notification (-want +got):\n%s", diff)
	}
	if n := e.count(t, `SELECT COUNT(*) FROM users WHERE id = $1 AND deleted_at IS NULL`, u.id); n != 1 {
		t.Error("the account closed without confirmation")
	}
}
