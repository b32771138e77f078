package realtime_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/guidehttp"
	"github.com/wayfarer-asia/platform/internal/guide/guidejobs"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/chat"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

func TestMain(m *testing.M) {
	auth.SetTestPasswordCost()
	os.Exit(m.Run())
}

const (
	testSecret = "realtime-secret-realtime-secret!"
	testAppID  = "test-app"
)

// node is one replica: the real guide router with a realtime engine on a
// real listener, and a job runner publishing through the engine.
type node struct {
	t      *testing.T
	srv    *httptest.Server
	db     *store.DB
	gs     *guidedb.Guide
	clock  *clock.Fake
	creds  *chat.Credentials
	tokens *auth.Tokens
	engine *chat.Engine
	runner *jobs.Runner
}

type nodeOptions struct {
	db          *store.DB   // shared with another node; fresh sample when nil
	clock       *clock.Fake // shared with another node
	redisURL    string
	redisPrefix string
}

func newNode(t *testing.T, engine store.Engine, o nodeOptions) *node {
	t.Helper()
	if o.db == nil {
		o.db = storetest.MustOpenSample(t, engine, guidedb.Schema, func(ctx context.Context, db *store.DB) error {
			return guidedb.LoadSample(ctx, db, sample.Generate())
		})
	}
	if o.clock == nil {
		// The engine times connections with the system clock: the fake
		// starts from it, and moves only when a test says so.
		o.clock = clock.NewFake(time.Now().UTC().Truncate(time.Second))
	}
	n := &node{t: t, db: o.db, clock: o.clock, gs: guidedb.New(o.db, o.clock)}
	n.creds = chat.NewCredentials(testAppID, []byte(testSecret), o.clock)
	var err error
	if n.tokens, err = auth.NewTokens([]byte("test-secret-test-secret-test-secret!"), o.clock); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	n.engine, err = chat.New(chat.Config{Credentials: n.creds, Rules: guidehttp.ChatRules(n.gs), RedisURL: o.redisURL, RedisPrefix: o.redisPrefix, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n.engine.Shutdown(ctx)
	})
	n.runner = jobs.NewRunner(store.NewJobs(o.db, o.clock), o.clock)
	n.runner.Logger = logger
	(&guidejobs.Jobs{Store: n.gs, Chat: n.engine, PublicURL: "https://guide.api.test", Logger: logger}).Register(n.runner)
	limiter := ratelimit.NewMemory(o.clock)
	srv := guidehttp.New(guidehttp.Config{
		Service: &guide.Service{PublicURL: "https://guide.api.test", Catalog: n.gs, Accounts: n.gs, Profiles: n.gs, Bookings: n.gs,
			Actions: n.gs, Closure: n.gs, ActionTTL: 10 * time.Minute, Conversations: n.gs, Realtime: n.creds, Tokens: n.tokens,
			KeyUsage: auth.NewKeyUsage(), Clock: o.clock, Logger: logger},
		Idempotency: idempotency.NewKeys(o.db, o.clock, 0), Live: n.engine,
		Limiter: limiter, PublicLimit: ratelimit.PerMinute(1000), AuthLimit: ratelimit.PerMinute(1000),
		AvatarLimit: ratelimit.PerMinute(1000), OAuth: oauth.New(oauth.Config{}),
	})
	n.srv = httptest.NewServer(srv)
	t.Cleanup(n.srv.Close)
	return n
}

// user is an account with a user token for the REST API.
type user struct{ id, token string }

// sampleUser returns the sample account with the e-mail.
func (n *node) sampleUser(email string) user {
	n.t.Helper()
	var id string
	if err := n.db.QueryRow(`SELECT id FROM users WHERE email_normalized = $1`, email).Scan(&id); err != nil {
		n.t.Fatalf("user %s: %v", email, err)
	}
	token, _, err := n.tokens.Issue(id)
	if err != nil {
		n.t.Fatal(err)
	}
	return user{id: id, token: token}
}

