package guidehttp_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

func TestConversations(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			tourist := e.register(t, "chat@example.com", "TOURIST")
			stranger := e.register(t, "nosy@example.com", "TOURIST")
			expert := e.tokenFor(t, "expert@example.com")

			// Only the expert has a device: only messages to the expert make
			// a notification job.
			e.Do("POST", "/api/push/register", map[string]any{"token": "expert-phone", "platform": "IOS"}, bearer(expert.token)...).Expect(200)
			var conv struct{ Data guide.ConversationSummary }
			e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(tourist.token)...).Expect(201).Decode(&conv)
			id := conv.Data.ID
			gotOpened := map[string]any{"expert": conv.Data.Expert.Handle, "tourist": conv.Data.Tourist.ID, "unread": conv.Data.UnreadCount,
				"lastMessageSet": conv.Data.LastMessage != nil}
			wantOpened := map[string]any{"expert": "demo-expert", "tourist": tourist.id, "unread": 0, "lastMessageSet": false}
			if diff := cmp.Diff(wantOpened, gotOpened); diff != "" {
				t.Fatalf("opened (-want +got):\n%s", diff)
			}
			var again struct{ Data guide.ConversationSummary }
			e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "DEMO-EXPERT"}, bearer(tourist.token)...).Expect(200).Decode(&again)
			if again.Data.ID != id {
				t.Fatalf("second open made another conversation")
			}

			send := func(who user, content string) guide.Message {
				var m struct{ Data guide.Message }
				e.Do("POST", "/api/v1/conversations/"+id+"/messages", map[string]any{"content": content}, bearer(who.token)...).Expect(201).Decode(&m)
				return m.Data
			}
			for i := range 3 {
				e.clock.Advance(time.Second)
				send(tourist, fmt.Sprintf("Question %d", i+1))
			}
			e.clock.Advance(time.Second)
			send(expert, "Answer 1")
			e.clock.Advance(time.Second)
			last := send(expert, "Answer 2")
			gotLast := map[string]any{"senderId": last.SenderID, "read": last.IsRead, "type": last.MessageType, "content": last.Content, "sender": last.Sender.ID}
			wantLast := map[string]any{"senderId": expert.id, "read": false, "type": "TEXT", "content": new("Answer 2"), "sender": expert.id}
			if diff := cmp.Diff(wantLast, gotLast); diff != "" {
				t.Fatalf("message (-want +got):\n%s", diff)
			}
			unread := func(who user) int {
				var u struct{ Data struct{ UnreadCount int } }
				e.Get("/api/v1/conversations/unread-count", bearer(who.token)...).Expect(200).Decode(&u)
				return u.Data.UnreadCount
			}
			if unread(tourist) != 2 || unread(expert) < 3 {
				t.Fatalf("unread: tourist %d, expert %d", unread(tourist), unread(expert))
			}
			var list struct{ Data []guide.ConversationSummary }
			e.Get("/api/v1/conversations", bearer(tourist.token)...).Expect(200).Decode(&list)
			gotList := map[string]any{"conversations": len(list.Data)}
			if len(list.Data) > 0 {
				c := list.Data[0]
				gotList["lastMessage"], gotList["unread"], gotList["lastMessageAt"] = c.LastMessage, c.UnreadCount, c.LastMessageAt
			}
			wantList := map[string]any{"conversations": 1, "lastMessage": new("Answer 2"), "unread": 2, "lastMessageAt": &last.CreatedAt}
			if diff := cmp.Diff(wantList, gotList); diff != "" {
				t.Fatalf("tourist's list (-want +got):\n%s", diff)
			}
			e.Get("/api/v1/conversations", bearer(expert.token)...).Expect(200).Decode(&list)
			if list.Data[0].ID != id || list.Data[0].UnreadCount != 3 {
				t.Fatalf("expert's list, newest activity first: %+v", list.Data[0])
			}

			var read struct{ Data struct{ MarkedCount int } }
			e.Do("POST", "/api/v1/conversations/"+id+"/read", nil, bearer(expert.token)...).Expect(200).Decode(&read)
			if read.Data.MarkedCount != 3 {
				t.Errorf("markedCount %d", read.Data.MarkedCount)
			}
			e.Do("POST", "/api/v1/conversations/"+id+"/read", nil, bearer(expert.token)...).Expect(200).Decode(&read)
			if read.Data.MarkedCount != 0 || unread(tourist) != 2 {
				t.Errorf("second read %d; the tourist's own unread changed to %d", read.Data.MarkedCount, unread(tourist))
			}
			var page struct{ Data guide.MessagePage }
			e.Get("/api/v1/conversations/"+id+"/messages", bearer(tourist.token)...).Expect(200).Decode(&page)
			ms := page.Data.Messages
			gotPage := map[string]any{"messages": len(ms), "hasMore": page.Data.HasMore, "cursorSet": page.Data.NextCursor != nil}
			if len(ms) == 5 {
				gotPage["first"], gotPage["firstRead"], gotPage["lastRead"] = ms[0].Content, ms[0].IsRead, ms[4].IsRead
			}
			wantPage := map[string]any{"messages": 5, "hasMore": false, "cursorSet": false, "first": new("Question 1"), "firstRead": true, "lastRead": false}
			if diff := cmp.Diff(wantPage, gotPage); diff != "" {
				t.Fatalf("messages (-want +got):\n%s", diff)
			}

			// A notification job is written with each message to a recipient
			// who has a device: the 3 to the expert, none to the tourist.
			if n := e.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'push.message'`); n != 3 {
				t.Errorf("%d notification jobs, want 3", n)
			}

			// Only the two participants.
			e.Get("/api/v1/conversations/"+id+"/messages", bearer(stranger.token)...).Expect(403)
			e.Do("POST", "/api/v1/conversations/"+id+"/messages", map[string]any{"content": "hi"}, bearer(stranger.token)...).Expect(403)
			e.Do("POST", "/api/v1/conversations/"+id+"/read", nil, bearer(stranger.token)...).Expect(403)
			e.Get("/api/v1/conversations/00000000-0000-7000-8000-000000000000/messages", bearer(tourist.token)...).Expect(404)
			e.Get("/api/v1/conversations", bearer(stranger.token)...).Expect(200).Decode(&list)
			if len(list.Data) != 0 {
				t.Errorf("a stranger lists %d conversations", len(list.Data))
			}
		})
	}
}

func TestConversationRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	tourist := e.register(t, "rules@example.com", "TOURIST")
	expert := e.tokenFor(t, "expert@example.com")
	var silent string
	if err := e.db.QueryRow(`SELECT u.handle FROM experts x JOIN users u ON u.id = x.user_id WHERE x.verified_at IS NOT NULL AND x.messaging_enabled = FALSE LIMIT 1`).Scan(&silent); err != nil {
		t.Fatal(err)
	}
	e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": silent}, bearer(tourist.token)...).Expect(422)
	e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(expert.token)...).Expect(422)
	e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "nobody-at-all"}, bearer(tourist.token)...).Expect(404)
	e.Do("POST", "/api/v1/conversations", map[string]string{}, bearer(tourist.token)...).Expect(400)
	e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}).Expect(401)

	// API keys never reach conversations, realtime or availability.
	key := e.apiKey(t, tourist, guide.Scopes...)
	for _, p := range []string{"/api/v1/conversations", "/api/v1/conversations/unread-count", "/api/realtime/token", "/api/expert/availability"} {
		e.Get(p, bearer(key)...).Expect(403)
	}
	e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(key)...).Expect(403)

	var conv struct{ Data guide.ConversationSummary }
	e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(tourist.token)...).Expect(201).Decode(&conv)
	path := "/api/v1/conversations/" + conv.Data.ID + "/messages"
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{}, "content"},
		{map[string]any{"content": ""}, "content"},
		{map[string]any{"content": "   "}, "content"},
		{map[string]any{"content": strings.Repeat("x", 5001)}, "content"},
		{map[string]any{"content": "hi", "messageType": "VIDEO"}, "messageType"},
		{map[string]any{"content": "not a url", "messageType": "IMAGE"}, "content"},
		{map[string]any{"content": "hi", "isRead": true}, "isRead"},
	} {
		res := e.Do("POST", path, c.body, bearer(tourist.token)...).Expect(400)
		if _, ok := res.ErrorDetails()[c.field]; !ok {
			t.Errorf("%v: details %v", c.body, res.ErrorDetails())
		}
	}
	e.Do("POST", path, map[string]any{"content": strings.Repeat("字", 5000)}, bearer(tourist.token)...).Expect(201)
	var img struct{ Data guide.Message }
	e.Do("POST", path, map[string]any{"content": "https://images.example.com/a.jpg", "messageType": "IMAGE"}, bearer(tourist.token)...).Expect(201).Decode(&img)
	if img.Data.MessageType != "IMAGE" || img.Data.ImageURL == nil || *img.Data.ImageURL != "https://images.example.com/a.jpg" {
		t.Errorf("image message: %+v", img.Data)
	}
	e.Get(path+"?limit=101", bearer(tourist.token)...).Expect(400)
	e.Get(path+"?limit=0", bearer(tourist.token)...).Expect(400)
	e.Get(path+"?cursor=00000000-0000-7000-8000-000000000000", bearer(tourist.token)...).Expect(400)

	// Messages to an expert with auto-reply ask for an AI reply.
	var ai string
	if err := e.db.QueryRow(`SELECT u.handle FROM experts x JOIN users u ON u.id = x.user_id
		WHERE x.verified_at IS NOT NULL AND x.ai_auto_reply = TRUE AND x.messaging_enabled = TRUE LIMIT 1`).Scan(&ai); err != nil {
		t.Fatal(err)
	}
	e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": ai}, bearer(tourist.token)...).Expect(201).Decode(&conv)
	e.Do("POST", "/api/v1/conversations/"+conv.Data.ID+"/messages", map[string]any{"content": "Are you free on Saturday?"}, bearer(tourist.token)...).Expect(201)
	if n := e.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'ai.reply' AND payload LIKE $1`, "%"+conv.Data.ID+"%"); n != 1 {
		t.Errorf("%d AI reply jobs", n)
	}
}

