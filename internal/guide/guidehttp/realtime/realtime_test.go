package realtime_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/chat"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// Protocol error codes of the engine.
const (
	codeUnknownChannel   = 102
	codePermissionDenied = 103
	codeBadRequest       = 107
	codeUnauthorized     = 101
	codeTokenExpired     = 109
)

func TestConnectToken(t *testing.T) {
	t.Parallel()
	n := newNode(t, store.SQLite, nodeOptions{})
	traveller := n.register("live@example.com")
	good := n.realtimeToken(traveller)
	if err := n.dial().connect(good); err != nil {
		t.Fatalf("token from GET /api/realtime/token refused: %+v", err)
	}

	past := clock.NewFake(n.clock.Now().Add(-2 * time.Hour))
	expired, _, _ := chat.NewCredentials(testAppID, []byte(testSecret), past).Issue(traveller.id)
	otherSecret, _, _ := chat.NewCredentials(testAppID, []byte("another-secret-another-secret-!!"), n.clock).Issue(traveller.id)
	otherApp, _, _ := chat.NewCredentials("other-app", []byte(testSecret), n.clock).Issue(traveller.id)
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.RegisteredClaims{
		Subject: traveller.id, Audience: jwt.ClaimStrings{testAppID}, ExpiresAt: jwt.NewNumericDate(n.clock.Now().Add(time.Hour)),
	}).SignedString([]byte(testSecret))
	noExpiry, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject: traveller.id, Audience: jwt.ClaimStrings{testAppID},
	}).SignedString([]byte(testSecret))
	for _, tc := range []struct {
		name, token string
		code        int
	}{
		{"expired", expired, codeTokenExpired},
		{"wrong secret", otherSecret, codeUnauthorized},
		{"other audience", otherApp, codeUnauthorized},
		{"HS512", hs512, codeUnauthorized},
		{"no expiry", noExpiry, codeUnauthorized},
		{"user token", traveller.token, codeUnauthorized},
		{"empty", "", codeUnauthorized},
	} {
		if err := n.dial().connect(tc.token); err == nil || err.Code != tc.code {
			t.Errorf("%s: %+v, want code %d", tc.name, err, tc.code)
		}
	}

	// Expiry follows the injectable clock: the good token expires an hour on.
	n.clock.Advance(time.Hour + time.Second)
	if err := n.dial().connect(good); err == nil || err.Code != codeTokenExpired {
		t.Errorf("token past its hour: %+v", err)
	}
}

func TestRefreshAndClosedAccount(t *testing.T) {
	t.Parallel()
	n := newNode(t, store.SQLite, nodeOptions{})
	traveller := n.register("closing@example.com")
	other := n.register("other@example.com")
	c := n.dial()
	if err := c.connect(n.realtimeToken(traveller)); err != nil {
		t.Fatal(err)
	}
	// The library's refresh flow: the client sends a new token from REST.
	n.clock.Advance(30 * time.Minute)
	if f := c.call(map[string]any{"refresh": map[string]any{"token": n.realtimeToken(traveller)}}); f.Error != nil || f.Refresh == nil {
		t.Fatalf("refresh: %s", f.Raw)
	}

	// Another user's token does not refresh this connection.
	c2 := n.dial()
	if err := c2.connect(n.realtimeToken(traveller)); err != nil {
		t.Fatal(err)
	}
	c2.send(map[string]any{"refresh": map[string]any{"token": n.realtimeToken(other)}})
	if ce := c2.closeError(); ce == nil || ce.Code != 3500 {
		t.Errorf("refresh with another user's token: closed with %+v, want 3500 invalid token", ce)
	}

	// Closing the account drops its connections at once, and its token
	// opens no new one.
	token := n.realtimeToken(traveller)
	n.rest("POST", "/api/v1/profile/delete", traveller, map[string]string{"confirmation": "DELETE"}, 200, nil)
	if ce := c.closeError(); ce == nil || ce.Code != 4501 {
		t.Errorf("closed account's connection: closed with %+v, want 4501", ce)
	}
	if err := n.dial().connect(token); err == nil || err.Code != codeUnauthorized {
		t.Errorf("closed account connects: %+v", err)
	}
}

