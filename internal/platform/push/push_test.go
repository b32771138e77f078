package push_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/push"
)

func TestLanguage(t *testing.T) {
	for _, tc := range []struct {
		choices []string
		want    string
	}{
		{[]string{"en-US"}, "en"},
		{[]string{"en_GB", "ja"}, "en"},
		{[]string{"ja-JP"}, "ja"},
		{[]string{"ja_JP.UTF-8"}, "ja"},
		{[]string{"ko-KR", "en"}, "ko"},
		{[]string{"zh"}, "zh"},
		{[]string{"zh-CN"}, "zh"},
		{[]string{"zh-SG"}, "zh"},
		{[]string{"zh-Hans"}, "zh"},
		{[]string{"zh-Hans-HK"}, "zh"},
		{[]string{"zh-TW"}, "zh-TW"},
		{[]string{"zh_TW"}, "zh-TW"},
		{[]string{"zh-HK"}, "zh-TW"},
		{[]string{"zh-MO"}, "zh-TW"},
		{[]string{"zh-Hant"}, "zh-TW"},
		{[]string{"zh-Hant-CN"}, "zh-TW"},
		{[]string{"ZH-hant-tw"}, "zh-TW"},
		{[]string{"fr-FR", "zh-TW"}, "zh-TW"},    // unknown device locale: the account's
		{[]string{"", "ko"}, "ko"},               // no device locale
		{[]string{"de", "pt-BR"}, "en"},          // nothing supported
		{nil, "en"},                              // nothing at all
		{[]string{"english", "x-klingon"}, "en"}, // not tags of ours: English as the last resort
	} {
		if got := push.Language(tc.choices...); got != tc.want {
			t.Errorf("Language(%q) = %q; want %q", tc.choices, got, tc.want)
		}
	}
}

func TestNoticeRender(t *testing.T) {
	long := strings.Repeat("京都の紅葉は見頃です。", 20) // 220 runes
	for _, tc := range []struct {
		name        string
		n           push.Notice
		lang        string
		title, body string
	}{
		{"text", push.Notice{SenderName: "Sato Haruka", Text: "See you at  the\ngate!"}, "en", "Sato Haruka", "See you at the gate!"},
		{"photo en", push.Notice{SenderName: "Kim Min-jun", Image: true}, "en", "Kim Min-jun", "📷 Sent a photo"},
		{"photo zh", push.Notice{SenderName: "王梅", Image: true}, "zh", "王梅", "📷 发来一张图片"},
		{"photo zh-TW", push.Notice{SenderName: "林怡廷", Image: true}, "zh-TW", "林怡廷", "📷 傳送了一張相片"},
		{"photo ja", push.Notice{SenderName: "佐藤", Image: true}, "ja", "佐藤", "📷 写真を送信しました"},
		{"photo ko", push.Notice{SenderName: "김민준", Image: true}, "ko", "김민준", "📷 사진을 보냈습니다"},
		{"deleted", push.Notice{SenderName: "Old Name", SenderDeleted: true, Text: "hi"}, "en", "Deleted User", "hi"},
		{"deleted ja", push.Notice{SenderDeleted: true, Text: "hi"}, "ja", "削除されたユーザー", "hi"},
		{"empty text", push.Notice{SenderName: "A"}, "ko", "A", "새 메시지"},
		{"unknown language", push.Notice{SenderName: "A", Image: true}, "fr", "A", "📷 Sent a photo"},
	} {
		title, body := tc.n.Render(tc.lang)
		if title != tc.title || body != tc.body {
			t.Errorf("%s: Render = %q, %q; want %q, %q", tc.name, title, body, tc.title, tc.body)
		}
	}
	_, body := push.Notice{SenderName: "A", Text: long}.Render("ja")
	if n := utf8.RuneCountInString(body); n != push.BodyRunes || !strings.HasSuffix(body, "…") || !strings.HasPrefix(long, strings.TrimSuffix(body, "…")) {
		t.Errorf("long body: %d runes %q", n, body)
	}
	exact := strings.Repeat("a", push.BodyRunes)
	if _, body := (push.Notice{Text: exact}).Render("en"); body != exact {
		t.Errorf("a body of exactly %d runes was cut: %q", push.BodyRunes, body)
	}
}