// rest calls the REST API and decodes the answer's body into out (when
// not nil), failing the test on another status than want.
func (n *node) rest(method, path string, who user, body any, want int, out any) {
	n.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, n.srv.URL+path, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if who.token != "" {
		req.Header.Set("Authorization", "Bearer "+who.token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		n.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		n.t.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			n.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
}

// realtimeToken asks GET /api/realtime/token for the user's credential.
func (n *node) realtimeToken(who user) string {
	n.t.Helper()
	var res struct{ Token string }
	n.rest("GET", "/api/realtime/token", who, nil, 200, &res)
	return res.Token
}

// openConversation opens the user's conversation with the demo expert and
// publishes it to the expert's channel, so that it precedes what a test
// checks there.
func (n *node) openConversation(who user) string {
	n.t.Helper()
	var res struct{ Data struct{ ID string } }
	n.rest("POST", "/api/v1/conversations", who, map[string]string{"expertHandle": "demo-expert"}, 201, &res)
	n.work()
	return res.Data.ID
}

func (n *node) count(q string, args ...any) int {
	n.t.Helper()
	var c int
	if err := n.db.QueryRow(q, args...).Scan(&c); err != nil {
		n.t.Fatalf("%s: %v", q, err)
	}
	return c
}

// work runs the due jobs until none is left.
func (n *node) work() {
	n.t.Helper()
	for range 20 {
		k, err := n.runner.RunOnce(n.t.Context())
		if err != nil {
			n.t.Fatal(err)
		}
		if k == 0 {
			return
		}
	}
	n.t.Fatal("jobs keep coming")
}

// conn is a client speaking the engine's JSON protocol over WebSocket or
// over the SSE fallback.
type conn struct {
	t      *testing.T
	write  func([]byte) error // sends one frame of commands
	close  func()             // drops the connection
	nextID int
	mu     sync.Mutex
	frames chan frame
	// pending are pushes that came before a reply that call awaited.
	pending []frame
	closed  chan *websocket.CloseError // receives once, when the server closes
}

// frame is a reply (ID set) or a push of the protocol.
type frame struct {
	ID    int             `json:"id"`
	Error *protoError     `json:"error"`
	Push  *push           `json:"push"`
	Raw   json.RawMessage `json:"-"`
	// Replies by command.
	Connect   json.RawMessage `json:"connect"`
	Subscribe *subscribeReply `json:"subscribe"`
	Presence  *struct {
		Presence map[string]struct {
			User   string `json:"user"`
			Client string `json:"client"`
		} `json:"presence"`
	} `json:"presence"`
	Refresh json.RawMessage `json:"refresh"`
	Publish json.RawMessage `json:"publish"`
}

type protoError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type publication struct {
	Data   json.RawMessage `json:"data"`
	Offset uint64          `json:"offset"`
	Info   *struct {
		User string `json:"user"`
	} `json:"info"`
}

type push struct {
	Channel string       `json:"channel"`
	Pub     *publication `json:"pub"`
	Join    *struct {
		Info struct {
			User string `json:"user"`
		} `json:"info"`
	} `json:"join"`
	Leave *struct {
		Info struct {
			User string `json:"user"`
		} `json:"info"`
	} `json:"leave"`
}

type subscribeReply struct {
	Recoverable  bool          `json:"recoverable"`
	Epoch        string        `json:"epoch"`
	Offset       uint64        `json:"offset"`
	Recovered    bool          `json:"recovered"`
	Publications []publication `json:"publications"`
}

// dial opens a WebSocket to the node's realtime endpoint.
func (n *node) dial() *conn {
	n.t.Helper()
	url := "ws" + strings.TrimPrefix(n.srv.URL, "http") + "/api/realtime/connection/websocket"
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		n.t.Fatal(err)
	}
	c := &conn{t: n.t, frames: make(chan frame, 100), closed: make(chan *websocket.CloseError, 1)}
	c.write = func(b []byte) error { return ws.WriteMessage(websocket.TextMessage, b) }
	c.close = func() { ws.Close() }
	n.t.Cleanup(func() { ws.Close() })
	go func() {
		defer close(c.frames)
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				ce, _ := err.(*websocket.CloseError)
				c.closed <- ce
				return
			}
			c.received(msg)
		}
	}()
	return c
}

