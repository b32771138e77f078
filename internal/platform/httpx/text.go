package httpx

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
)

// Text from the caller must be UTF-8 without NUL: PostgreSQL refuses NUL
// in text (an error that would become a 500), SQLite would store it, and
// invalid UTF-8 would be kept or mangled. It is refused at the door, before
// any handler runs a query with it: the path values and query parameters
// of every route by the router (checkURLText), JSON strings, keys
// included, by Decode (checkJSONText).

// fieldName makes a caller's name of a field (a query parameter or a JSON
// key that is itself bad text) fit to name in details.
func fieldName(s string) string {
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", "\uFFFD"), "\uFFFD")
}

var wildcard = regexp.MustCompile(`\{([^}]*)\}`)

// pathParams returns the names of the wildcards of a route pattern.
func pathParams(pattern string) []string {
	var names []string
	for _, m := range wildcard.FindAllStringSubmatch(pattern, -1) {
		if name := strings.TrimSuffix(m[1], "..."); name != "$" {
			names = append(names, name)
		}
	}
	return names
}

// checkURLText wraps the handler of a route whose wildcards are params:
// every path value and every query parameter, name and value, must be
// valid text, and a path value at most field.MaxKey bytes; otherwise the
// answer is a VALIDATION_ERROR naming each offender, and h never runs.
func (rt *Router) checkURLText(params []string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		errs := apperr.FieldErrors{}
		for _, name := range params {
			switch v := r.PathValue(name); {
			case !field.IsText(v):
				errs.Add(name, field.BadText)
			case len(v) > field.MaxKey:
				errs.Add(name, "must be at most "+strconv.Itoa(field.MaxKey)+" bytes")
			}
		}
		checkQueryText(r.URL.RawQuery, errs)
		if err := errs.Err(); err != nil {
			rt.answer(w, r, func(http.ResponseWriter, *http.Request) error { return err })
			return
		}
		h.ServeHTTP(w, r)
	})
}

// checkJSONText returns a VALIDATION_ERROR naming the first string of the
// JSON document b, object key or value at any depth, that is not valid
// text: invalid UTF-8 bytes, a \u0000 escape, or a lone surrogate escape
// (which encoding/json would silently turn into U+FFFD). Fields are named
// as the decoder's own errors name them: object keys joined by dots, array
// elements by their array, "body" for the document itself. Malformed JSON
// is left to the decoder to report.
func checkJSONText(b []byte) error {
	// Only a \u escape or a byte outside UTF-8 can make bad text (a raw NUL
	// is a syntax error); most bodies have neither and need no walk.
	if utf8.Valid(b) && !bytes.Contains(b, []byte(`\u`)) {
		return nil
	}
	type container struct {
		object    bool
		expectKey bool
		path      string // "" for the document itself
		key       string // the key whose value is being read
	}
	var stack []*container
	join := func(path, key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	// valuePath names the value about to be read.
	valuePath := func() string {
		if len(stack) == 0 {
			return ""
		}
		if c := stack[len(stack)-1]; c.object {
			return join(c.path, c.key)
		}
		return stack[len(stack)-1].path
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var prev int64
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or malformed JSON: the decoder reports it
		}
		end := dec.InputOffset()
		literal := b[prev:end] // separators, then the token
		prev = end
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				stack = append(stack, &container{object: t == '{', expectKey: t == '{', path: valuePath()})
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			literal = literal[bytes.IndexByte(literal, '"'):]
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
				c := stack[n-1]
				if !validLiteral(literal) {
					return apperr.Field(fieldName(join(c.path, t)), "is not a valid field name: "+field.BadText)
				}
				c.key, c.expectKey = t, false
				continue
			}
			if !validLiteral(literal) {
				name := valuePath()
				if name == "" {
					name = "body"
				}
				return apperr.Field(name, field.BadText)
			}
		}
		// A value is complete.
		if len(stack) == 0 {
			return nil
		}
		if c := stack[len(stack)-1]; c.object {
			c.expectKey = true
		}
	}
}

// validLiteral reports whether a JSON string literal, quotes included,
// stands for valid text: UTF-8 bytes, no \u0000, no lone surrogate. The
// decoder has already checked its syntax.
func validLiteral(lit []byte) bool {
	if !utf8.Valid(lit) {
		return false
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		i++
		if lit[i] != 'u' {
			continue
		}
		r := hex4(lit[i+1 : i+5])
		i += 4
		switch {
		case r == 0:
			return false
		case r >= 0xD800 && r < 0xDC00: // must be followed by a low surrogate
			if i+6 >= len(lit) || lit[i+1] != '\\' || lit[i+2] != 'u' {
				return false
			}
			if lo := hex4(lit[i+3 : i+7]); lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 6
		case r >= 0xDC00 && r <= 0xDFFF:
			return false
		}
	}
	return true
}

func hex4(b []byte) rune {
	n, _ := strconv.ParseUint(string(b), 16, 16)
	return rune(n)
}

// checkQueryText records each parameter of the raw query whose name or
// value, decoded as url.ParseQuery decodes them, is not valid text. The
// parts ParseQuery drops (a bad %-escape, a semicolon) are dropped by
// every reader of the query, so they never reach a query either. It reads
// the parts in place: ParseQuery's map, built on every request only to be
// read here, was a needless share of a cached catalogue list's allocations.
func checkQueryText(raw string, errs apperr.FieldErrors) {
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" || strings.Contains(part, ";") {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			continue
		}
		switch {
		case !field.IsText(name):
			errs.Add(fieldName(name), "is not a valid parameter name: "+field.BadText)
		case !field.IsText(value):
			errs.Add(name, field.BadText)
		}
	}
}