func TestActionNoticeRender(t *testing.T) {
	for _, tc := range []struct {
		name        string
		n           push.ActionNotice
		lang        string
		title, body string
	}{
		{"cancel en", push.ActionNotice{KeyName: "trip  agent\n"}, "en", "Confirm booking cancellation",
			"The API key “trip agent” asks to cancel one of your bookings. Nothing happens unless you confirm it in the app."},
		{"close en", push.ActionNotice{CloseAccount: true, KeyName: "trip agent"}, "en", "Confirm account closure",
			"The API key “trip agent” asks to close your account. Nothing happens unless you confirm it in the app."},
		{"key gone", push.ActionNotice{}, "en", "Confirm booking cancellation",
			"An API key asks to cancel one of your bookings. Nothing happens unless you confirm it in the app."},
		{"cancel ja", push.ActionNotice{KeyName: "旅行エージェント"}, "ja", "予約キャンセルの確認",
			"API キー「旅行エージェント」が予約のキャンセルを求めています。アプリで確認するまで何も変わりません。"},
		{"close zh", push.ActionNotice{CloseAccount: true, KeyName: "助手"}, "zh", "确认注销账户",
			"API 密钥“助手”请求注销您的账户。除非您在应用中确认，否则不会有任何变更。"},
		{"cancel zh-TW", push.ActionNotice{KeyName: "助理"}, "zh-TW", "確認取消預訂",
			"API 金鑰「助理」要求取消您的一筆預訂。除非您在 App 中確認，否則不會有任何變更。"},
		{"close ko", push.ActionNotice{CloseAccount: true}, "ko", "계정 삭제 확인",
			"API 키에서 계정 삭제를 요청했습니다. 앱에서 확인하기 전에는 아무것도 바뀌지 않습니다."},
		{"unknown language", push.ActionNotice{}, "fr", "Confirm booking cancellation",
			"An API key asks to cancel one of your bookings. Nothing happens unless you confirm it in the app."},
	} {
		title, body := tc.n.Render(tc.lang)
		if title != tc.title || body != tc.body {
			t.Errorf("%s: Render = %q, %q; want %q, %q", tc.name, title, body, tc.title, tc.body)
		}
	}
	// A long name is cut: the key's name is the person's own text, but the
	// sentence around it must stay readable.
	_, body := push.ActionNotice{KeyName: strings.Repeat("x", 100)}.Render("en")
	if want := "“" + strings.Repeat("x", push.KeyNameRunes-1) + "…”"; !strings.Contains(body, want) {
		t.Errorf("long key name: %q", body)
	}
}

