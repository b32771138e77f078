package apitest

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Probe is a request that carries bad text in one place, and the field
// that the VALIDATION_ERROR refusing it must name.
type Probe struct {
	Pattern      string // the route
	Method, Path string
	Body         string // a JSON body, or ""
	Field        string
	What         string // where the bad text is, for messages
}

// BadText are the bad texts probed: a NUL and a byte that is not UTF-8.
var BadText = []struct {
	Name string
	URL  string // as escaped in a path or query
	JSON string // as a JSON string literal
}{
	{"NUL", "a%00b", `"a\u0000b"`},
	{"invalid UTF-8", "a%FFb", "\"a\xffb\""},
}

var wildcard = regexp.MustCompile(`\{([^}]*)\}`)

// sentinel stands for the bad text in a body until it is spliced in.
const sentinel = "__bad_text__"

// BadTextProbes returns, for every route pattern, requests that each put
// one bad text in one place: each path parameter; each query parameter
// the document names for the route, and one it does not; and, for a route
// whose document takes a JSON body, each string of that body (at any depth)
// and an object key. The other path parameters hold fill(name); the route
// table drives the probes, so a new route is probed without being listed.
func BadTextProbes(doc *openapi3.T, patterns []string, fill func(param string) string) []Probe {
	var out []Probe
	for _, pattern := range patterns {
		method, path, _ := strings.Cut(pattern, " ")
		params := wildcard.FindAllStringSubmatch(path, -1)
		// Path values are valid with fill, and {$} is no parameter.
		build := func(bad, badParam string) string {
			return wildcard.ReplaceAllStringFunc(path, func(m string) string {
				name := strings.TrimSuffix(m[1:len(m)-1], "...")
				switch {
				case name == "$":
					return ""
				case name == badParam:
					return bad
				}
				return url.PathEscape(fill(name))
			})
		}
		var op *openapi3.Operation
		if item := doc.Paths.Find(strings.ReplaceAll(path, "...}", "}")); item != nil {
			op = item.GetOperation(method)
		}
		queryNames := []string{"probe"} // not a parameter of any route
		var bodyFields []field
		jsonBody := false
		if op != nil {
			for _, p := range op.Parameters {
				if p.Value != nil && p.Value.In == "query" {
					queryNames = append(queryNames, p.Value.Name)
				}
			}
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				if mt := rb.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
					jsonBody = true
					bodyFields = stringFields(mt.Schema.Value, "", map[*openapi3.Schema]bool{})
				}
			}
		}
		for _, bad := range BadText {
			for _, m := range params {
				name := strings.TrimSuffix(m[1], "...")
				if name == "$" {
					continue
				}
				out = append(out, Probe{Pattern: pattern, Method: method, Path: build(bad.URL, name), Field: name,
					What: bad.Name + " in path parameter " + name})
			}
			for _, q := range queryNames {
				out = append(out, Probe{Pattern: pattern, Method: method, Path: build("", "") + "?" + url.QueryEscape(q) + "=" + bad.URL, Field: q,
					What: bad.Name + " in query parameter " + q})
			}
			if !jsonBody {
				continue
			}
			for _, f := range bodyFields {
				b, _ := json.Marshal(f.body)
				out = append(out, Probe{Pattern: pattern, Method: method, Path: build("", ""), Field: f.path,
					Body: string(bytes.Replace(b, []byte(`"`+sentinel+`"`), []byte(bad.JSON), 1)), What: bad.Name + " in body field " + f.path})
			}
			key, _ := json.Marshal(map[string]string{sentinel: "x"})
			out = append(out, Probe{Pattern: pattern, Method: method, Path: build("", ""), Field: "a\uFFFDb",
				Body: string(bytes.Replace(key, []byte(`"`+sentinel+`"`), []byte(bad.JSON), 1)), What: bad.Name + " in a body key"})
		}
	}
	return out
}

// field is a string somewhere in a body: its name as error details name
// it, and a body holding the sentinel there.
type field struct {
	path string
	body any
}

// stringFields lists the strings a body of schema s can hold: properties
// joined by dots, array items named by their array (as encoding/json
// names fields).
func stringFields(s *openapi3.Schema, path string, seen map[*openapi3.Schema]bool) []field {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	defer delete(seen, s)
	var out []field
	switch {
	case s.Type.Is("string"):
		return []field{{path, sentinel}}
	case s.Type.Is("array") && s.Items != nil:
		for _, f := range stringFields(s.Items.Value, path, seen) {
			out = append(out, field{f.path, []any{f.body}})
		}
		return out
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := name
		if path != "" {
			p = path + "." + name
		}
		for _, f := range stringFields(s.Properties[name].Value, p, seen) {
			out = append(out, field{f.path, map[string]any{name: f.body}})
		}
	}
	for _, refs := range [][]*openapi3.SchemaRef{s.AllOf, s.OneOf, s.AnyOf} {
		for _, r := range refs {
			out = append(out, stringFields(r.Value, path, seen)...)
		}
	}
	return out
}
