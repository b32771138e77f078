package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// specRows are the rows of the endpoint tables of section 4 of the guide
// marketplace spec (shared/spec/guide-marketplace-api.md), in its order.
var specRows = []struct{ method, path string }{
	// Public reads
	{"GET", "/api/v1/experts"},
	{"GET", "/api/v1/experts/{handle}"},
	{"GET", "/api/v1/experts/{handle}/packages"},
	{"GET", "/api/v1/experts/{handle}/reviews"},
	{"GET", "/api/v1/packages"},
	{"GET", "/api/v1/packages/{id}"},
	{"GET", "/api/v1/travelogues"},
	{"GET", "/api/v1/travelogues/{slug}"},
	{"GET", "/api/v1/cities"},
	{"GET", "/api/v1/specialties"},
	// Authentication endpoints
	{"POST", "/api/v1/auth/login"},
	{"POST", "/api/v1/auth/register"},
	{"POST", "/api/v1/auth/idp-a"},
	{"POST", "/api/v1/auth/idp-b"},
	{"GET", "/api/v1/auth/me"},
	{"POST", "/api/v1/auth/session-exchange"},
	{"POST", "/api/v1/auth/api-keys"},
	{"GET", "/api/v1/auth/api-keys"},
	{"DELETE", "/api/v1/auth/api-keys/{id}"},
	// Bookings
	{"GET", "/api/v1/bookings"},
	{"POST", "/api/v1/bookings"},
	{"GET", "/api/v1/bookings/{id}"},
	{"POST", "/api/v1/bookings/{id}/cancel"},
	{"POST", "/api/v1/bookings/{id}/review"},
	// Conversations
	{"GET", "/api/v1/conversations"},
	{"POST", "/api/v1/conversations"},
	{"GET", "/api/v1/conversations/{id}/messages"},
	{"POST", "/api/v1/conversations/{id}/messages"},
	{"POST", "/api/v1/conversations/{id}/read"},
	{"GET", "/api/v1/conversations/unread-count"},
	// Profile
	{"GET", "/api/v1/profile"},
	{"PUT", "/api/v1/profile"},
	{"POST", "/api/v1/profile/avatar"},
	{"GET", "/api/v1/profile/delete"},
	{"POST", "/api/v1/profile/delete"},
	// Push, realtime credentials, expert availability
	{"POST", "/api/push/register"},
	{"POST", "/api/push/unregister"},
	{"GET", "/api/realtime/token"},
	{"GET", "/api/expert/availability"},
	// Pending actions
	{"GET", "/api/v1/actions/{id}"},
	{"POST", "/api/v1/actions/{id}/confirm"},
}