func TestQuietUntil(t *testing.T) {
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UTC()
	}
	for _, tc := range []struct {
		name, zone, now string
		quiet           bool
		until           string // RFC 3339
	}{
		{"Tokyo 23:30", "Asia/Tokyo", "2026-11-02T23:30:00+09:00", true, "2026-11-03T08:00:00+09:00"},
		{"Tokyo 22:00 sharp", "Asia/Tokyo", "2026-11-02T22:00:00+09:00", true, "2026-11-03T08:00:00+09:00"},
		{"Tokyo 21:59", "Asia/Tokyo", "2026-11-02T21:59:59+09:00", false, ""},
		{"Tokyo 03:00", "Asia/Tokyo", "2026-11-03T03:00:00+09:00", true, "2026-11-03T08:00:00+09:00"},
		{"Tokyo 07:59", "Asia/Tokyo", "2026-11-03T07:59:59+09:00", true, "2026-11-03T08:00:00+09:00"},
		{"Tokyo 08:00 sharp", "Asia/Tokyo", "2026-11-03T08:00:00+09:00", false, ""},
		{"Tokyo noon", "Asia/Tokyo", "2026-11-03T12:00:00+09:00", false, ""},
		{"Seoul new year", "Asia/Seoul", "2026-12-31T23:10:00+09:00", true, "2027-01-01T08:00:00+09:00"},
		{"Shanghai month end", "Asia/Shanghai", "2026-11-30T22:30:00+08:00", true, "2026-12-01T08:00:00+08:00"},
		{"Kolkata half hour", "Asia/Kolkata", "2026-11-02T22:15:00+05:30", true, "2026-11-03T08:00:00+05:30"},
		{"Kathmandu quarter hour", "Asia/Kathmandu", "2026-11-02T07:50:00+05:45", true, "2026-11-02T08:00:00+05:45"},
		// New York springs forward at 02:00 on 8 March 2026: the night is
		// an hour shorter.
		{"New York spring forward", "America/New_York", "2026-03-07T23:00:00-05:00", true, "2026-03-08T08:00:00-04:00"},
		// ... and falls back at 02:00 on 1 November 2026: an hour longer.
		{"New York fall back", "America/New_York", "2026-10-31T23:00:00-04:00", true, "2026-11-01T08:00:00-05:00"},
		{"New York repeated hour", "America/New_York", "2026-11-01T01:30:00-05:00", true, "2026-11-01T08:00:00-05:00"},
		{"London spring forward", "Europe/London", "2026-03-29T00:30:00+00:00", true, "2026-03-29T08:00:00+01:00"},
		{"Sydney summer ends", "Australia/Sydney", "2026-04-04T22:00:00+11:00", true, "2026-04-05T08:00:00+10:00"},
		{"Chatham", "Pacific/Chatham", "2026-11-02T23:59:00+13:45", true, "2026-11-03T08:00:00+13:45"},
		{"UTC", "UTC", "2026-11-02T22:00:00Z", true, "2026-11-03T08:00:00Z"},
		{"no zone", "", "2026-11-02T23:00:00Z", false, ""},
		{"unknown zone", "Mars/Olympus_Mons", "2026-11-02T23:00:00Z", false, ""},
	} {
		until, quiet := push.QuietUntil(utc(tc.now), tc.zone)
		if quiet != tc.quiet {
			t.Errorf("%s: quiet = %v; want %v", tc.name, quiet, tc.quiet)
			continue
		}
		if tc.quiet && !until.Equal(utc(tc.until)) {
			t.Errorf("%s: until %v; want %v", tc.name, until, utc(tc.until))
		}
		if tc.quiet && !until.After(utc(tc.now)) {
			t.Errorf("%s: quiet hours end before now", tc.name)
		}
	}
}

type gatewayRequest struct {
	Message struct {
		Token        string `json:"token"`
		Notification struct {
			Title string `json:"title"`
			Body  string `json:"body"`
		} `json:"notification"`
		Data    map[string]string `json:"data"`
		Android struct {
			Priority string `json:"priority"`
		} `json:"android"`
		APNS struct {
			Payload struct {
				APS struct {
					Sound string `json:"sound"`
				} `json:"aps"`
			} `json:"payload"`
		} `json:"apns"`
	} `json:"message"`
}

func TestHTTPSenderRequest(t *testing.T) {
	var got gatewayRequest
	var raw map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &got); err != nil {
			t.Error(err)
		}
		json.Unmarshal(b, &raw)
		w.Write([]byte(`{"name":"projects/p/messages/1"}`))
	}))
	defer srv.Close()
	s := &push.HTTPSender{URL: srv.URL + "/v1/projects/p/messages:send"}
	err := s.Send(t.Context(), push.Message{Token: "tok-1", Platform: "IOS", Title: "Sato", Body: "Hello",
		Data: map[string]string{"conversationId": "c1", "messageId": "m1"}})
	if err != nil {
		t.Fatal(err)
	}
	m := got.Message
	gotMsg := map[string]string{
		"token": m.Token, "title": m.Notification.Title, "body": m.Notification.Body,
		"conversationId": m.Data["conversationId"], "messageId": m.Data["messageId"],
		"android priority": m.Android.Priority, "apns sound": m.APNS.Payload.APS.Sound,
	}
	wantMsg := map[string]string{
		"token": "tok-1", "title": "Sato", "body": "Hello",
		"conversationId": "c1", "messageId": "m1",
		"android priority": "high", "apns sound": "default",
	}
	if diff := cmp.Diff(wantMsg, gotMsg); diff != "" {
		t.Fatalf("gateway message (-want +got):\n%s", diff)
	}
	if len(raw) != 1 || raw["message"] == nil {
		t.Fatalf("body is not {\"message\": ...}: %v", raw)
	}
}