func TestSubscribeRules(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			n := newNode(t, engine, nodeOptions{})
			traveller := n.register("sub@example.com")
			stranger := n.register("stranger@example.com")
			expert := n.sampleUser("expert@example.com")
			id := n.openConversation(traveller)

			for _, tc := range []struct {
				who     user
				channel string
				code    int
			}{
				{traveller, "conversation:" + id, 0},
				{expert, "conversation:" + id, 0},
				{traveller, "user:" + traveller.id, 0},
				{stranger, "conversation:" + id, codePermissionDenied},
				{stranger, "conversation:no-such-conversation", codePermissionDenied},
				{stranger, "user:" + traveller.id, codePermissionDenied},
				{stranger, "news", codeUnknownChannel},
			} {
				c := n.dial()
				if err := c.connect(n.realtimeToken(tc.who)); err != nil {
					t.Fatal(err)
				}
				f := c.subscribe(tc.channel, nil)
				switch {
				case tc.code == 0 && (f.Error != nil || f.Subscribe == nil || !f.Subscribe.Recoverable):
					t.Errorf("%s on %s: %s, want a recoverable subscription", tc.who.id, tc.channel, f.Raw)
				case tc.code != 0 && (f.Error == nil || f.Error.Code != tc.code):
					t.Errorf("%s on %s: %s, want error %d", tc.who.id, tc.channel, f.Raw, tc.code)
				}
				if tc.code != 0 {
					// Nor may a stranger publish to or read the channel.
					if f := c.call(map[string]any{"publish": map[string]any{"channel": tc.channel, "data": map[string]any{"type": "typing"}}}); f.Error == nil {
						t.Errorf("stranger published to %s", tc.channel)
					}
					if f := c.call(map[string]any{"presence": map[string]any{"channel": tc.channel}}); f.Error == nil {
						t.Errorf("stranger read presence of %s", tc.channel)
					}
				}
			}
		})
	}
}