// dialSSE returns a client of the SSE fallback. Its first command (the
// connect) opens the event stream as the cf_connect parameter; the later
// ones are posted to the emulation endpoint with the connection's node
// and session, and their replies come back on the stream.
func (n *node) dialSSE() *conn {
	n.t.Helper()
	c := &conn{t: n.t, frames: make(chan frame, 100), closed: make(chan *websocket.CloseError, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	n.t.Cleanup(cancel)
	c.close = cancel
	var node, session string
	connected := make(chan struct{})
	c.write = func(b []byte) error {
		if c.nextID > 1 {
			<-connected
			cmd, _ := json.Marshal(string(b))
			body, _ := json.Marshal(map[string]any{"node": node, "session": session, "data": json.RawMessage(cmd)})
			res, err := http.Post(n.srv.URL+"/api/realtime/connection/emulation", "application/json", bytes.NewReader(body))
			if err != nil {
				return err
			}
			res.Body.Close()
			if res.StatusCode != http.StatusNoContent {
				return fmt.Errorf("emulation: %s", res.Status)
			}
			return nil
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", n.srv.URL+"/api/realtime/connection/sse?cf_connect="+url.QueryEscape(string(b)), nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			res.Body.Close()
			return fmt.Errorf("sse: %s %s", res.Status, res.Header.Get("Content-Type"))
		}
		go func() {
			defer close(c.frames)
			defer res.Body.Close()
			sc := bufio.NewScanner(res.Body)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
				if !ok {
					continue
				}
				if node == "" {
					var f struct {
						Connect struct{ Node, Session string }
					}
					if json.Unmarshal(data, &f) == nil && f.Connect.Session != "" {
						node, session = f.Connect.Node, f.Connect.Session
						close(connected)
					}
				}
				c.received(data)
			}
			c.closed <- nil
		}()
		return nil
	}
	return c
}

// received passes on the frames of a message, one a line; pings are
// answered with a pong.
func (c *conn) received(msg []byte) {
	for _, line := range bytes.Split(msg, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var f frame
		if err := json.Unmarshal(line, &f); err != nil {
			continue
		}
		f.Raw = append(json.RawMessage(nil), line...)
		if f.ID == 0 && f.Push == nil {
			c.mu.Lock()
			_ = c.write([]byte("{}"))
			c.mu.Unlock()
			continue
		}
		c.frames <- f
	}
}

// send sends a command and returns its id.
func (c *conn) send(cmd map[string]any) int {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	cmd["id"] = c.nextID
	b, _ := json.Marshal(cmd)
	if err := c.write(b); err != nil {
		c.t.Fatal(err)
	}
	return c.nextID
}

// next returns the next frame; pushes that skip(f) reports are passed over.
func (c *conn) next(skip func(frame) bool) frame {
	c.t.Helper()
	for len(c.pending) > 0 {
		f := c.pending[0]
		c.pending = c.pending[1:]
		if skip == nil || !skip(f) {
			return f
		}
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case f, ok := <-c.frames:
			if !ok {
				c.t.Fatal("connection closed")
			}
			if skip != nil && skip(f) {
				continue
			}
			return f
		case <-timeout:
			c.t.Fatal("no frame in 10s")
		}
	}
}

// call sends a command and returns its reply; pushes that come first are
// kept for next.
func (c *conn) call(cmd map[string]any) frame {
	c.t.Helper()
	id := c.send(cmd)
	var pushes []frame
	f := c.next(func(f frame) bool {
		if f.ID != id && f.Push != nil {
			pushes = append(pushes, f)
		}
		return f.ID != id
	})
	c.pending = append(c.pending, pushes...)
	return f
}

// connect authenticates the connection; it returns the error reply, if any.
func (c *conn) connect(token string) *protoError {
	c.t.Helper()
	return c.call(map[string]any{"connect": map[string]any{"token": token, "name": "go-test"}}).Error
}

func (c *conn) subscribe(channel string, recover *subscribeReply) frame {
	c.t.Helper()
	sub := map[string]any{"channel": channel}
	if recover != nil {
		sub["recover"], sub["epoch"], sub["offset"] = true, recover.Epoch, recover.Offset
	}
	return c.call(map[string]any{"subscribe": sub})
}

// publication returns the next publication on channel, passing over other
// pushes (join, leave).
func (c *conn) publication(channel string) publication {
	c.t.Helper()
	f := c.next(func(f frame) bool { return f.Push == nil || f.Push.Pub == nil || f.Push.Channel != channel })
	return *f.Push.Pub
}

// closeError waits until the server closes the connection.
func (c *conn) closeError() *websocket.CloseError {
	c.t.Helper()
	for {
		select {
		case _, ok := <-c.frames:
			if !ok {
				return <-c.closed
			}
		case <-time.After(10 * time.Second):
			c.t.Fatal("connection not closed in 10s")
		}
	}
}

// event decodes a publication's data.
func event(t *testing.T, p publication) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(p.Data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func redisURL(t *testing.T) string {
	u := os.Getenv("TEST_REDIS_URL")
	if u == "" {
		t.Skip("TEST_REDIS_URL is not set")
	}
	return u
}

// uniquePrefix returns a Redis key prefix of the test's own (the test
// Redis is shared), whose keys are removed when the test ends.
func uniquePrefix(t *testing.T, url string) string {
	prefix := fmt.Sprintf("test-realtime-%d-%s", time.Now().UnixNano(), strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()))
	t.Cleanup(func() {
		opts, err := redis.ParseURL(url)
		if err != nil {
			t.Error(err)
			return
		}
		rdb := redis.NewClient(opts)
		defer rdb.Close()
		ctx := context.Background()
		keys, err := rdb.Keys(ctx, prefix+"*").Result()
		if err == nil && len(keys) > 0 {
			err = rdb.Del(ctx, keys...).Err()
		}
		if err != nil {
			t.Errorf("remove test keys: %v", err)
		}
	})
	return prefix
}

// register creates a traveller's account through the API.
func (n *node) register(email string) user {
	n.t.Helper()
	var res struct {
		Token string
		User  struct{ ID string }
	}
	n.rest("POST", "/api/v1/auth/register", user{}, map[string]string{
		"email": email, "password": "correct-horse-1", "name": "Test traveller", "role": "TOURIST",
	}, 201, &res)
	return user{id: res.User.ID, token: res.Token}
}