func TestHTTPSenderAnswers(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		gone       bool
		retriable  bool
		retryAfter time.Duration
	}{
		{"ok", 200, nil, `{}`, false, false, 0},
		{"unregistered", 404, nil, `{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}`, true, false, 0},
		{"unregistered status", 400, nil, `{"error":{"code":400,"status":"UNREGISTERED"}}`, true, false, 0},
		{"invalid token", 400, nil, `{"error":{"code":400,"message":"The registration token is not a valid FCM registration token","status":"INVALID_ARGUMENT"}}`, true, false, 0},
		{"invalid token field", 400, nil, `{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.token","description":"Invalid registration token"}]}]}}`, true, false, 0},
		{"gone", 410, nil, ``, true, false, 0},
		{"gone with body", 410, nil, `{"error":{"code":410,"status":"UNREGISTERED"}}`, true, false, 0},
		{"invalid data", 400, nil, `{"error":{"code":400,"message":"Invalid value at 'message.data[0].value'","status":"INVALID_ARGUMENT"}}`, false, false, 0},
		{"bare 404: wrong URL, keep the token", 404, nil, `404 page not found`, false, false, 0},
		{"unauthenticated", 401, nil, `{"error":{"code":401,"status":"UNAUTHENTICATED"}}`, false, false, 0},
		{"rate limited", 429, map[string]string{"Retry-After": "120"}, `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}`, false, true, 2 * time.Minute},
		{"unavailable", 503, nil, `{"error":{"code":503,"status":"UNAVAILABLE"}}`, false, true, 0},
		{"internal", 500, nil, `oops`, false, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			err := (&push.HTTPSender{URL: srv.URL}).Send(t.Context(), push.Message{Token: "t", Title: "x", Body: "y"})
			if tc.status == 200 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, push.ErrTokenGone) != tc.gone {
				t.Errorf("ErrTokenGone = %v; want %v (%v)", !tc.gone, tc.gone, err)
			}
			if push.Retriable(err) != tc.retriable {
				t.Errorf("Retriable = %v; want %v (%v)", !tc.retriable, tc.retriable, err)
			}
			if got := push.RetryAfter(err); got != tc.retryAfter {
				t.Errorf("RetryAfter = %v; want %v", got, tc.retryAfter)
			}
		})
	}
}

func TestHTTPSenderNetworkErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	url := srv.URL
	srv.Close()
	err := (&push.HTTPSender{URL: url}).Send(t.Context(), push.Message{Token: "t"})
	if err == nil || !push.Retriable(err) || errors.Is(err, push.ErrTokenGone) {
		t.Fatalf("closed gateway: %v; want a retriable error", err)
	}

	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(block)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err = (&push.HTTPSender{URL: slow.URL}).Send(ctx, push.Message{Token: "t"})
	if err == nil || !push.Retriable(err) {
		t.Fatalf("timeout: %v; want a retriable error", err)
	}

	if err := (&push.HTTPSender{}).Send(t.Context(), push.Message{Token: "t"}); err == nil || push.Retriable(err) {
		t.Fatalf("no URL: %v; want a permanent error", err)
	}
}

func TestLogSender(t *testing.T) {
	if err := (push.LogSender{}).Send(t.Context(), push.Message{Token: "abcdefghijklmnop", Title: "t", Body: "b"}); err != nil {
		t.Fatal(err)
	}
}
