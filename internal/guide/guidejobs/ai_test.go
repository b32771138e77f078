package guidejobs_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/ai"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// model is a local OpenAI-compatible endpoint. respond, when set, answers
// the n-th request (from 1) instead of the default reply.
type model struct {
	srv      *httptest.Server
	mu       sync.Mutex
	requests []chatRequest
	auth     []string
	respond  func(n int, w http.ResponseWriter, r *http.Request) bool // true: answered
}

const modelReply = "Yes, the tour runs rain or shine — every tour has a rain plan. (Haruka's assistant)"

func newModel(t *testing.T) *model {
	m := &model{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("model: %s %s", r.Method, r.URL.Path)
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("model: %v", err)
		}
		m.mu.Lock()
		m.requests = append(m.requests, req)
		m.auth = append(m.auth, r.Header.Get("Authorization"))
		n, respond := len(m.requests), m.respond
		m.mu.Unlock()
		if respond != nil && respond(n, w, r) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": modelReply}}},
		})
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *model) client() *ai.Client {
	return &ai.Client{BaseURL: m.srv.URL + "/v1", APIKey: "sk-local", Model: "guide-model"}
}

func (m *model) calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

type storedMessage struct {
	id, sender, kind, content string
	ai                        bool
	tag                       *string
}

// aiReplies returns the conversation's AI-generated messages.
func (e *env) aiReplies(conversationID string) []storedMessage {
	e.t.Helper()
	rows, err := e.db.QueryContext(e.t.Context(), `SELECT id, sender_id, message_type, content, is_ai_generated, realtime_message_id
		FROM messages WHERE conversation_id = $1 AND is_ai_generated = TRUE AND created_at > $2 ORDER BY created_at, id`,
		conversationID, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []storedMessage
	for rows.Next() {
		var m storedMessage
		if err := rows.Scan(&m.id, &m.sender, &m.kind, &m.content, &m.ai, &m.tag); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// TestAIReply answers a traveller in a sample conversation of an expert
// with AI auto-reply.
func TestAIReply(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newSampleEnv(t, engine, noonTokyo)
			ctx := t.Context()
			c := e.pickConversation(true)
			var bio, location, instructions, specialty, language, pkg, inactive string
			if err := e.db.QueryRowContext(ctx, `SELECT bio, location, ai_instructions FROM experts WHERE id = $1`, c.expertID).Scan(&bio, &location, &instructions); err != nil {
				t.Fatal(err)
			}
			if err := e.db.QueryRowContext(ctx, `SELECT specialty FROM expert_specialties WHERE expert_id = $1 ORDER BY position LIMIT 1`, c.expertID).Scan(&specialty); err != nil {
				t.Fatal(err)
			}
			if err := e.db.QueryRowContext(ctx, `SELECT language FROM expert_languages WHERE expert_id = $1 ORDER BY position LIMIT 1`, c.expertID).Scan(&language); err != nil {
				t.Fatal(err)
			}
			if err := e.db.QueryRowContext(ctx, `SELECT title FROM packages WHERE expert_id = $1 AND is_active = TRUE ORDER BY created_at DESC LIMIT 1`, c.expertID).Scan(&pkg); err != nil {
				t.Fatal(err)
			}
			if err := e.db.QueryRowContext(ctx, `SELECT title FROM packages WHERE expert_id = $1 AND is_active = FALSE LIMIT 1`, c.expertID).Scan(&inactive); err != nil && !errors.Is(err, sql.ErrNoRows) {
				t.Fatal(err)
			}
			var earlier string
			if err := e.db.QueryRowContext(ctx, `SELECT content FROM messages WHERE conversation_id = $1 AND sender_id = $2 AND content IS NOT NULL
				ORDER BY created_at DESC LIMIT 1`, c.id, c.expertUserID).Scan(&earlier); err != nil {
				t.Fatal(err)
			}
			e.device(c.touristID, "tok-traveller", "en", "")

			m := newModel(t)
			r := e.runner(m.client())
			question := "Is the tour still on if it rains tomorrow?"
			trigger := e.post(c, c.touristID, "TEXT", question, true)
			drain(t, r)

			if m.calls() != 1 {
				t.Fatalf("model called %d times; want 1", m.calls())
			}
			req := m.requests[0]
			if req.Model != "guide-model" || m.auth[0] != "Bearer sk-local" {
				t.Errorf("model %q, Authorization %q", req.Model, m.auth[0])
			}
			if len(req.Messages) < 2 || req.Messages[0].Role != "system" {
				t.Fatalf("messages: %+v", req.Messages)
			}
			system := req.Messages[0].Content
			for what, s := range map[string]string{"name": c.expertName, "bio": strings.Join(strings.Fields(bio), " "), "city": location,
				"specialty": specialty, "language": language, "package": pkg, "instructions": instructions} {
				if s == "" || !strings.Contains(system, s) {
					t.Errorf("system prompt lacks the expert's %s %q:\n%s", what, s, system)
				}
			}
			if inactive != "" && strings.Contains(system, inactive) {
				t.Errorf("system prompt offers the inactive package %q", inactive)
			}
			last := req.Messages[len(req.Messages)-1]
			if last.Role != "user" || !strings.HasSuffix(last.Content, question) {
				t.Errorf("last turn = %+v; want the traveller's question", last)
			}
			var sawEarlier bool
			for _, msg := range req.Messages[1:] {
				if msg.Role == "assistant" && strings.Contains(msg.Content, strings.TrimSpace(earlier)) {
					sawEarlier = true
				}
				if msg.Role != "user" && msg.Role != "assistant" {
					t.Errorf("turn role %q", msg.Role)
				}
			}
			if !sawEarlier {
				t.Errorf("the expert's earlier message %q is not an assistant turn: %+v", earlier, req.Messages)
			}
			if len(req.Messages) > 21 {
				t.Errorf("%d turns; want at most 20 after the system prompt", len(req.Messages)-1)
			}

			replies := e.aiReplies(c.id)
			if len(replies) != 1 {
				t.Fatalf("%d AI replies; want 1", len(replies))
			}
			reply := replies[0]
			gotReply := map[string]any{"sender": reply.sender, "kind": reply.kind, "content": reply.content, "ai": reply.ai, "tag": reply.tag}
			wantReply := map[string]any{"sender": c.expertUserID, "kind": "TEXT", "content": modelReply, "ai": true, "tag": new("ai:" + trigger)}
			if diff := cmp.Diff(wantReply, gotReply); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
			var lastMessage string
			var lastAt time.Time
			if err := e.db.QueryRowContext(ctx, `SELECT last_message, last_message_at FROM conversations WHERE id = $1`, c.id).Scan(&lastMessage, &lastAt); err != nil {
				t.Fatal(err)
			}
			if lastMessage != modelReply || lastAt.Before(e.clk.Now()) {
				t.Errorf("conversation's last message = %q at %v", lastMessage, lastAt)
			}
			// The traveller is notified of the reply.
			ds := e.gw.delivered()["tok-traveller"]
			gotNotified := map[string]any{"notifications": len(ds)}
			if len(ds) > 0 {
				gotNotified["title"], gotNotified["body"], gotNotified["messageId"] = ds[0].Title, ds[0].Body, ds[0].Data["messageId"]
			}
			wantNotified := map[string]any{"notifications": 1, "title": c.expertName, "body": modelReply, "messageId": reply.id}
			if diff := cmp.Diff(wantNotified, gotNotified); diff != "" {
				t.Errorf("traveller's notifications (-want +got):\n%s", diff)
			}

			// A second job for the same message writes no second reply.
			if err := e.q.Enqueue(ctx, e.db, guide.JobAIReply, map[string]string{"conversationId": c.id, "messageId": trigger}, e.clk.Now()); err != nil {
				t.Fatal(err)
			}
			drain(t, r)
			if n := len(e.aiReplies(c.id)); n != 1 || m.calls() != 1 {
				t.Errorf("after a duplicate job: %d replies, %d model calls; want 1, 1", n, m.calls())
			}
			if e.pending() != 0 {
				t.Errorf("pending = %d", e.pending())
			}
		})
	}
}

