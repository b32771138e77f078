package push

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The languages notifications are written in: the guide's content locales.
const (
	English            = "en"
	ChineseSimplified  = "zh"
	ChineseTraditional = "zh-TW"
	Japanese           = "ja"
	Korean             = "ko"
)

// texts are the notification strings per language.
var texts = map[string]struct {
	photo, deletedUser, newMessage string
}{
	English:            {"📷 Sent a photo", "Deleted User", "New message"},
	ChineseSimplified:  {"📷 发来一张图片", "已注销用户", "新消息"},
	ChineseTraditional: {"📷 傳送了一張相片", "已刪除的使用者", "新訊息"},
	Japanese:           {"📷 写真を送信しました", "削除されたユーザー", "新着メッセージ"},
	Korean:             {"📷 사진을 보냈습니다", "탈퇴한 사용자", "새 메시지"},
}

// Language returns the notification language for the first of the
// choices that names a supported one, as a BCP 47 tag ("zh-Hant-HK",
// "ja_JP", "ko") or as one of the supported codes; English when none does.
// Pass the device's locale first, then the account's.
func Language(choices ...string) string {
	for _, c := range choices {
		if l := supported(c); l != "" {
			return l
		}
	}
	return English
}

// supported maps a language tag to a supported language, or "".
func supported(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexAny(tag, ".@"); i >= 0 { // POSIX: ja_JP.UTF-8
		tag = tag[:i]
	}
	parts := strings.FieldsFunc(tag, func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) == 0 {
		return ""
	}
	switch parts[0] {
	case "en":
		return English
	case "ja":
		return Japanese
	case "ko":
		return Korean
	case "zh":
	default:
		return ""
	}
	// Chinese: the script decides; without one, the region.
	region := ""
	for _, p := range parts[1:] {
		if p == "x" || p == "u" || p == "t" { // extensions follow
			break
		}
		switch {
		case p == "hant":
			return ChineseTraditional
		case p == "hans":
			return ChineseSimplified
		case len(p) == 2 && region == "":
			region = p
		}
	}
	switch region {
	case "tw", "hk", "mo":
		return ChineseTraditional
	}
	return ChineseSimplified
}

// BodyRunes is the most characters of a message's text a notification
// shows.
const BodyRunes = 140

// Notice is what a notification says about a chat message.
type Notice struct {
	SenderName    string // display name; "" when unknown
	SenderDeleted bool   // the sender's account is closed
	Image         bool   // an IMAGE message
	Text          string // the message's text
}

// Render returns the notification's title, the sender's name ("Deleted
// User" once the account is closed), and its body, the message's text cut
// to BodyRunes or a line saying that a photo was sent, in lang (a
// supported language; others are English).
func (n Notice) Render(lang string) (title, body string) {
	t, ok := texts[lang]
	if !ok {
		t = texts[English]
	}
	title = strings.TrimSpace(n.SenderName)
	switch {
	case n.SenderDeleted:
		title = t.deletedUser
	case title == "":
		title = t.newMessage
	}
	text := strings.Join(strings.Fields(n.Text), " ")
	switch {
	case n.Image:
		body = t.photo
	case text == "":
		body = t.newMessage
	default:
		body = truncate(text, BodyRunes)
	}
	return title, body
}

// truncate cuts s to at most n runes, ending with "…" when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for j := range s {
		if count == n-1 {
			i = j
			break
		}
		count++
	}
	return strings.TrimRight(s[:i], " ") + "…"
}

// actionTexts are the strings of a pending action's notification per
// language: the titles, the bodies (%s is the key phrase), the phrase
// naming a key (%s is its name) and the one for a key whose name is gone.
var actionTexts = map[string]struct {
	cancelTitle, closeTitle, cancelBody, closeBody, namedKey, anyKey string
}{
	English: {"Confirm booking cancellation", "Confirm account closure",
		"%s asks to cancel one of your bookings. Nothing happens unless you confirm it in the app.",
		"%s asks to close your account. Nothing happens unless you confirm it in the app.",
		"The API key “%s”", "An API key"},
	ChineseSimplified: {"确认取消预订", "确认注销账户",
		"%s请求取消您的一项预订。除非您在应用中确认，否则不会有任何变更。",
		"%s请求注销您的账户。除非您在应用中确认，否则不会有任何变更。",
		"API 密钥“%s”", "一个 API 密钥"},
	ChineseTraditional: {"確認取消預訂", "確認刪除帳戶",
		"%s要求取消您的一筆預訂。除非您在 App 中確認，否則不會有任何變更。",
		"%s要求刪除您的帳戶。除非您在 App 中確認，否則不會有任何變更。",
		"API 金鑰「%s」", "一個 API 金鑰"},
	Japanese: {"予約キャンセルの確認", "アカウント削除の確認",
		"%sが予約のキャンセルを求めています。アプリで確認するまで何も変わりません。",
		"%sがアカウントの削除を求めています。アプリで確認するまで何も変わりません。",
		"API キー「%s」", "API キー"},
	Korean: {"예약 취소 확인", "계정 삭제 확인",
		"%s에서 예약 취소를 요청했습니다. 앱에서 확인하기 전에는 아무것도 바뀌지 않습니다.",
		"%s에서 계정 삭제를 요청했습니다. 앱에서 확인하기 전에는 아무것도 바뀌지 않습니다.",
		"API 키 '%s'", "API 키"},
}

// KeyNameRunes is the most characters of an API key's name a
// notification shows.
const KeyNameRunes = 40

// ActionNotice is what a notification says about an action an API key
// asked for, which waits for the person's confirmation.
type ActionNotice struct {
	CloseAccount bool   // closing the account; otherwise cancelling a booking
	KeyName      string // the name the person gave the key; "" when unknown
}

// Render returns the notification's title and body in lang (a supported
// language; others are English): what is asked, by which key, and that
// nothing happens without the person's confirmation.
func (n ActionNotice) Render(lang string) (title, body string) {
	t, ok := actionTexts[lang]
	if !ok {
		t = actionTexts[English]
	}
	key := t.anyKey
	if name := strings.Join(strings.Fields(n.KeyName), " "); name != "" {
		key = fmt.Sprintf(t.namedKey, truncate(name, KeyNameRunes))
	}
	if n.CloseAccount {
		return t.closeTitle, fmt.Sprintf(t.closeBody, key)
	}
	return t.cancelTitle, fmt.Sprintf(t.cancelBody, key)
}
