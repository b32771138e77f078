package guidejobs_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// noonTokyo is 12:00 in Tokyo and Seoul, 11:00 in Shanghai and Taipei.
var noonTokyo = time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC)

func TestPushPerDeviceLanguage(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newSampleEnv(t, engine, noonTokyo)
			ctx := t.Context()
			c := e.pickConversation(false)
			if _, err := e.db.ExecContext(ctx, `UPDATE users SET locale = 'ko' WHERE id = $1`, c.touristID); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{ // token: language of its notification
				"tok-ja":     "ja",    // device locale first
				"tok-hk":     "zh-TW", // zh-Hant-HK
				"tok-cn":     "zh",    // zh_CN
				"tok-en":     "en",    // en-GB
				"tok-fr":     "ko",    // unsupported device locale: the account's
				"tok-nolang": "ko",    // no device locale: the account's
			}
			e.device(c.touristID, "tok-ja", "ja-JP", "Asia/Tokyo")
			e.device(c.touristID, "tok-hk", "zh-Hant-HK", "Asia/Hong_Kong")
			e.device(c.touristID, "tok-cn", "zh_CN", "Asia/Shanghai")
			e.device(c.touristID, "tok-en", "en-GB", "")
			e.device(c.touristID, "tok-fr", "fr-FR", "Asia/Seoul")
			e.device(c.touristID, "tok-nolang", "", "")
			e.device(c.expertUserID, "tok-sender", "en", "") // the sender's own device stays silent
			photo := map[string]string{
				"en": "📷 Sent a photo", "zh": "📷 发来一张图片", "zh-TW": "📷 傳送了一張相片", "ja": "📷 写真を送信しました", "ko": "📷 사진을 보냈습니다",
			}

			r := e.runner(nil)
			image := e.post(c, c.expertUserID, "IMAGE", "", false)
			drain(t, r)
			got := e.gw.delivered()
			if len(got) != len(want) || got["tok-sender"] != nil {
				t.Fatalf("delivered to %d devices: %v; want the recipient's %d", len(got), got, len(want))
			}
			for token, lang := range want {
				ds := got[token]
				if len(ds) != 1 {
					t.Fatalf("%s got %d notifications; want 1", token, len(ds))
				}
				d := ds[0]
				if d.Title != c.expertName || d.Body != photo[lang] {
					t.Errorf("%s: %q / %q; want %q / %q (%s)", token, d.Title, d.Body, c.expertName, photo[lang], lang)
				}
				if d.Data["conversationId"] != c.id || d.Data["messageId"] != image || d.Data["senderId"] != c.expertUserID {
					t.Errorf("%s: data %v", token, d.Data)
				}
			}

			// A long text arrives cut, on the expert's device when the
			// traveller writes.
			e.device(c.expertUserID, "tok-sender", "en", "")
			long := strings.Repeat("Could we meet earlier? ", 10)
			text := e.post(c, c.touristID, "TEXT", long, false)
			drain(t, r)
			ds := e.gw.delivered()["tok-sender"]
			if len(ds) != 1 {
				t.Fatalf("expert's device got %d notifications; want 1", len(ds))
			}
			if b := ds[0].Body; utf8.RuneCountInString(b) > 140 || !strings.HasSuffix(b, "…") || !strings.HasPrefix(long, strings.TrimSuffix(b, "…")) {
				t.Errorf("body %q is not the text cut to 140 runes", b)
			}
			if ds[0].Data["messageId"] != text {
				t.Errorf("data %v", ds[0].Data)
			}
			var touristName string
			if err := e.db.QueryRowContext(ctx, `SELECT name FROM users WHERE id = $1`, c.touristID).Scan(&touristName); err != nil {
				t.Fatal(err)
			}
			if ds[0].Title != touristName {
				t.Errorf("title %q; want the traveller's name %q", ds[0].Title, touristName)
			}

			// A closed account is "Deleted User", in the device's language.
			if _, err := e.db.ExecContext(ctx, `UPDATE users SET deleted_at = $2 WHERE id = $1`, c.expertUserID, e.clk.Now()); err != nil {
				t.Fatal(err)
			}
			e.post(c, c.expertUserID, "TEXT", "Bye", false)
			drain(t, r)
			for token, title := range map[string]string{"tok-en": "Deleted User", "tok-ja": "削除されたユーザー"} {
				ds := e.gw.delivered()[token]
				if last := ds[len(ds)-1]; last.Title != title || last.Body != "Bye" {
					t.Errorf("%s: %q / %q; want %q / Bye", token, last.Title, last.Body, title)
				}
			}
			if n := e.pending(); n != 0 {
				t.Errorf("%d jobs pending", n)
			}
		})
	}
}