// extraRows are the endpoints the spec leaves unnamed that the server
// implements.
var extraRows = []struct{ method, path string }{
	{"POST", "/api/v1/bookings/{id}/accept"},
	{"POST", "/api/v1/bookings/{id}/start"},
	{"POST", "/api/v1/bookings/{id}/complete"},
	// The change feed and webhooks (issue 19).
	{"GET", "/api/v1/events"},
	{"POST", "/api/v1/webhooks"},
	{"GET", "/api/v1/webhooks"},
	{"GET", "/api/v1/webhooks/{id}"},
	{"PATCH", "/api/v1/webhooks/{id}"},
	{"DELETE", "/api/v1/webhooks/{id}"},
	{"POST", "/api/v1/webhooks/{id}/rotate-secret"},
	{"POST", "/api/v1/webhooks/{id}/test"},
	{"GET", "/api/v1/webhooks/{id}/deliveries"},
	{"POST", "/api/v1/webhooks/deliveries/{id}/redeliver"},
	{"GET", "/api/v1/openapi.json"},
	{"GET", "/healthz"},
	{"GET", "/readyz"},
	{"GET", "/metrics"},
	{"POST", "/mcp"},
	{"GET", "/.well-known/oauth-protected-resource"},
	// Issue 18: experts manage their packages and availability.
	{"PUT", "/api/expert/availability"},
	{"POST", "/api/v1/packages"},
	{"PATCH", "/api/v1/packages/{id}"},
	{"POST", "/api/v1/packages/{id}/images"},
	// Issue 35: any user writes travelogues.
	{"POST", "/api/v1/travelogues"},
	{"GET", "/api/v1/travelogues/mine"},
	{"GET", "/api/v1/travelogues/{slug}/edit"},
	{"PATCH", "/api/v1/travelogues/{slug}"},
	{"POST", "/api/v1/travelogues/{slug}/publish"},
	{"POST", "/api/v1/travelogues/{slug}/unpublish"},
	{"POST", "/api/v1/travelogues/{slug}/images"},
	// Issue 35: admins' audit log; reports and moderation; guides joining.
	{"GET", "/api/v1/admin/audit"},
	{"POST", "/api/v1/reports"},
	{"GET", "/api/v1/admin/reports"},
	{"POST", "/api/v1/admin/reports/{id}/dismiss"},
	{"POST", "/api/v1/admin/moderation"},
	{"GET", "/api/v1/admin/expert-applications"},
	{"GET", "/api/v1/admin/expert-applications/{id}"},
	{"POST", "/api/v1/admin/expert-applications/{id}/{decision}"},
	{"GET", "/api/v1/admin/expert-applications/{id}/documents/{docId}"},
	{"POST", "/api/v1/expert-applications"},
	{"GET", "/api/v1/expert-applications/mine"},
	{"PATCH", "/api/v1/expert-applications/{id}"},
	{"POST", "/api/v1/expert-applications/{id}/documents"},
	{"GET", "/api/v1/expert/profile"},
	{"PATCH", "/api/v1/expert/profile"},
	{"POST", "/api/v1/expert/profile/images"},
	// Issue 37: the applications a person connected through OAuth.
	{"GET", "/api/v1/profile/connected-apps"},
	{"DELETE", "/api/v1/profile/connected-apps/{id}"},
}

// requiredScopes is the API key scope of each operation that accepts API
// keys (spec section 5, rule 4); the three booking transitions the spec
// does not name take bookings:write like the other booking writes.
var requiredScopes = map[string]string{
	"postMcp":              "", // any key; each tool needs its own scope
	"listBookings":         "bookings:read",
	"getBooking":           "bookings:read",
	"createBooking":        "bookings:write",
	"cancelBooking":        "bookings:write",
	"reviewBooking":        "bookings:write",
	"acceptBooking":        "bookings:write",
	"startBooking":         "bookings:write",
	"completeBooking":      "bookings:write",
	"getProfile":           "profile:read",
	"updateProfile":        "profile:write",
	"uploadAvatar":         "profile:write",
	"checkAccountDeletion": "profile:write",
	"deleteAccount":        "profile:write",
	"listEvents":           "events:read",
	// Any key of the action's owner; no scope.
	"getPendingAction":     "",
	"confirmPendingAction": "",
}

// loadedGuide is the document the tests share: they only read it, and
// loading it (with its validation) is the costliest step of each.
var loadedGuide = sync.OnceValues(LoadGuide)

func mustLoad(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := loadedGuide()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

type operation struct {
	method, path string
	op           *openapi3.Operation
}

func (o operation) String() string { return o.method + " " + o.path }

func operations(doc *openapi3.T) []operation {
	var ops []operation
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			ops = append(ops, operation{method, path, op})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].String() < ops[j].String() })
	return ops
}

func TestLoadGuide(t *testing.T) {
	doc := mustLoad(t)
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	if doc.Info.Title != "Guide Marketplace API" || doc.Info.Version != "1.0.0" {
		t.Errorf("info = %q %q", doc.Info.Title, doc.Info.Version)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/" {
		t.Errorf("servers = %v, want one server with url /", doc.Servers)
	}
	for _, name := range []string{"bearerAuth", "apiKey", "sessionCookie"} {
		if doc.Components.SecuritySchemes[name] == nil {
			t.Errorf("security scheme %s missing", name)
		}
	}
	if s := doc.Components.SecuritySchemes["sessionCookie"].Value; s.Type != "apiKey" || s.In != "cookie" || s.Name != "gm_session" {
		t.Errorf("sessionCookie = %+v", s)
	}
	// LoadGuide returns a fresh document each time.
	if doc2, err := LoadGuide(); err != nil || doc2 == doc {
		t.Error("LoadGuide returned the same *openapi3.T twice")
	}
}

