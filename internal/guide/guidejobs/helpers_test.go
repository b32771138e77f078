package guidejobs_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/guidejobs"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/ai"
	"github.com/wayfarer-asia/platform/internal/platform/chat"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/push"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

var dataset = sync.OnceValue(sample.Generate)

// env is a guide database with the sample data, a fake clock after the
// sample's horizon and a local push gateway.
type env struct {
	t   testing.TB
	db  *store.DB
	clk *clock.Fake
	g   *guidedb.Guide
	q   *store.Jobs
	gw  *gateway
}

// newEnv returns an empty database; see newSampleEnv and fixture.
func newEnv(t testing.TB, engine store.Engine, now time.Time) *env {
	t.Helper()
	return newEnvOn(t, storetest.MustOpenDB(t, engine, guidedb.Schema), now)
}

// newSampleEnv returns a database with the sample data, loaded once per
// test process (slow under the race detector) and copied.
func newSampleEnv(t testing.TB, engine store.Engine, now time.Time) *env {
	t.Helper()
	return newEnvOn(t, storetest.MustOpenSample(t, engine, guidedb.Schema, func(ctx context.Context, db *store.DB) error {
		return guidedb.LoadSample(ctx, db, dataset())
	}), now)
}

func newEnvOn(t testing.TB, db *store.DB, now time.Time) *env {
	t.Helper()
	clk := clock.NewFake(now)
	gw := newGateway(t)
	return &env{t: t, db: db, clk: clk, g: guidedb.New(db, clk), q: store.NewJobs(db, clk), gw: gw}
}

// runner returns a runner of the guide's jobs on e's queue; each of set
// adjusts the guide's jobs before they are registered.
func (e *env) runner(aiClient *ai.Client, set ...func(*guidejobs.Jobs)) *jobs.Runner {
	return e.runnerOn(e.q, e.g, aiClient, set...)
}

// runnerOn is runner on another handle of e's database.
func (e *env) runnerOn(q *store.Jobs, g guidejobs.Store, aiClient *ai.Client, set ...func(*guidejobs.Jobs)) *jobs.Runner {
	gj := &guidejobs.Jobs{Store: g, Push: &push.HTTPSender{URL: e.gw.srv.URL}, AI: aiClient}
	for _, f := range set {
		f(gj)
	}
	r := jobs.NewRunner(q, e.clk)
	gj.Register(r)
	return r
}

// withChat makes the runner publish to p.
func withChat(p chat.Publisher) func(*guidejobs.Jobs) {
	return func(g *guidejobs.Jobs) { g.Chat = p }
}

// drain runs r until no job is due and returns how many it handled.
func drain(t *testing.T, r *jobs.Runner) int {
	t.Helper()
	total := 0
	for range 100 {
		n, err := r.RunOnce(t.Context())
		if err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		if n == 0 {
			return total
		}
		total += n
	}
	t.Fatal("jobs keep coming")
	return 0
}

// conversation is a sample conversation and its parties.
type conversation struct {
	id, touristID, expertID, expertUserID, expertName string
}

// The fixture's expert.
const (
	fixtureExpertName   = "Sato Haruka"
	fixtureTouristName  = "Emma Clarke"
	fixtureBio          = "Born and raised in Kyoto; I have guided temple walks for twelve years."
	fixtureInstructions = "Always mention that every tour has a rain plan. Sign off as Haruka's assistant."
)

