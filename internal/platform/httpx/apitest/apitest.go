// Package apitest drives an API handler in tests the way a client would and
// checks every response against the API's OpenAPI document.
package apitest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"

	"github.com/wayfarer-asia/platform/internal/platform/auth"
)

// The API tests register hundreds of accounts: their password hashes are
// made cheap (each is still checked with the parameters it carries).
func init() { auth.SetTestPasswordCost() }

// Client sends requests to a handler.
type Client struct {
	tb      testing.TB
	handler http.Handler
	doc     *openapi3.T
	router  routers.Router
	strict  *strictValidator
	// RemoteAddr is the client address of the requests, "192.0.2.1:1234"
	// unless set.
	RemoteAddr string
	// Forbidden are strings no response may contain: password hashes,
	// secrets, internal error text. Tests add their own secrets.
	Forbidden []string
}

// leaks are what no response body may ever contain.
var leaks = []string{
	"$argon2id$",                          // a password hash
	"SQLSTATE", "sql: ", "pq: ", "sqlite", // database error text
	"database is locked", "runtime error", "goroutine ", "panic:",
}

// formats are the string formats checked beyond kin-openapi's defaults:
// "uri" is an absolute http(s) URL, which every image, link and doc_url
// must be (a path, or a URL without a host, is refused).
var formats = []openapi3.SchemaValidationOption{openapi3.WithStringFormatValidators(map[string]openapi3.StringFormatValidator{
	"uri": openapi3.NewCallbackValidator(func(s string) error {
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errors.New("not an absolute http(s) URL")
		}
		return nil
	}),
})}

// New returns a client of h that validates responses against doc.
func New(tb testing.TB, h http.Handler, doc *openapi3.T) *Client {
	tb.Helper()
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		tb.Fatalf("openapi router: %v", err)
	}
	strict, err := newStrictValidator(doc)
	if err != nil {
		tb.Fatalf("strict validator: %v", err)
	}
	return &Client{tb: tb, handler: h, doc: doc, router: router, strict: strict, RemoteAddr: "192.0.2.1:1234", Forbidden: append([]string(nil), leaks...)}
}

// strictValidators hold one validator per document: building one parses
// the whole document, so a test package parses its document once and
// passes the same *openapi3.T to every New.
var strictValidators sync.Map // *openapi3.T → func() (*strictValidator, error)

// strictValidator is a second validator of a document, pb33f's, which
// reads the document independently of kin-openapi, so a response only
// one of them accepts fails the test. The parallel tests of a package
// share it, but libopenapi renders schemas from the document's shared
// model as it compiles them, which is not safe for concurrent use: its
// calls are taken one at a time.
type strictValidator struct {
	mu sync.Mutex
	v  validator.Validator
}

func newStrictValidator(doc *openapi3.T) (*strictValidator, error) {
	f, _ := strictValidators.LoadOrStore(doc, sync.OnceValues(func() (*strictValidator, error) {
		spec, err := doc.MarshalJSON()
		if err != nil {
			return nil, err
		}
		d, err := libopenapi.NewDocument(spec)
		if err != nil {
			return nil, err
		}
		schemas := &lazySchemas{SchemaCache: cache.NewDefaultCache()}
		v, errs := validator.NewValidator(d, config.WithFormatAssertions(), config.WithSchemaCache(schemas))
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		schemas.built.Store(true)
		return &strictValidator{v: v}, nil
	}))
	return f.(func() (*strictValidator, error))()
}

// validate validates a response to req.
func (s *strictValidator) validate(req *http.Request, res *http.Response) (bool, []*liberrors.ValidationError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v.ValidateHttpResponse(req, res)
}

// lazySchemas is the strict validator's schema cache, which compiles a
// schema when a response first needs it. The validator would otherwise
// compile every schema of the document while it is built, request bodies
// and parameters included, though the tests validate only responses and
// each package answers with a part of the document.
type lazySchemas struct {
	cache.SchemaCache
	built atomic.Bool
}

// Load tells the validator, while it is built, that every schema is
// compiled already; afterwards a miss makes it compile the schema.
func (c *lazySchemas) Load(key uint64) (*cache.SchemaCacheEntry, bool) {
	if !c.built.Load() {
		return nil, true
	}
	return c.SchemaCache.Load(key)
}

// Response is a recorded response.
type Response struct {
	tb     testing.TB
	Status int
	Header http.Header
	// Body is the body as sent, decompressed when it was sent with
	// Content-Encoding: gzip; Raw is the body as sent.
	Body []byte
	Raw  []byte
}