// TestMessageCursorWalk: many messages sharing one timestamp are walked
// back page by page, none skipped or repeated, oldest first in each page.
func TestMessageCursorWalk(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	tourist := e.register(t, "walker@example.com", "TOURIST")
	var conv struct{ Data guide.ConversationSummary }
	e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(tourist.token)...).Expect(201).Decode(&conv)
	path := "/api/v1/conversations/" + conv.Data.ID + "/messages"
	const total = 123
	sent := make([]string, total)
	for i := range total {
		var m struct{ Data guide.Message }
		e.Do("POST", path, map[string]any{"content": fmt.Sprint(i)}, bearer(tourist.token)...).Expect(201).Decode(&m)
		sent[i] = m.Data.ID
	}
	seen := map[string]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		var page struct{ Data guide.MessagePage }
		q := "?limit=50"
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		e.Get(path+q, bearer(tourist.token)...).Expect(200).Decode(&page)
		for i, m := range page.Data.Messages {
			if seen[m.ID] {
				t.Fatalf("message %s repeated", m.ID)
			}
			seen[m.ID] = true
			if i > 0 && m.CreatedAt.Before(page.Data.Messages[i-1].CreatedAt) {
				t.Fatal("a page is not oldest first")
			}
		}
		if !page.Data.HasMore {
			if page.Data.NextCursor != nil {
				t.Error("nextCursor on the last page")
			}
			break
		}
		cursor = *page.Data.NextCursor
		if pages > 5 {
			t.Fatal("the walk does not end")
		}
	}
	if len(seen) != total {
		t.Fatalf("walked %d messages, sent %d", len(seen), total)
	}
	for _, id := range sent {
		if !seen[id] {
			t.Fatalf("message %s skipped", id)
		}
	}
}

