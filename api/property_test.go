package api

import (
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
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/property"
)

// propertyEndpoints are the operations of issue 7, and the scope each
// needs ("" for none; "-" for the portal and public ones, which take no
// API key).
var propertyEndpoints = []struct{ method, path, scope string }{
	{"GET", "/api/v1/properties", "properties:read"},
	{"GET", "/api/v1/properties/{id}", "properties:read"},
	{"GET", "/api/v1/properties/{id}/availability", "properties:read"},
	{"POST", "/api/v1/quotes", "bookings:write"},
	{"GET", "/api/v1/bookings", "bookings:read"},
	{"POST", "/api/v1/bookings", "bookings:write"},
	{"GET", "/api/v1/bookings/{id}", "bookings:read"},
	{"POST", "/api/v1/bookings/{id}/cancel", "bookings:write"},
	// Issue 18: hosts manage their properties.
	{"POST", "/api/v1/properties", "properties:write"},
	{"PATCH", "/api/v1/properties/{id}", "properties:write"},
	{"POST", "/api/v1/properties/{id}/room-types", "properties:write"},
	{"PATCH", "/api/v1/properties/{id}/room-types/{roomTypeId}", "properties:write"},
	{"DELETE", "/api/v1/properties/{id}/room-types/{roomTypeId}", "properties:write"},
	{"PATCH", "/api/v1/properties/{id}/calendar", "calendar:write"},
	{"GET", "/portal/api/properties", "-"},
	{"GET", "/portal/api/properties/{id}/availability", "-"},
	{"PATCH", "/portal/api/properties/{id}/calendar", "-"},
	{"GET", "/api/v1/openapi.json", "-"},
	{"POST", "/portal/api/signup", "-"},
	{"POST", "/portal/api/login", "-"},
	{"GET", "/portal/api/me", "-"},
	{"POST", "/portal/api/keys", "-"},
	{"GET", "/portal/api/keys", "-"},
	{"DELETE", "/portal/api/keys/{id}", "-"},
	{"POST", "/portal/api/keys/{id}/rotate", "-"},
	{"GET", "/portal/api/usage", "-"},
	{"GET", "/portal/api/connected-apps", "-"},
	{"DELETE", "/portal/api/connected-apps/{id}", "-"},
	{"GET", "/api/v1/events", "events:read"},
	{"POST", "/portal/api/webhooks", "-"},
	{"GET", "/portal/api/webhooks", "-"},
	{"GET", "/portal/api/webhooks/{id}", "-"},
	{"PATCH", "/portal/api/webhooks/{id}", "-"},
	{"DELETE", "/portal/api/webhooks/{id}", "-"},
	{"POST", "/portal/api/webhooks/{id}/rotate-secret", "-"},
	{"POST", "/portal/api/webhooks/{id}/test", "-"},
	{"GET", "/portal/api/webhooks/{id}/deliveries", "-"},
	{"POST", "/portal/api/webhooks/deliveries/{id}/redeliver", "-"},
	{"GET", "/healthz", "-"},
	{"GET", "/readyz", "-"},
	{"GET", "/metrics", "-"},
	{"POST", "/mcp", ""}, // any key; each tool needs its own scope
	{"GET", "/.well-known/oauth-protected-resource", "-"},
}

// probes are the operational endpoints, outside the API's rate limit.
var probes = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// loadedProperty is the document the tests share, as loadedGuide.
var loadedProperty = sync.OnceValues(LoadProperty)

func mustLoadProperty(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := loadedProperty()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

type propertyOp struct {
	method, path string
	op           *openapi3.Operation
}

func (o propertyOp) String() string { return o.method + " " + o.path }

func propertyOps(doc *openapi3.T) []propertyOp {
	var ops []propertyOp
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			ops = append(ops, propertyOp{method, path, op})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].String() < ops[j].String() })
	return ops
}

