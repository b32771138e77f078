package apitest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
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