// TestRealtimeMessageIDRetries: a retried send, even concurrent, stores one
// message and answers the stored one with 200.
func TestRealtimeMessageIDRetries(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			tourist := e.register(t, "retry@example.com", "TOURIST")
			e.Do("POST", "/api/push/register", map[string]any{"token": "expert-phone", "platform": "IOS"}, bearer(e.tokenFor(t, "expert@example.com").token)...).Expect(200)
			var conv struct{ Data guide.ConversationSummary }
			e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(tourist.token)...).Expect(201).Decode(&conv)
			path := "/api/v1/conversations/" + conv.Data.ID + "/messages"
			body := map[string]any{"content": "Hello from the channel", "realtimeMessageId": "rt-42"}
			var first, second struct{ Data guide.Message }
			e.Do("POST", path, body, bearer(tourist.token)...).Expect(201).Decode(&first)
			e.Do("POST", path, body, bearer(tourist.token)...).Expect(200).Decode(&second)
			if first.Data.ID != second.Data.ID {
				t.Fatalf("retry returned another message")
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			statuses := map[int]int{}
			ids := map[string]bool{}
			start := make(chan struct{})
			for range 10 {
				wg.Go(func() {
					<-start
					res := e.Do("POST", path, map[string]any{"content": "Concurrent", "realtimeMessageId": "rt-43"}, bearer(tourist.token)...)
					var m struct{ Data guide.Message }
					res.Decode(&m)
					mu.Lock()
					statuses[res.Status]++
					ids[m.Data.ID] = true
					mu.Unlock()
				})
			}
			close(start)
			wg.Wait()
			if statuses[201] != 1 || statuses[200] != 9 || len(ids) != 1 {
				t.Errorf("concurrent retries: %v, %d ids", statuses, len(ids))
			}
			if n := e.count(t, `SELECT COUNT(*) FROM messages WHERE conversation_id = $1`, conv.Data.ID); n != 2 {
				t.Errorf("%d messages stored, want 2", n)
			}
			if n := e.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'push.message'`); n != 2 {
				t.Errorf("%d notification jobs, want 2", n)
			}
		})
	}
}

// TestRealtimeMessageIDIsTheSenders: the channel shows a draft's id to
// both participants; the other one recording a message under it first
// neither drops the sender's message nor answers the sender with theirs.
// Each side's retry answers its own message.
func TestRealtimeMessageIDIsTheSenders(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			tourist := e.register(t, "draft@example.com", "TOURIST")
			expert := e.tokenFor(t, "expert@example.com")
			var conv struct{ Data guide.ConversationSummary }
			e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(tourist.token)...).Expect(201).Decode(&conv)
			path := "/api/v1/conversations/" + conv.Data.ID + "/messages"
			const draft = "01a220c0-0000-7000-8000-000000000001" // the tourist's draft, as the channel showed it

			var theirs, mine, again, theirsAgain struct{ Data guide.Message }
			e.Do("POST", path, map[string]any{"content": "Sorry, fully booked.", "realtimeMessageId": draft}, bearer(expert.token)...).Expect(201).Decode(&theirs)
			e.Do("POST", path, map[string]any{"content": "Is Saturday free?", "realtimeMessageId": draft}, bearer(tourist.token)...).Expect(201).Decode(&mine)
			gotMine := map[string]any{"senderId": mine.Data.SenderID, "content": mine.Data.Content, "sameAsTheirs": mine.Data.ID == theirs.Data.ID}
			wantMine := map[string]any{"senderId": tourist.id, "content": new("Is Saturday free?"), "sameAsTheirs": false}
			if diff := cmp.Diff(wantMine, gotMine); diff != "" {
				t.Fatalf("the sender got (-want +got):\n%s", diff)
			}
			e.Do("POST", path, map[string]any{"content": "Is Saturday free?", "realtimeMessageId": draft}, bearer(tourist.token)...).Expect(200).Decode(&again)
			e.Do("POST", path, map[string]any{"content": "Sorry, fully booked.", "realtimeMessageId": draft}, bearer(expert.token)...).Expect(200).Decode(&theirsAgain)
			if again.Data.ID != mine.Data.ID || theirsAgain.Data.ID != theirs.Data.ID {
				t.Errorf("retries answered %s and %s, want %s and %s", again.Data.ID, theirsAgain.Data.ID, mine.Data.ID, theirs.Data.ID)
			}
			if n := e.count(t, `SELECT COUNT(*) FROM messages WHERE conversation_id = $1 AND realtime_message_id = $2 AND sender_id = $3
				AND content = 'Is Saturday free?'`, conv.Data.ID, draft, tourist.id); n != 1 {
				t.Errorf("%d of the sender's messages stored, want 1", n)
			}
			if n := e.count(t, `SELECT COUNT(*) FROM messages WHERE conversation_id = $1`, conv.Data.ID); n != 2 {
				t.Errorf("%d messages stored, want 2", n)
			}
		})
	}
}

func TestRealtimeTokenAndAvailability(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	tourist := e.register(t, "rt@example.com", "TOURIST")
	var rt struct {
		AppID, UserID, Token string
		ExpiresAt            time.Time
	}
	e.Get("/api/realtime/token", bearer(tourist.token)...).Expect(200).Decode(&rt)
	if rt.AppID != "test-app" || rt.UserID != tourist.id || !rt.ExpiresAt.Equal(e.clock.Now().Add(time.Hour)) {
		t.Fatalf("realtime token: %+v", rt)
	}
	var claims jwt.RegisteredClaims
	if _, err := jwt.ParseWithClaims(rt.Token, &claims, func(*jwt.Token) (any, error) { return []byte("realtime-secret-realtime-secret!"), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(e.clock.Now), jwt.WithAudience("test-app")); err != nil || claims.Subject != tourist.id {
		t.Fatalf("realtime token does not verify: %v %+v", err, claims)
	}
	e.Get("/api/realtime/token").Expect(401)

	expert := e.tokenFor(t, "expert@example.com")
	var av struct {
		ExpertID       string
		Timezone       string
		WeeklySchedule guide.WeeklySchedule
		BlockedDates   []guide.BlockedDate
	}
	e.Get("/api/expert/availability", bearer(expert.token)...).Expect(200).Decode(&av)
	if av.ExpertID == "" || av.Timezone != "Asia/Tokyo" || len(av.WeeklySchedule) == 0 {
		t.Fatalf("availability: %+v", av)
	}
	e.Get("/api/expert/availability", bearer(tourist.token)...).Expect(404)
}