func TestLoadProperty(t *testing.T) {
	doc := mustLoadProperty(t)
	if doc.OpenAPI != "3.0.3" || doc.Info.Version != "1.0.0" || doc.Info.Title != "Property Platform Open API" {
		t.Errorf("openapi %q, info %q %q", doc.OpenAPI, doc.Info.Title, doc.Info.Version)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/" {
		t.Errorf("servers = %v", doc.Servers)
	}
	if s := doc.Components.SecuritySchemes["apiKeyHeader"].Value; s.Type != "apiKey" || s.In != "header" || s.Name != "X-API-KEY" {
		t.Errorf("apiKeyHeader = %+v", s)
	}
	if s := doc.Components.SecuritySchemes["portalSession"].Value; s.Type != "apiKey" || s.In != "cookie" || s.Name != "pp_session" {
		t.Errorf("portalSession = %+v", s)
	}
	for _, name := range []string{"apiKeyBearer", "portalToken"} {
		if doc.Components.SecuritySchemes[name] == nil {
			t.Errorf("security scheme %s missing", name)
		}
	}
	if doc2, err := LoadProperty(); err != nil || doc2 == doc {
		t.Error("LoadProperty returned the same *openapi3.T twice")
	}
}

func TestPropertyOperations(t *testing.T) {
	doc := mustLoadProperty(t)
	want := map[string]string{}
	for _, e := range propertyEndpoints {
		want[e.method+" "+e.path] = e.scope
		if item := doc.Paths.Find(e.path); item == nil || item.GetOperation(e.method) == nil {
			t.Errorf("%s %s is not in the document", e.method, e.path)
		}
	}
	ids := map[string]bool{}
	for _, o := range propertyOps(doc) {
		scope, ok := want[o.String()]
		if !ok {
			t.Errorf("%s is in the document but not in issue 7", o)
			continue
		}
		op := o.op
		if op.OperationID == "" || ids[op.OperationID] {
			t.Errorf("%s: missing or repeated operationId %q", o, op.OperationID)
		}
		ids[op.OperationID] = true
		if len(op.Tags) == 0 || op.Summary == "" || op.Description == "" {
			t.Errorf("%s: tags, summary and description are all required", o)
		}
		has := func(code string) bool { return op.Responses.Value(code) != nil }
		if !slices.ContainsFunc(op.Responses.Keys(), func(k string) bool { return k[0] == '2' }) || op.Responses.Default() == nil || !has("429") {
			t.Errorf("%s: a 2xx, a 429 and a default response are required", o)
		}
		if (len(op.Parameters) > 0 || op.RequestBody != nil) && !has("400") {
			t.Errorf("%s: takes input but has no 400 response", o)
		}
		for code, ref := range op.Responses.Map() {
			if code[0] != '2' && !strings.HasPrefix(ref.Ref, "#/components/responses/") {
				t.Errorf("%s %s: error responses must reference components.responses", o, code)
			}
			// Health probes and metrics scrapes are never rate limited: a load
			// balancer polling /readyz must not be refused.
			if code == "default" || probes[o.path] {
				continue
			}
			for _, h := range []string{"X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
				if hr := ref.Value.Headers[h]; hr == nil || !hr.Value.Required {
					t.Errorf("%s %s: header %s is not required", o, code, h)
				}
			}
		}
		if op.Security == nil {
			t.Errorf("%s: no security requirement (use [] for public)", o)
			continue
		}
		accepts := map[string]bool{}
		for _, req := range *op.Security {
			for name, sc := range req {
				accepts[name] = true
				if len(sc) != 0 {
					t.Errorf("%s: %s lists scopes; use x-required-scope", o, name)
				}
			}
		}
		if len(accepts) > 0 && !has("401") {
			t.Errorf("%s: authenticated but no 401 response", o)
		}
		got, _ := op.Extensions["x-required-scope"].(string)
		if scope == "-" {
			if got != "" || accepts["apiKeyHeader"] || accepts["apiKeyBearer"] {
				t.Errorf("%s: takes API keys or names a scope", o)
			}
			if strings.HasPrefix(o.path, "/portal/") && o.path != "/portal/api/signup" && o.path != "/portal/api/login" &&
				(!accepts["portalToken"] || !accepts["portalSession"]) {
				t.Errorf("%s: portal operations take the portal token or session", o)
			}
			continue
		}
		gotOp := map[string]any{"apiKeyHeader": accepts["apiKeyHeader"], "apiKeyBearer": accepts["apiKeyBearer"], "scope": got}
		wantOp := map[string]any{"apiKeyHeader": true, "apiKeyBearer": true, "scope": scope}
		if scope != "" {
			gotOp["scopeDescribed"] = strings.Contains(op.Description, "`"+scope+"`")
			wantOp["scopeDescribed"] = true
		}
		if diff := cmp.Diff(wantOp, gotOp); diff != "" {
			t.Errorf("%s: API keys in both places and x-required-scope named in the description are required (-want +got):\n%s", o, diff)
		}
		// The MCP door takes the Idempotency-Key as a tool argument.
		if o.method == "POST" && o.path != "/mcp" && !slices.ContainsFunc(op.Parameters, func(p *openapi3.ParameterRef) bool { return p.Value.Name == "Idempotency-Key" }) {
			t.Errorf("%s: no Idempotency-Key parameter", o)
		}
	}
	if len(ids) != len(propertyEndpoints) {
		t.Errorf("%d operations, want %d", len(ids), len(propertyEndpoints))
	}
}