// Do sends a request with an optional JSON body (a string is sent as is)
// and headers given as name, value pairs; a "Host" pair sets the request's
// host, which is "example.com" otherwise.
func (c *Client) Do(method, path string, body any, headers ...string) *Response {
	c.tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			c.tb.Fatal(err)
		}
		rd = bytes.NewReader(buf)
	}
	req := httptest.NewRequest(method, path, rd)
	req.RemoteAddr = c.RemoteAddr
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if http.CanonicalHeaderKey(headers[i]) == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	c.handler.ServeHTTP(rec, req)
	res := &Response{tb: c.tb, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes(), Raw: rec.Body.Bytes()}
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(res.Raw))
		if err != nil {
			c.tb.Fatalf("%s %s: Content-Encoding gzip, but: %v", method, path, err)
		}
		if res.Body, err = io.ReadAll(zr); err != nil {
			c.tb.Fatalf("%s %s: Content-Encoding gzip, but: %v", method, path, err)
		}
	}
	c.validate(req, res)
	if isJSON(res.Header) {
		for _, f := range c.Forbidden {
			if f != "" && bytes.Contains(res.Body, []byte(f)) {
				c.tb.Errorf("%s %s: the response contains %q: %s", method, path, f, truncate(res.Body))
			}
		}
	}
	return res
}

// Get is Do with GET and no body.
func (c *Client) Get(path string, headers ...string) *Response {
	c.tb.Helper()
	return c.Do(http.MethodGet, path, nil, headers...)
}

// validate checks res against the document: the operation's response for
// a documented route, else the Error schema for any error.
func (c *Client) validate(req *http.Request, res *Response) {
	c.tb.Helper()
	ctx := context.Background()
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		if res.Status < 400 || !isJSON(res.Header) {
			return // not an API route: docs pages, images
		}
		var v any
		if err := json.Unmarshal(res.Body, &v); err != nil {
			c.tb.Errorf("%s %s: error body is not JSON: %s", req.Method, req.URL, res.Body)
			return
		}
		if err := c.doc.Components.Schemas["Error"].Value.VisitJSON(v, formats...); err != nil {
			c.tb.Errorf("%s %s: error body does not match the Error schema: %v\n%s", req.Method, req.URL, err, res.Body)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status:  res.Status,
		Header:  res.Header,
		Body:    io.NopCloser(bytes.NewReader(res.Body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, SchemaValidationOptions: formats},
	}
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		c.tb.Errorf("%s %s: response %d does not match the OpenAPI document: %v\n%s", req.Method, req.URL, res.Status, err, truncate(res.Body))
	}
	if !isJSON(res.Header) {
		return
	}
	hr := &http.Response{StatusCode: res.Status, Header: res.Header.Clone(), Body: io.NopCloser(bytes.NewReader(res.Body)), Request: req}
	hr.Header.Del("Content-Encoding")
	if ok, errs := c.strict.validate(req, hr); !ok {
		for _, e := range errs {
			c.tb.Errorf("%s %s: response %d does not match the OpenAPI document (strict): %s: %s %v\n%s", req.Method, req.URL, res.Status, e.Message, e.Reason, e.SchemaValidationErrors, truncate(res.Body))
		}
	}
}

func isJSON(h http.Header) bool { return strings.HasPrefix(h.Get("Content-Type"), "application/json") }

func truncate(b []byte) []byte {
	if len(b) > 2000 {
		return append(b[:2000:2000], "..."...)
	}
	return b
}

// Expect fails the test unless the status is want.
func (r *Response) Expect(want int) *Response {
	r.tb.Helper()
	if r.Status != want {
		r.tb.Fatalf("status %d, want %d; body: %s", r.Status, want, truncate(r.Body))
	}
	return r
}

// Decode unmarshals the body into v.
func (r *Response) Decode(v any) {
	r.tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.tb.Fatalf("decode %s: %v", truncate(r.Body), err)
	}
}

// JSON returns the body as a generic JSON object.
func (r *Response) JSON() map[string]any {
	r.tb.Helper()
	var m map[string]any
	r.Decode(&m)
	return m
}

// ErrorCode returns error.code of an error envelope.
func (r *Response) ErrorCode() string {
	r.tb.Helper()
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	r.Decode(&e)
	return e.Error.Code
}

// ErrorDetails returns error.details of an error envelope.
func (r *Response) ErrorDetails() map[string]any {
	r.tb.Helper()
	var e struct {
		Error struct {
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	r.Decode(&e)
	return e.Error.Details
}