// TestPublishAfterCommit: a message recorded through REST (and an AI
// reply, which takes the same job) is published after its transaction
// commits, by the job runner, once, with the REST API's JSON; read
// receipts and unread counts follow; a recipient who follows the
// conversation live gets no push.
func TestPublishAfterCommit(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			n := newNode(t, engine, nodeOptions{})
			traveller := n.register("commit@example.com")
			expert := n.sampleUser("expert@example.com")
			id := n.openConversation(traveller)
			n.rest("POST", "/api/push/register", expert, map[string]any{"token": "expert-phone", "platform": "IOS"}, 200, nil)

			ec := n.dial()
			if err := ec.connect(n.realtimeToken(expert)); err != nil {
				t.Fatal(err)
			}
			for _, ch := range []string{"conversation:" + id, "user:" + expert.id} {
				if f := ec.subscribe(ch, nil); f.Error != nil {
					t.Fatalf("%s: %s", ch, f.Raw)
				}
			}
			tc := n.dial()
			if err := tc.connect(n.realtimeToken(traveller)); err != nil {
				t.Fatal(err)
			}
			if f := tc.subscribe("conversation:"+id, nil); f.Error != nil {
				t.Fatal(string(f.Raw))
			}

			var sent struct{ Data json.RawMessage }
			n.rest("POST", "/api/v1/conversations/"+id+"/messages", traveller, map[string]any{"content": "Is the market open on Sunday?"}, 201, &sent)
			if k := n.count(`SELECT COUNT(*) FROM jobs WHERE kind = 'realtime.message' AND done_at IS NULL`); k != 1 {
				t.Fatalf("%d realtime jobs committed with the message, want 1", k)
			}
			n.work()
			ev := event(t, ec.publication("conversation:"+id))
			var want, got any
			json.Unmarshal(sent.Data, &want)
			b, _ := json.Marshal(ev["message"])
			json.Unmarshal(b, &got)
			if ev["type"] != "message" || !reflect.DeepEqual(got, want) || ev["realtimeMessageId"] != nil {
				t.Fatalf("published %v\nREST answered %s", ev, sent.Data)
			}
			if ev := event(t, ec.publication("user:"+expert.id)); ev["type"] != "unread" || ev["unreadCount"].(float64) < 1 {
				t.Errorf("unread event: %v", ev)
			}
			// The expert follows the conversation live: no push.
			if k := n.count(`SELECT COUNT(*) FROM jobs WHERE kind = 'push.device'`); k != 0 {
				t.Errorf("%d push deliveries to a recipient who is live", k)
			}
			if k := n.count(`SELECT COUNT(*) FROM jobs WHERE kind = 'push.message' AND done_at IS NOT NULL`); k != 1 {
				t.Errorf("%d push jobs done", k)
			}

			// A retried job (its completion lost) publishes nothing again:
			// the next publication is the next message.
			if _, err := n.db.Exec(`UPDATE jobs SET done_at = NULL, locked_until = NULL WHERE kind = 'realtime.message'`); err != nil {
				t.Fatal(err)
			}
			n.work()
			var second struct{ Data struct{ ID string } }
			n.rest("POST", "/api/v1/conversations/"+id+"/messages", traveller, map[string]any{"content": "And on Monday?"}, 201, &second)
			n.work()
			if ev := event(t, ec.publication("conversation:"+id)); ev["message"].(map[string]any)["id"] != second.Data.ID {
				t.Fatalf("after a retried job: %v, want the second message", ev)
			}

			// Read receipts reach the other participant; the reader's
			// unread count reaches the reader.
			tc.publication("conversation:" + id) // the traveller's own first message
			tc.publication("conversation:" + id) // and second
			var read struct{ Data struct{ MarkedCount int } }
			n.rest("POST", "/api/v1/conversations/"+id+"/read", expert, nil, 200, &read)
			n.work()
			ev = event(t, tc.publication("conversation:"+id))
			gotRead := map[string]any{
				"type": ev["type"], "readerId": ev["readerId"], "conversationId": ev["conversationId"], "markedCount": ev["markedCount"],
			}
			wantRead := map[string]any{
				"type": "read", "readerId": expert.id, "conversationId": id, "markedCount": float64(read.Data.MarkedCount),
			}
			if diff := cmp.Diff(wantRead, gotRead); diff != "" {
				t.Errorf("read event (-want +got):\n%s", diff)
			}
			var unread struct{ Data struct{ UnreadCount int } }
			n.rest("GET", "/api/v1/conversations/unread-count", expert, nil, 200, &unread)
			ec.publication("user:" + expert.id) // the second message's count
			if ev := event(t, ec.publication("user:"+expert.id)); ev["type"] != "unread" || int(ev["unreadCount"].(float64)) != unread.Data.UnreadCount {
				t.Errorf("unread after reading: %v, REST says %d", ev, unread.Data.UnreadCount)
			}

			// Gone from the channel, the expert is notified again.
			ec.close()
			deadline := time.Now().Add(10 * time.Second)
			for {
				online, err := n.engine.Online(t.Context(), "conversation:"+id, expert.id)
				if err != nil {
					t.Fatal(err)
				}
				if !online {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("expert still present after closing")
				}
				time.Sleep(10 * time.Millisecond)
			}
			n.rest("POST", "/api/v1/conversations/"+id+"/messages", traveller, map[string]any{"content": "Hello?"}, 201, nil)
			n.work()
			if k := n.count(`SELECT COUNT(*) FROM jobs WHERE kind = 'push.device'`); k != 1 {
				t.Errorf("%d push deliveries to an offline recipient, want 1", k)
			}
		})
	}
}