func TestPushQuietHours(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			// 23:30 in Tokyo, 14:30 in London, 09:30 in New York.
			start := time.Date(2026, 11, 2, 14, 30, 0, 0, time.UTC)
			e := newEnv(t, engine, start)
			c := e.fixture()
			e.device(c.touristID, "tok-tokyo", "ja", "Asia/Tokyo")
			e.device(c.touristID, "tok-london", "en-GB", "Europe/London")
			e.device(c.touristID, "tok-nozone", "en", "") // no zone, no quiet hours
			r := e.runner(nil)
			msg := e.post(c, c.expertUserID, "TEXT", "おやすみなさい", false)
			drain(t, r)
			got := e.gw.delivered()
			if len(got["tok-london"]) != 1 || len(got["tok-nozone"]) != 1 || len(got["tok-tokyo"]) != 0 {
				t.Fatalf("at 23:30 in Tokyo: %v; want London and the device without a zone only", got)
			}
			if e.pending() != 1 {
				t.Fatalf("pending = %d; want Tokyo's delivery", e.pending())
			}

			// 07:59:59 in Tokyo: still quiet.
			e.clk.Advance(8*time.Hour + 29*time.Minute + 59*time.Second)
			drain(t, r)
			if n := len(e.gw.delivered()["tok-tokyo"]); n != 0 {
				t.Fatalf("Tokyo got %d before 08:00", n)
			}
			// 08:00 in Tokyo: exactly one.
			e.clk.Advance(time.Second)
			drain(t, r)
			e.clk.Advance(time.Hour)
			drain(t, r)
			ds := e.gw.delivered()["tok-tokyo"]
			if len(ds) != 1 || ds[0].Body != "おやすみなさい" || ds[0].Data["messageId"] != msg {
				t.Fatalf("Tokyo after 08:00: %v; want the message once", ds)
			}
			if n := len(e.gw.delivered()["tok-london"]); n != 1 {
				t.Errorf("London got %d", n)
			}
			var attempts int
			if err := e.db.QueryRowContext(t.Context(), `SELECT attempts FROM jobs WHERE kind = $1 AND done_at IS NOT NULL
				AND CAST(payload AS TEXT) LIKE '%tok-tokyo%'`, guide.JobPushDevice).Scan(&attempts); err != nil {
				t.Fatal(err)
			}
			if attempts != 1 {
				t.Errorf("the deferred delivery took %d attempts; quiet hours are not failures", attempts)
			}
			if e.pending() != 0 {
				t.Errorf("pending = %d", e.pending())
			}
		})
	}
}