func TestGuideHasEverySpecEndpoint(t *testing.T) {
	doc := mustLoad(t)
	want := map[string]bool{}
	for _, rows := range [][]struct{ method, path string }{specRows, extraRows} {
		for _, r := range rows {
			want[r.method+" "+r.path] = true
			item := doc.Paths.Find(r.path)
			if item == nil || item.GetOperation(r.method) == nil {
				t.Errorf("%s %s is not in the document", r.method, r.path)
			}
		}
	}
	for _, o := range operations(doc) {
		if !want[o.String()] {
			t.Errorf("%s is in the document but not in the spec tables", o)
		}
	}
}

func TestGuideOperations(t *testing.T) {
	doc := mustLoad(t)
	scopes := doc.Components.Schemas["Scope"].Value.Enum
	ids := map[string]string{}
	for _, o := range operations(doc) {
		op := o.op
		if op.OperationID == "" {
			t.Errorf("%s: no operationId", o)
		} else if prev, ok := ids[op.OperationID]; ok {
			t.Errorf("%s: operationId %s also used by %s", o, op.OperationID, prev)
		}
		ids[op.OperationID] = o.String()
		if len(op.Tags) == 0 || op.Summary == "" || op.Description == "" {
			t.Errorf("%s: tags, summary and description are all required", o)
		}

		// Responses: a 2xx, a 429 and a default, and 400 when there is
		// input to reject.
		has := func(code string) bool { return op.Responses.Value(code) != nil }
		if !slices.ContainsFunc(op.Responses.Keys(), func(k string) bool { return strings.HasPrefix(k, "2") }) {
			t.Errorf("%s: no 2xx response", o)
		}
		if op.Responses.Default() == nil {
			t.Errorf("%s: no default response", o)
		}
		if !has("429") {
			t.Errorf("%s: no 429 response", o)
		}
		if (len(op.Parameters) > 0 || op.RequestBody != nil) && !has("400") {
			t.Errorf("%s: takes input but has no 400 response", o)
		}
		for code, ref := range op.Responses.Map() {
			if code[0] == '2' {
				if ref.Value.Headers["X-Request-Id"] == nil {
					t.Errorf("%s %s: no X-Request-Id header", o, code)
				}
				continue
			}
			if !strings.HasPrefix(ref.Ref, "#/components/responses/") {
				t.Errorf("%s %s: error responses must reference components.responses, got %q", o, code, ref.Ref)
			}
		}

		// Security: stated on every operation; credentials mean a 401.
		if op.Security == nil {
			t.Errorf("%s: no security requirement (use [] for public)", o)
			continue
		}
		accepts := map[string]bool{}
		for _, req := range *op.Security {
			for name, sc := range req {
				accepts[name] = true
				if len(sc) != 0 {
					t.Errorf("%s: %s lists scopes; OpenAPI 3.0 allows scopes only for oauth2 (use x-required-scope)", o, name)
				}
			}
		}
		if len(accepts) > 0 && !has("401") {
			t.Errorf("%s: authenticated but no 401 response", o)
		}
		want, wantKey := requiredScopes[op.OperationID]
		if accepts["apiKey"] != wantKey {
			t.Errorf("%s: accepts API keys = %v, want %v", o, accepts["apiKey"], wantKey)
		}
		got, _ := op.Extensions["x-required-scope"].(string)
		if got != want {
			t.Errorf("%s: x-required-scope = %q, want %q", o, got, want)
		}
		if got != "" {
			if !slices.Contains(scopes, any(got)) {
				t.Errorf("%s: x-required-scope %q is not a Scope", o, got)
			}
			if !strings.Contains(op.Description, "`"+got+"`") {
				t.Errorf("%s: description does not name scope %s", o, got)
			}
		}
	}
	if len(ids) != len(specRows)+len(extraRows) {
		t.Errorf("%d operations, want %d", len(ids), len(specRows)+len(extraRows))
	}
}