func TestAIReplyRetry(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, noonTokyo)
			c := e.fixture()
			m := newModel(t)
			m.respond = func(n int, w http.ResponseWriter, _ *http.Request) bool {
				if n == 1 {
					http.Error(w, `{"error":{"message":"The server had an error while processing your request."}}`, 500)
					return true
				}
				return false
			}
			r := e.runner(m.client())
			e.post(c, c.touristID, "TEXT", "Does it run in the rain?", true)
			drain(t, r)
			if m.calls() != 1 || len(e.aiReplies(c.id)) != 0 {
				t.Fatalf("after a 500: %d calls, %d replies", m.calls(), len(e.aiReplies(c.id)))
			}
			e.clk.Advance(29 * time.Second)
			drain(t, r)
			if m.calls() != 1 {
				t.Fatalf("retried before the backoff: %d calls", m.calls())
			}
			e.clk.Advance(time.Second)
			drain(t, r)
			e.clk.Advance(time.Hour)
			drain(t, r)
			if replies := e.aiReplies(c.id); m.calls() != 2 || len(replies) != 1 || replies[0].content != modelReply {
				t.Fatalf("after the retry: %d calls, replies %+v; want one reply", m.calls(), replies)
			}
			// The fixture's profile reached the model.
			system := m.requests[1].Messages[0].Content
			for _, s := range []string{fixtureExpertName, fixtureBio, "Kyoto", "Temples", "Tea ceremony", "Japanese", "English",
				"Fushimi Inari at Dawn: 12000 JPY, 3 hours", fixtureInstructions, fixtureTouristName} {
				if !strings.Contains(system, s) {
					t.Errorf("system prompt lacks %q:\n%s", s, system)
				}
			}
			if strings.Contains(system, "Retired Night Walk") {
				t.Error("system prompt offers an inactive package")
			}
			turns := m.requests[1].Messages[1:]
			want := []string{"user: Hello! Is the Fushimi Inari tour available next week?", "assistant: Yes, it is! Shall I hold a date for you?", "user: Does it run in the rain?"}
			if len(turns) != len(want) {
				t.Fatalf("turns %+v; want %q", turns, want)
			}
			for i, w := range want {
				if got := turns[i].Role + ": " + turns[i].Content; got != w {
					t.Errorf("turn %d = %q; want %q", i, got, w)
				}
			}
			if e.pending() != 0 {
				t.Errorf("pending = %d", e.pending())
			}
		})
	}
}

