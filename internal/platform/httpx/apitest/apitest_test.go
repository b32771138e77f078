package apitest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// recorder is a testing.TB that keeps the errors a Client reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

// nullableDoc writes a nullable Money the two ways seen in our documents:
// as allOf with nullable beside it, which OpenAPI 3.0 does not carry into
// the allOf (so null fails), and as a nullable object of its own.
const nullableDoc = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /loose:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  total:
                    type: object
                    nullable: true
                    allOf: [{$ref: '#/components/schemas/Money'}]
  /strict:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  total: {$ref: '#/components/schemas/NullableMoney'}
components:
  schemas:
    Money:
      type: object
      required: [amount]
      properties: {amount: {type: integer}}
    NullableMoney:
      type: object
      nullable: true
      required: [amount]
      properties: {amount: {type: integer}}
`

// TestNullableErrors: a nullable schema whose allOf refuses null is found
// (neither kin-openapi nor pb33f's validator refuses the null at run time);
// a nullable schema of its own is not.
func TestNullableErrors(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(nullableDoc))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /loose response 200/properties/total: nullable, but allOf[0] refuses null"}
	if got := NullableErrors(doc); !slices.Equal(got, want) {
		t.Errorf("NullableErrors = %q, want %q", got, want)
	}
}

// TestStrictValidatorRuns: the second validator reads the document and
// reports what kin-openapi reports too, so neither can be silently off.
func TestStrictValidatorRuns(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(nullableDoc))
	if err != nil {
		t.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"total": {"amount": "ten"}}`)
	})
	rec := &recorder{TB: t}
	New(rec, h, doc).Get("/strict").Expect(200)
	var strict bool
	for _, e := range rec.errs {
		strict = strict || strings.Contains(e, "(strict)")
	}
	if len(rec.errs) < 2 || !strict {
		t.Errorf("errors %q, want kin-openapi's and the strict validator's", rec.errs)
	}
}

// raceDoc has several operations whose responses share and nest schemas,
// so validating them compiles and renders many schemas at once.
const raceDoc = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/A'}
  /b:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/B'}
  /c:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  a: {$ref: '#/components/schemas/A'}
                  b: {$ref: '#/components/schemas/B'}
components:
  schemas:
    Money:
      type: object
      required: [amount, currency]
      properties: {amount: {type: integer}, currency: {type: string}}
    A:
      type: object
      required: [id]
      properties:
        id: {type: string}
        total: {$ref: '#/components/schemas/Money'}
        items: {type: array, items: {$ref: '#/components/schemas/Money'}}
    B:
      type: object
      required: [id]
      properties:
        id: {type: string}
        a: {$ref: '#/components/schemas/A'}
        tags: {type: array, items: {type: string}}
`

// TestConcurrentClients: the parallel tests of a package share one
// document and so one strict validator; run under -race, validating from
// many goroutines at once must neither race nor report anything.
func TestConcurrentClients(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(raceDoc))
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]string{
		"/a": `{"id":"a","total":{"amount":1,"currency":"JPY"},"items":[{"amount":2,"currency":"JPY"}]}`,
		"/b": `{"id":"b","a":{"id":"a"},"tags":["x"]}`,
		"/c": `{"a":{"id":"a"},"b":{"id":"b"}}`,
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, bodies[r.URL.Path])
	})
	var wg sync.WaitGroup
	recs := make([]*recorder, 16)
	for i := range recs {
		recs[i] = &recorder{TB: t}
		c := New(recs[i], h, doc)
		wg.Go(func() {
			for range 20 {
				for _, p := range []string{"/a", "/b", "/c"} {
					c.Get(p)
				}
			}
		})
	}
	wg.Wait()
	for i, r := range recs {
		if len(r.errs) > 0 {
			t.Errorf("client %d: %q", i, r.errs)
		}
	}
}
