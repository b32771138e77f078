package httpx

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
)

// TestDecodeRefusesBadText: a JSON string that is not UTF-8 text without
// NUL, as a value or a key at any depth, is a VALIDATION_ERROR naming the
// field as the decoder's other errors do; valid text, escapes included,
// decodes.
func TestDecodeRefusesBadText(t *testing.T) {
	for _, tc := range []struct {
		body, field string // field "" means the body decodes
	}{
		{`{"content":"a\u0000b"}`, "content"},
		{`{"content":"\u0000"}`, "content"},
		{"{\"content\":\"a\xffb\"}", "content"},
		{"{\"content\":\"\xc3\"}", "content"},         // a truncated sequence
		{"{\"content\":\"\xed\xa0\x80\"}", "content"}, // a surrogate in UTF-8
		{"{\"content\":\"\xc0\xaf\"}", "content"},     // an overlong encoding
		{`{"content":"\ud800"}`, "content"},           // lone high surrogate
		{`{"content":"\udc00x"}`, "content"},          // lone low surrogate
		{`{"content":"\ud800\n"}`, "content"},         // high surrogate, then another escape
		{`{"content":"\ud800\u0041"}`, "content"},     // high surrogate, then no low one
		{`{"guest":{"firstName":"\u0000"}}`, "guest.firstName"},
		{`{"scopes":["bookings:read","\u0000"]}`, "scopes"}, // arrays are named by the field
		{`{"a":{"b":[{"c":1},{"c":"\u0000"}]}}`, "a.b.c"},
		{`{"a":1,"b":"\u0000"}`, "b"},
		{`{"a":{"x":[1,{"y":null}]},"b":[true,false],"c":"\u0000"}`, "c"},
		{`{"a\u0000b":"x"}`, "a\uFFFDb"}, // a bad key is named with the bad part replaced
		{"{\"\xff\":1}", "\uFFFD"},
		{`{"guest":{"\u0000":1}}`, "guest.\uFFFD"},
		{`"\u0000"`, "body"},
		{`["\u0000"]`, "body"},
		{`{"content":"\u0000"`, "content"}, // unterminated, but the bad text comes first
		// Valid text.
		{`{"content":"a\\u0000b"}`, ""}, // an escaped backslash, then "u0000"
		{`{"content":"\ud83d\ude00 \u00e9 \uFFFD é \t"}`, ""},
		{`{"content":"日本語","n":-1.5e3,"x":[{"y":"\u0041"}]}`, ""},
		{`{}`, ""},
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		var dst any
		err := Decode(httptest.NewRecorder(), r, &dst)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.body, err)
			}
			continue
		}
		var e *apperr.Error
		got := map[string]any{"apperr": errors.As(err, &e)}
		if e != nil {
			got["code"], got["named"], got["details"] = e.Code, e.Details[tc.field] != nil, len(e.Details)
		}
		want := map[string]any{"apperr": true, "code": apperr.Validation, "named": true, "details": 1}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: want VALIDATION_ERROR naming %q (-want +got):\n%s", tc.body, tc.field, diff)
		} else if e.Details[tc.field] != field.BadText && !strings.HasSuffix(e.Details[tc.field].(string), field.BadText) {
			t.Errorf("%q: reason %q", tc.body, e.Details[tc.field])
		}
	}
}

// TestRouterRefusesBadURLText: every route of a Router refuses a path
// value or a query parameter (name or value) that is not UTF-8 text
// without NUL, and a path value over field.MaxKey bytes, with a
// VALIDATION_ERROR naming it; the handler never runs.
func TestRouterRefusesBadURLText(t *testing.T) {
	rt := NewRouter()
	ran := 0
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ran++ })
	rt.Handle("GET /things/{id}", ok)
	rt.Handle("GET /files/{key...}", ok)
	rt.Handle("GET /list/{$}", ok)
	for _, tc := range []struct {
		target, field string // field "" means the handler runs
	}{
		{"/things/%00", "id"},
		{"/things/a%ffb", "id"},
		{"/things/%ed%a0%80", "id"},
		{"/things/" + strings.Repeat("a", field.MaxKey+1), "id"},
		{"/files/a/b%00c", "key"},
		{"/list/?q=%00", "q"},
		{"/things/1?city=x%00y", "city"},
		{"/things/1?city=ok&city=%ff", "city"},
		{"/things/1?ci%00ty=x", "ci\uFFFDty"},
		{"/things/1?%ff=x", "\uFFFD"},
		// Valid text.
		{"/things/" + strings.Repeat("a", field.MaxKey), ""},
		{"/things/%E6%97%A5?city=%E6%9D%B1%E4%BA%AC&page=2", ""},
		{"/files/a/b/c.webp", ""},
		{"/list/?q=caf%C3%A9", ""},
	} {
		before := ran
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, httptest.NewRequest("GET", tc.target, nil))
		if tc.field == "" {
			if rec.Code != 200 || ran != before+1 {
				t.Errorf("%s: %d %s", tc.target, rec.Code, rec.Body)
			}
			continue
		}
		var body struct {
			Error struct {
				Code    string
				Details map[string]string
			}
		}
		json.Unmarshal(rec.Body.Bytes(), &body)
		got := map[string]any{"status": rec.Code, "code": body.Error.Code, "named": body.Error.Details[tc.field] != "", "handlerRan": ran != before}
		want := map[string]any{"status": 400, "code": apperr.Validation, "named": true, "handlerRan": false}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: want 400 naming %q (-want +got):\n%s\n%s", tc.target, tc.field, diff, rec.Body)
		}
		if strings.Contains(rec.Body.String(), `\u0000`) {
			t.Errorf("%s: the answer echoes a NUL: %s", tc.target, rec.Body)
		}
	}
}

func TestPathParams(t *testing.T) {
	for pattern, want := range map[string]string{
		"GET /api/v1/experts":                  "",
		"GET /api/v1/experts/{handle}/reviews": "handle",
		"GET /media/sample/{kind}/{name}":      "kind,name",
		"GET /media/avatars/{key...}":          "key",
		"GET /docs/errors/{$}":                 "",
		"POST /portal/api/keys/{id}/rotate":    "id",
	} {
		if got := strings.Join(pathParams(pattern), ","); got != want {
			t.Errorf("%s: %q, want %q", pattern, got, want)
		}
	}
}

// BenchmarkDecode: a message body as sent, plain (the check is one scan)
// and with \u escapes (the check walks the tokens).
func BenchmarkDecode(b *testing.B) {
	for name, body := range map[string]string{
		"plain":   `{"content":"Hello! Could we meet at the station at nine? こんにちは","messageType":"TEXT","realtimeMessageId":"rt-0193a4f5"}`,
		"escaped": `{"content":"Hello! Could we meet at the station at nine? \u3053\u3093\u306b\u3061\u306f","messageType":"TEXT","realtimeMessageId":"rt-0193a4f5"}`,
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				var dst struct {
					Content           *string `json:"content"`
					MessageType       *string `json:"messageType"`
					RealtimeMessageID *string `json:"realtimeMessageId"`
				}
				r := httptest.NewRequest("POST", "/", strings.NewReader(body))
				if err := Decode(httptest.NewRecorder(), r, &dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