func isJSON(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}

func TestGuideJSONResponsesHaveSchemas(t *testing.T) {
	doc := mustLoad(t)
	check := func(where string, r *openapi3.Response) {
		// The MCP transport answers a request of notifications 202 with
		// no body.
		if len(r.Content) == 0 && where != "POST /mcp 202" {
			t.Errorf("%s: no content", where)
		}
		for mt, m := range r.Content {
			if isJSON(mt) && (m.Schema == nil || m.Schema.Value == nil) {
				t.Errorf("%s %s: no schema", where, mt)
			}
		}
	}
	for _, o := range operations(doc) {
		for code, ref := range o.op.Responses.Map() {
			if code == "304" { // never has a body
				continue
			}
			check(fmt.Sprintf("%s %s", o, code), ref.Value)
		}
	}
	for name, ref := range doc.Components.Responses {
		if name == "NotModified" {
			continue
		}
		check("components.responses."+name, ref.Value)
		// NotReady is /readyz's 503, whose body says which check failed;
		// McpError is the MCP transport's JSON-RPC error.
		if name != "Error" && name != "NotReady" && name != "McpError" && ref.Value.Content.Get("application/json").Schema.Ref != "#/components/schemas/Error" {
			t.Errorf("components.responses.%s: schema is not Error", name)
		}
	}
	for _, name := range []string{"BadRequest", "Unauthorized", "Forbidden", "NotFound", "Conflict", "Unprocessable", "TooManyRequests", "Error"} {
		if doc.Components.Responses[name] == nil {
			t.Errorf("components.responses.%s missing", name)
		}
	}
	if h := doc.Components.Responses["TooManyRequests"].Value.Headers; h["Retry-After"] == nil || h["X-RateLimit-Reset"] == nil {
		t.Error("TooManyRequests lacks Retry-After or X-RateLimit-* headers")
	}
}

func TestGuideRequestBodiesAreClosed(t *testing.T) {
	doc := mustLoad(t)
	for _, o := range operations(doc) {
		if o.op.RequestBody == nil {
			continue
		}
		body := o.op.RequestBody.Value
		if !body.Required {
			t.Errorf("%s: request body not required", o)
		}
		for mt, m := range body.Content {
			if !closed(m.Schema.Value) {
				t.Errorf("%s %s: request body allows additional properties", o, mt)
			}
		}
	}
}

// closed tells whether a request body schema takes no property it does not
// name: an object closed to others, an array of such objects, or one of
// those (the MCP endpoint's message or batch).
func closed(s *openapi3.Schema) bool {
	if len(s.OneOf) > 0 {
		for _, o := range s.OneOf {
			if !closed(o.Value) {
				return false
			}
		}
		return true
	}
	if s.Type.Is("array") {
		return s.Items != nil && closed(s.Items.Value)
	}
	return s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has
}

