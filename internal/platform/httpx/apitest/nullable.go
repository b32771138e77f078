package apitest

import (
	"fmt"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

// NullableErrors lists the schemas of doc whose null OpenAPI 3.0.3 refuses
// although `nullable: true` suggests otherwise. Since 3.0.3, nullable adds
// null only to the type of its own schema, and only when that schema has a
// type; the members of an allOf still apply, so a null passes only if each
// of them admits it (of a oneOf or anyOf, one). kin-openapi and pb33f's
// validator both let such a null through, while generated clients and
// validating proxies refuse it, so the documents are held to the rule here.
func NullableErrors(doc *openapi3.T) []string {
	var errs []string
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef, at string)
	walk = func(ref *openapi3.SchemaRef, at string) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if ref.Ref != "" {
			at = ref.Ref
		}
		if s.Nullable {
			if s.Type == nil || len(*s.Type) == 0 {
				errs = append(errs, at+": nullable without a type admits no null")
			}
			for i, m := range s.AllOf {
				if !admitsNull(m) {
					errs = append(errs, fmt.Sprintf("%s: nullable, but allOf[%d] refuses null", at, i))
				}
			}
			for name, members := range map[string]openapi3.SchemaRefs{"oneOf": s.OneOf, "anyOf": s.AnyOf} {
				if len(members) > 0 && !anyAdmitsNull(members) {
					errs = append(errs, fmt.Sprintf("%s: nullable, but no member of %s admits null", at, name))
				}
			}
		}
		for i, m := range s.AllOf {
			walk(m, fmt.Sprintf("%s/allOf/%d", at, i))
		}
		for i, m := range s.OneOf {
			walk(m, fmt.Sprintf("%s/oneOf/%d", at, i))
		}
		for i, m := range s.AnyOf {
			walk(m, fmt.Sprintf("%s/anyOf/%d", at, i))
		}
		walk(s.Not, at+"/not")
		walk(s.Items, at+"/items")
		for name, p := range s.Properties {
			walk(p, at+"/properties/"+name)
		}
		walk(s.AdditionalProperties.Schema, at+"/additionalProperties")
	}
	names := make([]string, 0, len(doc.Components.Schemas))
	for name := range doc.Components.Schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		walk(doc.Components.Schemas[name], "#/components/schemas/"+name)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			at := method + " " + path
			for _, p := range op.Parameters {
				if p.Value != nil {
					walk(p.Value.Schema, at+" parameter "+p.Value.Name)
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					walk(mt.Schema, at+" request body")
				}
			}
			for status, res := range op.Responses.Map() {
				if res.Value != nil {
					for _, mt := range res.Value.Content {
						walk(mt.Schema, at+" response "+status)
					}
				}
			}
		}
	}
	sort.Strings(errs)
	return errs
}

func admitsNull(m *openapi3.SchemaRef) bool {
	if m == nil || m.Value == nil {
		return true
	}
	s := m.Value
	if s.Nullable && s.Type != nil && len(*s.Type) > 0 {
		return len(s.AllOf) == 0 || allAdmitNull(s.AllOf)
	}
	// A schema without a type or members admits any value, null included.
	return (s.Type == nil || len(*s.Type) == 0) && len(s.AllOf) == 0 && len(s.OneOf) == 0 && len(s.AnyOf) == 0 && len(s.Enum) == 0
}

func allAdmitNull(ms openapi3.SchemaRefs) bool {
	for _, m := range ms {
		if !admitsNull(m) {
			return false
		}
	}
	return true
}

func anyAdmitsNull(ms openapi3.SchemaRefs) bool {
	for _, m := range ms {
		if admitsNull(m) {
			return true
		}
	}
	return false
}