func TestPushDeadToken(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, noonTokyo)
			ctx := t.Context()
			c := e.fixture()
			e.device(c.touristID, "tok-dead", "en", "")
			e.device(c.touristID, "tok-live", "en", "")
			e.gw.respond = func(token string, n int) (int, string) {
				if token == "tok-dead" {
					return 404, `{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND",
						"details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}`
				}
				return 200, `{}`
			}
			r := e.runner(nil)
			e.post(c, c.expertUserID, "TEXT", "one", false)
			drain(t, r)
			var n int
			if err := e.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM push_tokens WHERE token = 'tok-dead'`).Scan(&n); err != nil || n != 0 {
				t.Fatalf("dead token rows = %d, %v; want it removed", n, err)
			}
			e.post(c, c.expertUserID, "TEXT", "two", false)
			drain(t, r)
			if got := e.gw.delivered(); len(got["tok-live"]) != 2 {
				t.Errorf("live device got %d; want 2", len(got["tok-live"]))
			}
			if got := e.gw.requests(); got != 3 {
				t.Errorf("gateway saw %d requests; want 3 (the dead token once)", got)
			}
			if e.pending() != 0 {
				t.Errorf("pending = %d", e.pending())
			}
		})
	}
}

func TestPushRetries(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, noonTokyo)
			ctx := t.Context()
			c := e.fixture()
			e.device(c.touristID, "tok-flaky", "en", "")
			e.device(c.touristID, "tok-limited", "en", "")
			e.gw.respond = func(token string, n int) (int, string) {
				switch {
				case token == "tok-flaky" && n <= 2:
					return 503, `{"error":{"code":503,"status":"UNAVAILABLE"}}`
				case token == "tok-limited" && n == 1:
					return 429, `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}`
				}
				return 200, `{}`
			}
			// Retry-After is honoured when longer than the backoff.
			e.gw.retryAfter = map[string]string{"tok-limited": "300"}
			r := e.runner(nil)
			e.post(c, c.expertUserID, "TEXT", "hello", false)
			drain(t, r)
			count := func(token string) int { return len(e.gw.delivered()[token]) }
			if count("tok-flaky") != 0 || e.gw.requests() != 2 {
				t.Fatalf("after the first attempts: %v", e.gw.delivered())
			}
			steps := []struct {
				advance       time.Duration
				flaky, lim    int
				requestsAfter int
			}{
				{29 * time.Second, 0, 0, 2},  // backoff: 30s
				{time.Second, 0, 0, 3},       // second attempt fails too
				{59 * time.Second, 0, 0, 3},  // backoff: 1m
				{time.Second, 1, 0, 4},       // third attempt succeeds
				{209 * time.Second, 1, 0, 4}, // 4:59 after the first attempt
				{time.Second, 1, 1, 5},       // the rate-limited device after 5 minutes
				{time.Hour, 1, 1, 5},
			}
			for i, s := range steps {
				e.clk.Advance(s.advance)
				drain(t, r)
				if count("tok-flaky") != s.flaky || count("tok-limited") != s.lim || e.gw.requests() != s.requestsAfter {
					t.Fatalf("step %d: flaky %d, limited %d, requests %d; want %d, %d, %d",
						i, count("tok-flaky"), count("tok-limited"), e.gw.requests(), s.flaky, s.lim, s.requestsAfter)
				}
			}
			var attempts int
			var lastError string
			if err := e.db.QueryRowContext(ctx, `SELECT attempts, last_error FROM jobs WHERE kind = $1 AND last_error LIKE '%503%'`,
				guide.JobPushDevice).Scan(&attempts, &lastError); err != nil {
				t.Fatal(err)
			}
			if attempts != 3 {
				t.Errorf("attempts = %d; want 3", attempts)
			}
			if e.pending() != 0 {
				t.Errorf("pending = %d", e.pending())
			}
		})
	}
}

func TestPushGivesUp(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, noonTokyo)
			ctx := t.Context()
			c := e.fixture()
			e.device(c.touristID, "tok-down", "en", "")
			e.device(c.touristID, "tok-refused", "en", "")
			e.gw.respond = func(token string, n int) (int, string) {
				if token == "tok-down" {
					return 500, `internal error`
				}
				return 403, `{"error":{"code":403,"status":"PERMISSION_DENIED","message":"SenderId mismatch"}}`
			}
			r := e.runner(nil)
			e.post(c, c.expertUserID, "TEXT", "hello", false)
			for range 12 {
				drain(t, r)
				e.clk.Advance(time.Hour)
			}
			e.gw.mu.Lock()
			down, refused := e.gw.perTok["tok-down"], e.gw.perTok["tok-refused"]
			e.gw.mu.Unlock()
			if down != jobs.DefaultMaxAttempts || refused != 1 {
				t.Errorf("requests: down %d, refused %d; want %d and 1", down, refused, jobs.DefaultMaxAttempts)
			}
			rows, err := e.db.QueryContext(ctx, `SELECT attempts, last_error FROM jobs WHERE kind = $1 AND done_at IS NOT NULL ORDER BY attempts`, guide.JobPushDevice)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var got []string
			for rows.Next() {
				var a int
				var le string
				if err := rows.Scan(&a, &le); err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%d %s", a, le))
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || !strings.HasPrefix(got[0], "1 push gateway: HTTP 403") || !strings.HasPrefix(got[1], "8 push gateway: HTTP 500") {
				t.Errorf("finished jobs: %q", got)
			}
			if e.pending() != 0 {
				t.Errorf("pending = %d", e.pending())
			}
		})
	}
}

// TestPushTwoRunners: two runners on two handles of one database deliver
// every notification exactly once.
func TestPushTwoRunners(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, engine, noonTokyo)
			c := e.fixture()
			e.device(c.touristID, "tok-t1", "en", "")
			e.device(c.touristID, "tok-t2", "ja", "Asia/Tokyo")
			e.device(c.expertUserID, "tok-e1", "zh-TW", "Asia/Taipei")
			e.device(c.expertUserID, "tok-e2", "ko", "")
			const messages = 20
			ids := map[string]bool{}
			for i := range messages {
				sender := c.touristID
				if i%2 == 1 {
					sender = c.expertUserID
				}
				ids[e.post(c, sender, "TEXT", fmt.Sprintf("message %d", i), false)] = true
			}
			second := e.secondHandle()
			runners := []*jobs.Runner{e.runner(nil), e.runnerOn(store.NewJobs(second, e.clk), guidedb.New(second, e.clk), nil)}
			for _, r := range runners {
				r.Concurrency = 3
			}
			var wg sync.WaitGroup
			for i, r := range runners {
				for range 2 {
					wg.Go(func() {
						for range 2000 {
							if _, err := r.RunOnce(t.Context()); err != nil {
								t.Errorf("runner %d: %v", i, err)
								return
							}
							if e.pending() == 0 {
								return
							}
						}
						t.Errorf("runner %d: jobs left", i)
					})
				}
			}
			wg.Wait()
			seen := map[string]int{}
			for token, ds := range e.gw.delivered() {
				for _, d := range ds {
					if !ids[d.Data["messageId"]] {
						t.Fatalf("unknown message %v", d.Data)
					}
					seen[token+" "+d.Data["messageId"]]++
				}
			}
			if len(seen) != messages*2 {
				t.Errorf("%d distinct deliveries; want %d", len(seen), messages*2)
			}
			for k, n := range seen {
				if n != 1 {
					t.Errorf("%s delivered %d times", k, n)
				}
			}
			if e.gw.requests() != messages*2 {
				t.Errorf("gateway saw %d requests; want %d", e.gw.requests(), messages*2)
			}
		})
	}
}