// fixture inserts a traveller, an expert with AI auto-reply, two packages
// (one inactive), specialties, languages and a conversation of two
// messages, and returns the conversation.
func (e *env) fixture() conversation {
	e.t.Helper()
	ctx := e.t.Context()
	now := e.clk.Now().Add(-24 * time.Hour)
	c := conversation{id: "conv-1", touristID: "user-tourist", expertID: "expert-1", expertUserID: "user-expert", expertName: fixtureExpertName}
	stmts := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO users (id, handle, email, name, role, locale, created_at, updated_at) VALUES
			($1, 'emma', 'emma@example.com', $2, 'TOURIST', 'en', $5, $5),
			($3, 'haruka', 'haruka@example.com', $4, 'EXPERT', 'ja', $5, $5)`,
			[]any{c.touristID, fixtureTouristName, c.expertUserID, fixtureExpertName, now}},
		{`INSERT INTO experts (id, user_id, bio, location, country_code, currency, messaging_enabled, timezone,
				ai_auto_reply, ai_instructions, verified_at, created_at, updated_at)
			VALUES ($1, $2, $3, 'Kyoto', 'JP', 'JPY', TRUE, 'Asia/Tokyo', TRUE, $4, $5, $5, $5)`,
			[]any{c.expertID, c.expertUserID, fixtureBio, fixtureInstructions, now}},
		{`INSERT INTO expert_specialties (expert_id, specialty, position) VALUES ($1, 'Temples', 0), ($1, 'Tea ceremony', 1)`, []any{c.expertID}},
		{`INSERT INTO expert_languages (expert_id, language, position) VALUES ($1, 'Japanese', 0), ($1, 'English', 1)`, []any{c.expertID}},
		{`INSERT INTO packages (id, expert_id, title, description, category, country_code, base_price, currency, duration,
				max_participants, is_active, created_at, updated_at) VALUES
			('pkg-1', $1, 'Fushimi Inari at Dawn', 'Walk the torii gates before the crowds.', 'culture', 'JP', 12000, 'JPY', 3, 6, TRUE, $2, $2),
			('pkg-2', $1, 'Retired Night Walk', 'No longer offered.', 'culture', 'JP', 9000, 'JPY', 2, 6, FALSE, $2, $2)`,
			[]any{c.expertID, now}},
		{`INSERT INTO conversations (id, tourist_id, expert_id, last_message, last_message_at, created_at, updated_at)
			VALUES ($1, $2, $3, 'Yes, it is! Shall I hold a date for you?', $4, $4, $4)`,
			[]any{c.id, c.touristID, c.expertID, now}},
		{`INSERT INTO messages (id, conversation_id, sender_id, message_type, content, is_read, created_at) VALUES
			('msg-0001', $1, $2, 'TEXT', 'Hello! Is the Fushimi Inari tour available next week?', TRUE, $4),
			('msg-0002', $1, $3, 'TEXT', 'Yes, it is! Shall I hold a date for you?', TRUE, $5)`,
			[]any{c.id, c.touristID, c.expertUserID, now, now.Add(time.Minute)}},
	}
	for _, s := range stmts {
		if _, err := e.db.ExecContext(ctx, s.sql, s.args...); err != nil {
			e.t.Fatalf("fixture: %v\n%s", err, s.sql)
		}
	}
	return c
}

// pickConversation returns a sample conversation whose expert has
// messaging on and AI auto-reply as asked.
func (e *env) pickConversation(autoReply bool) conversation {
	e.t.Helper()
	var c conversation
	cond := "e.ai_auto_reply = FALSE"
	if autoReply {
		cond = "e.ai_auto_reply = TRUE AND e.ai_instructions IS NOT NULL"
	}
	err := e.db.QueryRowContext(e.t.Context(), `SELECT c.id, c.tourist_id, e.id, e.user_id, u.name
		FROM conversations c JOIN experts e ON e.id = c.expert_id JOIN users u ON u.id = e.user_id
		WHERE e.messaging_enabled = TRUE AND `+cond+` ORDER BY c.id LIMIT 1`).Scan(&c.id, &c.touristID, &c.expertID, &c.expertUserID, &c.expertName)
	if err != nil {
		e.t.Fatalf("no sample conversation with ai_auto_reply = %v: %v", autoReply, err)
	}
	return c
}

// post writes a message as the messaging API does: the message, the
// conversation's last message and its push job in one transaction, and an
// AI-reply job for a traveller's message when asked.
func (e *env) post(c conversation, senderID, kind, text string, aiJob bool) string {
	e.t.Helper()
	ctx := e.t.Context()
	id := uuid.Must(uuid.NewV7()).String()
	now := e.clk.Now()
	err := e.db.InTx(ctx, func(tx *sql.Tx) error {
		var image any
		if kind == "IMAGE" {
			image = "/media/messages/" + id + ".jpg"
		}
		var content any = text
		if text == "" {
			content = nil
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages (id, conversation_id, sender_id, message_type, content, image_url, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, id, c.id, senderID, kind, content, image, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET last_message = $2, last_message_at = $3, updated_at = $3 WHERE id = $1`,
			c.id, content, now); err != nil {
			return err
		}
		if err := e.q.Enqueue(ctx, tx, guide.JobPushMessage, map[string]string{"messageId": id}, now); err != nil {
			return err
		}
		if aiJob {
			return e.q.Enqueue(ctx, tx, guide.JobAIReply, map[string]string{"conversationId": c.id, "messageId": id}, now)
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// device registers a push token for the user.
func (e *env) device(userID, token, locale, zone string) {
	e.t.Helper()
	t := guide.PushToken{Token: token, UserID: userID, Platform: "ANDROID"}
	if locale != "" {
		t.DeviceLocale = &locale
	}
	if zone != "" {
		t.Timezone = &zone
	}
	if err := e.g.RegisterPushToken(e.t.Context(), t); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) pending() int {
	e.t.Helper()
	n, err := e.q.CountPending(e.t.Context())
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// secondHandle opens another connection pool on e's database, as a second
// worker process would.
func (e *env) secondHandle() *store.DB {
	t := e.t
	t.Helper()
	ctx := t.Context()
	var dsn string
	switch e.db.Engine {
	case store.SQLite:
		var seq int
		var name, file string
		if err := e.db.QueryRowContext(ctx, `PRAGMA database_list`).Scan(&seq, &name, &file); err != nil {
			t.Fatal(err)
		}
		dsn = file
	case store.Postgres:
		var schema string
		if err := e.db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(os.Getenv("TEST_POSTGRES_URL"))
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		dsn = u.String()
	}
	other, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return other
}

// delivery is a notification the gateway accepted or refused.
type delivery struct {
	Token, Title, Body string
	Data               map[string]string
	Status             int
}

// gateway is a local push gateway that records what arrives. respond, when
// set, chooses the answer per request (n counts the token's requests from
// 1); the default is 200.
type gateway struct {
	srv     *httptest.Server
	mu      sync.Mutex
	all     []delivery
	perTok  map[string]int
	respond func(token string, n int) (status int, body string)
	// retryAfter is the Retry-After header sent with 429 answers, per
	// token.
	retryAfter map[string]string
	// arrived, when set, receives the token of each request.
	arrived chan string
}

func newGateway(t testing.TB) *gateway {
	gw := &gateway{perTok: map[string]int{}}
	gw.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Message struct {
				Token        string `json:"token"`
				Notification struct {
					Title string `json:"title"`
					Body  string `json:"body"`
				} `json:"notification"`
				Data map[string]string `json:"data"`
			} `json:"message"`
		}
		if err := json.Unmarshal(b, &req); err != nil {
			t.Errorf("gateway: %v", err)
		}
		m := req.Message
		gw.mu.Lock()
		gw.perTok[m.Token]++
		n, respond := gw.perTok[m.Token], gw.respond
		gw.mu.Unlock()
		status, body := 200, `{"name":"projects/test/messages/1"}`
		if respond != nil {
			status, body = respond(m.Token, n)
		}
		gw.mu.Lock()
		gw.all = append(gw.all, delivery{Token: m.Token, Title: m.Notification.Title, Body: m.Notification.Body, Data: m.Data, Status: status})
		gw.mu.Unlock()
		if ra := gw.retryAfter[m.Token]; ra != "" && status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", ra)
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
		if gw.arrived != nil {
			gw.arrived <- m.Token
		}
	}))
	t.Cleanup(gw.srv.Close)
	return gw
}

// delivered returns the notifications accepted, per token.
func (gw *gateway) delivered() map[string][]delivery {
	gw.mu.Lock()
	defer gw.mu.Unlock()
	out := map[string][]delivery{}
	for _, d := range gw.all {
		if d.Status/100 == 2 {
			out[d.Token] = append(out[d.Token], d)
		}
	}
	return out
}

func (gw *gateway) requests() int {
	gw.mu.Lock()
	defer gw.mu.Unlock()
	return len(gw.all)
}