// TestGuideResponseSchemasAreComplete checks the rule the server follows:
// every property of a response object is sent (required), nullable or not.
func TestGuideResponseSchemasAreComplete(t *testing.T) {
	doc := mustLoad(t)
	// Objects whose properties are optional by design, and single
	// properties the spec says are present only sometimes.
	optional := map[string]bool{"Error": true, "Error.error": true, "WeeklySchedule": true}
	optionalProperty := map[string]bool{"Profile.expert": true, "ExpertApplication.applicant": true}
	seen := map[*openapi3.Schema]bool{}
	var walk func(where string, s *openapi3.Schema)
	walk = func(where string, s *openapi3.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if len(s.Properties) > 0 && !optional[where] {
			for name := range s.Properties {
				if !slices.Contains(s.Required, name) && !optionalProperty[where+"."+name] {
					t.Errorf("%s.%s: response property not required", where, name)
				}
			}
		}
		// A referenced schema is named after its component.
		visit := func(name string, ref *openapi3.SchemaRef) {
			if ref.Ref != "" {
				name = strings.TrimPrefix(ref.Ref, "#/components/schemas/")
			}
			walk(name, ref.Value)
		}
		for name, p := range s.Properties {
			visit(where+"."+name, p)
		}
		if s.Items != nil {
			visit(where+"[]", s.Items)
		}
		for i, sub := range append(append(s.AllOf, s.OneOf...), s.AnyOf...) {
			visit(fmt.Sprintf("%s/%d", where, i), sub)
		}
	}
	for _, o := range operations(doc) {
		for code, ref := range o.op.Responses.Map() {
			for _, m := range ref.Value.Content {
				root := &openapi3.Schema{Properties: openapi3.Schemas{"body": m.Schema}, Required: []string{"body"}}
				walk(fmt.Sprintf("%s %s", o, code), root)
			}
		}
	}
	if len(seen) < 40 {
		t.Errorf("walked only %d schemas", len(seen))
	}
}

// TestGuideExamplesWithStrictFormats validates the document's examples
// again with the formats kin-openapi leaves unchecked by default.
func TestGuideExamplesWithStrictFormats(t *testing.T) {
	strict := map[string]openapi3.StringFormatValidator{
		"uuid":  openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562),
		"email": openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForEmail),
		"uri": openapi3.NewCallbackValidator(func(s string) error {
			u, err := url.Parse(s)
			if err != nil || u.Scheme == "" || u.Host == "" {
				return fmt.Errorf("%q is not an absolute URI", s)
			}
			return nil
		}),
	}
	for name, v := range strict {
		prev, had := openapi3.SchemaStringFormats[name]
		openapi3.DefineStringFormatValidator(name, v)
		defer func() {
			if had {
				openapi3.SchemaStringFormats[name] = prev
			} else {
				delete(openapi3.SchemaStringFormats, name)
			}
		}()
	}
	doc := mustLoad(t)
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatal(err)
	}
}

// TestGuideMatchesDomain keeps the document's enumerations in step with the
// values the server uses.
func TestGuideMatchesDomain(t *testing.T) {
	doc := mustLoad(t)
	enum := func(name string) []string {
		var out []string
		for _, v := range doc.Components.Schemas[name].Value.Enum {
			out = append(out, v.(string))
		}
		return out
	}
	if got := enum("Locale"); !slices.Equal(got, guide.Locales) {
		t.Errorf("Locale = %v, want %v", got, guide.Locales)
	}
	if got := enum("TravelogueCategory"); !slices.Equal(got, guide.TravelogueCategories) {
		t.Errorf("TravelogueCategory = %v, want %v", got, guide.TravelogueCategories)
	}
	if got := enum("EventType"); !slices.Equal(got, guide.EventTypes) {
		t.Errorf("EventType = %v, want %v", got, guide.EventTypes)
	}
	if got := enum("CountryCode"); !slices.Equal(got, guide.CountryCodes) {
		t.Errorf("CountryCode = %v, want %v", got, guide.CountryCodes)
	}
	days := doc.Components.Schemas["WeeklySchedule"].Value.Properties
	for _, d := range guide.Weekdays {
		if days[d] == nil {
			t.Errorf("WeeklySchedule lacks %s", d)
		}
	}
	if len(days) != len(guide.Weekdays) {
		t.Errorf("WeeklySchedule has %d days", len(days))
	}
	// The document allows no more than the server takes.
	for _, name := range []string{"LoginRequest", "RegisterRequest"} {
		if p := doc.Components.Schemas[name].Value.Properties["password"].Value; p.MaxLength == nil || *p.MaxLength != field.MaxPassword {
			t.Errorf("%s.password maxLength = %v, want %d", name, p.MaxLength, field.MaxPassword)
		}
	}
	if p := doc.Components.Schemas["PackageInput"].Value.Properties["basePrice"].Value; p.Max == nil || *p.Max != guide.MaxBasePrice {
		t.Errorf("PackageInput.basePrice maximum = %v, want %d", p.Max, guide.MaxBasePrice)
	}
	// Every error code the server answers with is in the Error table with
	// its status.
	desc := doc.Components.Schemas["Error"].Value.Description
	for _, c := range slices.Concat(httpx.Codes, httpx.GuideCodes) {
		row := regexp.MustCompile("(?m)^\\| `" + c.Code + "` \\| " + fmt.Sprint(c.Status) + " \\|")
		if !row.MatchString(desc) {
			t.Errorf("Error description has no row for %s (%d)", c.Code, c.Status)
		}
	}
}