// TestAIReplyBurst: two messages in a row get one reply, which answers
// both.
func TestAIReplyBurst(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, noonTokyo)
			c := e.fixture()
			m := newModel(t)
			r := e.runner(m.client())
			e.post(c, c.touristID, "TEXT", "Is Saturday free?", true)
			e.clk.Advance(time.Second)
			e.post(c, c.touristID, "TEXT", "And can my kids join?", true)
			drain(t, r)
			// The two jobs may run at once and both ask the model; one
			// reply is posted all the same.
			if n := len(e.aiReplies(c.id)); n != 1 || m.calls() < 1 || m.calls() > 2 {
				t.Fatalf("%d replies, %d model calls; want 1 reply", n, m.calls())
			}
			for _, req := range m.requests {
				turns := req.Messages
				if last := turns[len(turns)-1]; last.Role != "user" || last.Content != "Is Saturday free?\n\nAnd can my kids join?" {
					t.Errorf("last turn %+v; want both messages", last)
				}
			}
			if e.pending() != 0 {
				t.Errorf("pending = %d", e.pending())
			}
		})
	}
}

func TestAIReplyNotConfigured(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, noonTokyo)
			c := e.fixture()
			r := e.runner(nil)
			e.post(c, c.touristID, "TEXT", "Hello?", true)
			drain(t, r)
			if n := len(e.aiReplies(c.id)); n != 0 {
				t.Errorf("%d AI replies without an AI client", n)
			}
			if e.pending() != 0 {
				t.Errorf("pending = %d", e.pending())
			}
		})
	}
}

func TestAIReplySkips(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			for _, tc := range []struct {
				name string
				// before runs after the traveller's message is posted and
				// before the job runs; during runs while the model thinks.
				before func(e *env, c conversation)
				during func(e *env, c conversation)
				calls  int
			}{
				{name: "auto-reply turned off", calls: 0, before: func(e *env, c conversation) {
					e.db.ExecContext(e.t.Context(), `UPDATE experts SET ai_auto_reply = FALSE WHERE id = $1`, c.expertID)
				}},
				{name: "messaging turned off", calls: 0, before: func(e *env, c conversation) {
					e.db.ExecContext(e.t.Context(), `UPDATE experts SET messaging_enabled = FALSE WHERE id = $1`, c.expertID)
				}},
				{name: "the expert answered", calls: 0, before: func(e *env, c conversation) {
					e.clk.Advance(time.Minute)
					e.post(c, c.expertUserID, "TEXT", "Hi, Haruka here in person!", false)
				}},
				{name: "the expert answered while the model was thinking", calls: 1, during: func(e *env, c conversation) {
					e.clk.Advance(time.Minute)
					e.post(c, c.expertUserID, "TEXT", "Hi, Haruka here in person!", false)
				}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					e := newEnv(t, engine, noonTokyo)
					c := e.fixture()
					m := newModel(t)
					if tc.during != nil {
						m.respond = func(n int, w http.ResponseWriter, _ *http.Request) bool { tc.during(e, c); return false }
					}
					r := e.runner(m.client())
					e.post(c, c.touristID, "TEXT", "Any space on Saturday?", true)
					if tc.before != nil {
						tc.before(e, c)
					}
					drain(t, r)
					if n := len(e.aiReplies(c.id)); n != 0 || m.calls() != tc.calls {
						t.Errorf("%d AI replies, %d model calls; want 0, %d", n, m.calls(), tc.calls)
					}
					if e.pending() != 0 {
						t.Errorf("pending = %d", e.pending())
					}
				})
			}
		})
	}
}
