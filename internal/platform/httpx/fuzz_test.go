package httpx

import (
	"encoding/json"
	"maps"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
)

// FuzzDecode: any body either decodes or yields a VALIDATION_ERROR,
// PAYLOAD_TOO_LARGE or UNSUPPORTED_MEDIA_TYPE; never a panic, never
// another error. What decodes was valid UTF-8 and holds no NUL.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"email":"a@example.com","password":"12345678"}`, `{}`, `[]`, `null`, ``, `{"email":5}`,
		`{"email":"a"} {"x":1}`, `{"unknown":true}`, `{"nested":{"a":[1,2,{"b":null}]}}`,
		strings.Repeat("[", 10000), `{"email":"\ud800"}`, "{\"email\":\"\x00\"}", `{"email":"a","email":"b"}`,
		`{"email":"a\u0000b"}`, "{\"email\":\"\xff\"}", `{"nested":{"a\u0000":1}}`, `{"nested":{"a":["\udc00"]}}`,
		`{"name":"\ud83d\ude00"}`, `{"name":"\\u0000"}`, `{"name":"\ud800\u0041"}`, "{\"nested\":{\"\xc3\":2}}",
	} {
		f.Add(seed, "application/json")
	}
	f.Add(`{}`, "multipart/form-data; boundary=x")
	f.Add(`{}`, "text/plain")
	f.Fuzz(func(t *testing.T, body, contentType string) {
		var dst struct {
			Email    *string                `json:"email"`
			Password *string                `json:"password"`
			Nested   map[string]any         `json:"nested"`
			Count    *int                   `json:"count"`
			Name     field.Optional[string] `json:"name"`
		}
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		err := Decode(httptest.NewRecorder(), r, &dst)
		if err == nil {
			var back any
			out, _ := json.Marshal(dst)
			json.Unmarshal(out, &back)
			if !utf8.ValidString(body) || hasNUL(back) {
				t.Fatalf("body %q decoded to %s", body, out)
			}
			return
		}
		switch code := apperr.Code(err); code {
		case apperr.Validation, apperr.TooLarge, apperr.MediaType:
		default:
			t.Fatalf("body %q: error %v (code %s)", body, err, code)
		}
	})
}

// hasNUL reports whether a decoded JSON value holds a NUL in a string or key.
func hasNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, "\x00")
	case []any:
		return slices.ContainsFunc(v, hasNUL)
	case map[string]any:
		for k, e := range v {
			if hasNUL(k) || hasNUL(e) {
				return true
			}
		}
	}
	return false
}

// FuzzQuery: query parsing never panics and returns values within bounds.
func FuzzQuery(f *testing.F) {
	for _, seed := range []string{"page=1&pageSize=20", "page=0", "pageSize=101", "page=-9223372036854775808", "order=UP", "page=1e3", "page=%ff", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q := NewQuery(v)
		page := q.Int("page", 1, 1, 1000000)
		size := q.Int("pageSize", 20, 1, 100)
		order := q.Enum("order", "desc", []string{"asc", "desc"})
		got := map[string]bool{
			"page in range": page >= 1 && page <= 1000000,
			"size in range": size >= 1 && size <= 100,
			"order known":   order == "asc" || order == "desc",
		}
		want := map[string]bool{"page in range": true, "size in range": true, "order known": true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q: page %d size %d order %q (-want +got):\n%s", raw, page, size, order, diff)
		}
	})
}

// FuzzBearerToken: any Authorization header is parsed without panicking,
// and a value is returned only for the Bearer scheme, bounded in length.
func FuzzBearerToken(f *testing.F) {
	for _, seed := range []string{"Bearer abc", "bearer pk_live_x", "Basic dXNlcjpw", "Bearer", "Bearer  ", "Bearer a b c", "\x00", "Bearer " + string(make([]byte, 5000))} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, h string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header["Authorization"] = []string{h}
		v, ok, err := BearerToken(r)
		if err == nil && ok && (v == "" || len(v) > MaxCredential) {
			t.Fatalf("%q: accepted %q", h, v)
		}
	})
}

// FuzzQueryText: checkQueryText names the same offending parameters as
// a check of url.ParseQuery's map of the same query.
func FuzzQueryText(f *testing.F) {
	for _, seed := range []string{"page=1&pageSize=20", "q=%00", "%00=1", "q=%ff&q=ok", "a;b=1&c=%zz&d=%00", "=&&=x&%C3%A9=%E2%82%AC", "a+b=c+d", "x=%00&x=%00&%00=%00", "x;y=%00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := apperr.FieldErrors{}
		checkQueryText(raw, got)
		want := map[string]bool{}
		query, _ := url.ParseQuery(raw)
		for name, values := range query {
			if !field.IsText(name) {
				want[fieldName(name)] = true
				continue
			}
			for _, v := range values {
				if !field.IsText(v) {
					want[name] = true
				}
			}
		}
		named := map[string]bool{}
		for k := range got {
			named[k] = true
		}
		if !maps.Equal(named, want) {
			t.Fatalf("%q: checkQueryText names %v, ParseQuery's map %v", raw, got, want)
		}
	})
}
