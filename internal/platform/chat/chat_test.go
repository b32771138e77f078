package chat_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/chat"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// rules are a product's in their simplest form: users "alice" and "bob"
// are open accounts, "closed" is not, and only alice takes part in the
// conversation "c1". The product's own rules are tested with the product
// (internal/guide/guidehttp/realtime).
type rules struct{}

func (rules) CheckUser(_ context.Context, userID string) error {
	if userID == "closed" {
		return apperr.Errorf(apperr.NotFound, "no such user")
	}
	return nil
}

func (rules) CheckParticipant(_ context.Context, userID, conversationID string) error {
	if userID != "alice" || conversationID != "c1" {
		return apperr.Errorf(apperr.Forbidden, "not a participant")
	}
	return nil
}

func (rules) CheckDraft(content, _ *string) (string, string, error) {
	if content == nil {
		return "", "", apperr.Errorf(apperr.Validation, "no content")
	}
	return *content, "TEXT", nil
}

// client is a WebSocket connection speaking the engine's JSON protocol.
type client struct {
	t  *testing.T
	ws *websocket.Conn
	id int
}

// reply is a reply to a command, or a push.
type reply struct {
	ID    int `json:"id"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
	Push *struct {
		Channel string `json:"channel"`
		Pub     *struct {
			Data json.RawMessage `json:"data"`
		} `json:"pub"`
	} `json:"push"`
}

func dial(t *testing.T, url string) *client {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(url, "http")+"/api/realtime/connection/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &client{t: t, ws: ws}
}

// next reads the next frame that is not the server's ping.
func (c *client) next() reply {
	c.t.Helper()
	if err := c.ws.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		c.t.Fatal(err)
	}
	for {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			c.t.Fatal(err)
		}
		for line := range strings.SplitSeq(strings.TrimSpace(string(msg)), "\n") {
			var r reply
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				c.t.Fatalf("%s: %v", line, err)
			}
			if r.ID != 0 || r.Push != nil {
				return r
			}
		}
	}
}

// call sends a command and returns the error code of its reply (0: none).
func (c *client) call(cmd string, args any) int {
	c.t.Helper()
	c.id++
	if err := c.ws.WriteJSON(map[string]any{"id": c.id, cmd: args}); err != nil {
		c.t.Fatal(err)
	}
	r := c.next()
	for r.ID != c.id { // a push (join, leave) came first
		r = c.next()
	}
	if r.Error != nil {
		return r.Error.Code
	}
	return 0
}

// TestEngine: the engine admits a connection whose credential it issued
// to an open account, lets a user join their own channel and the
// conversations the rules allow, and delivers what is published there.
func TestEngine(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Now().UTC().Truncate(time.Second))
	creds := chat.NewCredentials("test-app", []byte("realtime-secret-realtime-secret!"), clk)
	e, err := chat.New(chat.Config{Credentials: creds, Rules: rules{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		e.Shutdown(ctx)
	})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	token := func(userID string) string {
		tok, _, err := creds.Issue(userID)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	expired, _, err := chat.NewCredentials("test-app", []byte("realtime-secret-realtime-secret!"), clock.NewFake(clk.Now().Add(-2*time.Hour))).Issue("alice")
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := chat.NewCredentials("test-app", []byte("another-secret-another-secret-!!"), clk).Issue("alice")
	if err != nil {
		t.Fatal(err)
	}

	// Protocol error codes: 101 unauthorized, 102 unknown channel, 103
	// permission denied, 109 token expired.
	got := map[string]int{}
	for name, tok := range map[string]string{"alice": token("alice"), "closed account": token("closed"),
		"expired": expired, "other secret": other, "empty": ""} {
		got["connect "+name] = dial(t, srv.URL).call("connect", map[string]any{"token": tok})
	}
	alice := dial(t, srv.URL)
	got["connect alice again"] = alice.call("connect", map[string]any{"token": token("alice")})
	for _, ch := range []string{chat.UserChannel("alice"), chat.UserChannel("bob"), chat.ConversationChannel("c1"),
		chat.ConversationChannel("c2"), "elsewhere:1"} {
		got["subscribe "+ch] = alice.call("subscribe", map[string]any{"channel": ch})
	}
	want := map[string]int{
		"connect alice": 0, "connect closed account": 101, "connect expired": 109, "connect other secret": 101, "connect empty": 101,
		"connect alice again":  0,
		"subscribe user:alice": 0, "subscribe user:bob": 103, "subscribe conversation:c1": 0, "subscribe conversation:c2": 103,
		"subscribe elsewhere:1": 102,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error codes (-want +got):\n%s", diff)
	}

	if err := e.Publish(t.Context(), chat.UserChannel("alice"), []byte(`{"hello":"alice"}`), "p1"); err != nil {
		t.Fatal(err)
	}
	r := alice.next()
	for r.Push == nil || r.Push.Pub == nil { // join and leave pushes
		r = alice.next()
	}
	if diff := cmp.Diff(`user:alice {"hello":"alice"}`, r.Push.Channel+" "+string(r.Push.Pub.Data)); diff != "" {
		t.Errorf("publication (-want +got):\n%s", diff)
	}
}