func TestGuideJSON(t *testing.T) {
	b, err := GuideJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatal("GuideJSON is not valid JSON")
	}
	b2, _ := GuideJSON()
	if &b[0] != &b2[0] {
		t.Error("GuideJSON is computed more than once")
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the JSON form does not validate: %v", err)
	}
	if got, want := len(operations(doc)), len(operations(mustLoad(t))); got != want {
		t.Errorf("JSON form has %d operations, want %d", got, want)
	}
	if !bytes.Contains(b, []byte(`"x-required-scope":"bookings:write"`)) {
		t.Error("JSON form lost the x-required-scope extensions")
	}
}

// TestGuideSchemasMatchGoTypes encodes the catalogue types the server sends
// and checks each against its schema: the same field names, and values that
// validate (nullable pointers as null, empty arrays as []).
func TestGuideSchemasMatchGoTypes(t *testing.T) {
	doc := mustLoad(t)
	empty := []string{}
	summary := guide.ExpertSummary{ID: "0193a4f1-2222-7bbb-8ccc-123456789abc", Handle: "aiko-kyoto", Languages: empty, Specialties: empty, CountryCode: "JP", Currency: "JPY"}
	pkg := guide.PackageSummary{ID: "p1", Title: "t", Description: "d", Category: "food_tour", CountryCode: "JP", Currency: "JPY", Images: empty, Highlights: empty, Included: empty, ExpertHandle: "aiko-kyoto"}
	travelogue := guide.TravelogueSummary{Slug: "s", Title: "t", Category: "food", LocationTags: empty, Author: guide.TravelogueAuthor{Handle: "sam"}}
	cases := map[string]any{
		"PaginationMeta":    paging.NewMeta(paging.Page{Page: 1, PageSize: 20}, 57),
		"ExpertSummary":     summary,
		"ExpertDetail":      guide.ExpertDetail{ExpertSummary: summary, SocialLinks: json.RawMessage(`{}`), WeeklySchedule: json.RawMessage(`{"mon":[{"start":"09:00","end":"17:00"}]}`), Timezone: "Asia/Tokyo"},
		"PackageSummary":    pkg,
		"PackageDetail":     guide.PackageDetail{PackageSummary: pkg, Excluded: empty},
		"TravelogueSummary": travelogue,
		"TravelogueDetail":  guide.TravelogueDetail{TravelogueSummary: travelogue, Images: empty},
		"Review":            guide.Review{ID: "r1", Rating: 5},
		"City":              guide.City{Name: "Kyoto", CountryCode: "JP"},
		"TimeSlot":          guide.TimeSlot{Start: "09:00", End: "17:00"},
		"BlockedDate":       guide.BlockedDate{Date: "2025-04-29"},
	}
	for name, v := range cases {
		s := doc.Components.Schemas[name].Value
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		props := map[string]bool{}
		for _, sub := range append([]*openapi3.SchemaRef{{Value: s}}, s.AllOf...) {
			for p := range sub.Value.Properties {
				props[p] = true
			}
		}
		for k := range m {
			if !props[k] {
				t.Errorf("%s: the server sends %q, which the schema does not describe", name, k)
			}
		}
		for p := range props {
			if _, ok := m[p]; !ok {
				t.Errorf("%s: the schema describes %q, which the server does not send", name, p)
			}
		}
		if err := s.VisitJSON(m); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