func TestPropertyRequestBodiesAreClosed(t *testing.T) {
	doc := mustLoadProperty(t)
	for _, o := range propertyOps(doc) {
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

// TestPropertyResponseSchemasAreComplete: every property of a response
// object is sent (required), nullable or not.
func TestPropertyResponseSchemasAreComplete(t *testing.T) {
	doc := mustLoadProperty(t)
	optional := map[string]bool{"Error": true, "Error.error": true}
	seen := map[*openapi3.Schema]bool{}
	var walk func(where string, s *openapi3.Schema)
	walk = func(where string, s *openapi3.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if len(s.Properties) > 0 && !optional[where] {
			for name := range s.Properties {
				if !slices.Contains(s.Required, name) {
					t.Errorf("%s.%s: response property not required", where, name)
				}
			}
		}
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
		for i, sub := range s.AllOf {
			visit(fmt.Sprintf("%s/%d", where, i), sub)
		}
	}
	for _, o := range propertyOps(doc) {
		for code, ref := range o.op.Responses.Map() {
			for _, m := range ref.Value.Content {
				walk(fmt.Sprintf("%s %s", o, code), &openapi3.Schema{Properties: openapi3.Schemas{"body": m.Schema}, Required: []string{"body"}})
			}
		}
	}
	if len(seen) < 25 {
		t.Errorf("walked only %d schemas", len(seen))
	}
}

// TestPropertyExamplesWithStrictFormats validates the examples with the
// formats kin-openapi leaves unchecked by default.
func TestPropertyExamplesWithStrictFormats(t *testing.T) {
	strict := map[string]openapi3.StringFormatValidator{
		"uuid":  openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562),
		"email": openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForEmail),
		"uri": openapi3.NewCallbackValidator(func(s string) error {
			if u, err := url.Parse(s); err != nil || u.Scheme == "" || u.Host == "" {
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
	if err := mustLoadProperty(t).Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatal(err)
	}
}

// TestPropertyMatchesDomain keeps the document's enumerations in step with
// the values the server uses.
func TestPropertyMatchesDomain(t *testing.T) {
	doc := mustLoadProperty(t)
	enum := func(name string) []string {
		var out []string
		for _, v := range doc.Components.Schemas[name].Value.Enum {
			out = append(out, v.(string))
		}
		return out
	}
	var currencies []string
	for _, c := range property.CountryCodes {
		currencies = append(currencies, property.Currencies[c])
	}
	for name, want := range map[string][]string{
		"CountryCode": property.CountryCodes, "PropertyType": property.Types, "Amenity": property.Amenities,
		"Scope": property.Scopes, "BookingStatus": property.BookingStatuses, "Currency": currencies,
		"KeyMode": {property.ModeTest, property.ModeLive},
	} {
		if got := enum(name); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	code := doc.Components.Schemas["CancellationPolicy"].Value.Properties["code"].Value.Enum
	if len(code) != len(property.PolicyCodes) {
		t.Errorf("policy codes %v", code)
	}
	// Every code the property API can answer with has its row.
	desc := doc.Components.Schemas["Error"].Value.Description
	for _, c := range append(append([]httpx.CodeInfo(nil), httpx.Codes...), httpx.PropertyCodes...) {
		row := regexp.MustCompile("(?m)^\\| `" + c.Code + "` \\| " + fmt.Sprint(c.Status) + " \\|")
		if !row.MatchString(desc) {
			t.Errorf("Error description has no row for %s (%d)", c.Code, c.Status)
		}
	}
	for _, r := range property.Reasons {
		if !strings.Contains(doc.Info.Description, "| `"+r+"` |") {
			t.Errorf("the reason %s is not in the introduction's table", r)
		}
	}
}

func TestPropertyJSON(t *testing.T) {
	b, err := PropertyJSON()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := PropertyJSON()
	if &b[0] != &b2[0] {
		t.Error("PropertyJSON is computed more than once")
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the JSON form does not validate: %v", err)
	}
	if len(propertyOps(doc)) != len(propertyEndpoints) || !strings.Contains(string(b), `"x-required-scope":"bookings:write"`) {
		t.Error("the JSON form lost operations or extensions")
	}
}

// TestPropertySchemasMatchGoTypes encodes the types the server sends and
// checks each against its schema: the same field names, and values that
// validate.
func TestPropertySchemasMatchGoTypes(t *testing.T) {
	doc := mustLoadProperty(t)
	id := "019b8c18-e380-75d5-8ff7-91376d1520ec"
	jpy := property.Money{Amount: 15000, Currency: "JPY"}
	policy, _ := property.Policy(property.PolicyModerate)
	d := property.NewDate(2026, 12, 10)
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	nightly := []property.NightlyPrice{{Date: d, Price: jpy}}
	cases := map[string]any{
		"PropertySummary": property.PropertySummary{ID: id, Name: "n", Type: "hotel", City: "Tokyo", CountryCode: "JP", Timezone: "Asia/Tokyo",
			Currency: "JPY", Amenities: []string{"wifi"}, FromPrice: jpy, LowestTotal: &jpy, Status: "active"},
		"Property": property.Property{ID: id, Type: "ryokan", CountryCode: "JP", Currency: "JPY", CheckInTime: "15:00", CheckOutTime: "10:00",
			Amenities: []string{}, Images: []string{}, CancellationPolicy: policy, RoomTypes: []property.RoomType{{ID: id, MaxGuests: 2, Beds: []property.Bed{{Type: "futon", Count: 2}}, BasePrice: jpy}}, Status: "draft"},
		"CalendarResult":    property.CalendarResult{UpdatedNights: 3},
		"InventoryConflict": property.InventoryConflict{RoomTypeID: id, Date: d, Units: 1, Booked: 1, Held: 1},
		"Night":             property.Night{Date: d, Price: jpy, MinStay: 1},
		"Availability":      property.Availability{PropertyID: id, From: d, To: d.AddDays(1), Currency: "JPY", RoomTypes: []property.RoomTypeAvailability{{RoomTypeID: id, Nights: []property.Night{}}}},
		"Quote": property.Quote{ID: id, PropertyID: id, RoomTypeID: id, CheckIn: d, CheckOut: d.AddDays(1), Nights: 1, Guests: 2, Nightly: nightly,
			Total: jpy, CancellationPolicy: policy, ExpiresAt: now, CreatedAt: now},
		"Booking": property.Booking{ID: id, Status: "CONFIRMED", PropertyID: id, RoomTypeID: id, CheckIn: d, CheckOut: d.AddDays(1), Nights: 1, Guests: 1,
			Guest: property.Guest{FirstName: "A", LastName: "B", Email: "a@example.com"}, Nightly: nightly, Total: jpy, CancellationPolicy: policy,
			CancellationFee: &jpy, CreatedAt: now, UpdatedAt: now},
		"ApiKey":    property.Key{ID: id, Name: "k", KeyPrefix: "pk_test_abcd", Mode: "test", Scopes: property.Scopes, CreatedAt: now},
		"UsageDay":  property.UsageDay{Date: d, KeyID: id, KeyPrefix: "pk_test_abcd", Requests: 3, RateLimited: 1},
		"Developer": property.Developer{ID: id, Email: "a@example.com", Name: "A", CreatedAt: now},
	}
	for name, v := range cases {
		s := doc.Components.Schemas[name].Value
		b, _ := json.Marshal(v)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			if s.Properties[k] == nil {
				t.Errorf("%s: the server sends %q, which the schema does not describe", name, k)
			}
		}
		for p := range s.Properties {
			if _, ok := m[p]; !ok {
				t.Errorf("%s: the schema describes %q, which the server does not send", name, p)
			}
		}
		if err := s.VisitJSON(m); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
