package mcpx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// MaxBatch is the most JSON-RPC messages one request may carry (a batch,
// which protocol 2025-03-26 allows). Each is metered, and a larger batch
// is refused before any is handled, so one request cannot make the
// server do, hold or send more than this many answers.
const MaxBatch = 20

// MaxAnswer bounds the body of an answer. A tool's answer is bounded by
// the REST pages it reads; this holds whatever the SDK would make of a
// request, and an answer past it is replaced by a JSON-RPC error.
const MaxAnswer = 8 << 20

// Meter counts one JSON-RPC message of the key against its rate limit and
// usage, setting the X-RateLimit-* headers on w. It answers the REST API's error
// (RATE_LIMITED) once the budget is spent.
type Meter func(w http.ResponseWriter, r *http.Request, p *Principal) error

// methods are the JSON-RPC methods the door serves: the SDK's for what
// this server offers (tools, no prompts, resources or subscriptions).
// Another call answers -32601, another notification is dropped.
var methods = map[string]bool{
	"initialize": true, "ping": true, "tools/list": true, "tools/call": true, "server/discover": true,
	"logging/setLevel":          true,
	"notifications/initialized": true, "notifications/cancelled": true, "notifications/progress": true,
	"notifications/roots/list_changed": true,
}

// message is what the door reads of a JSON-RPC message.
type message struct {
	raw     json.RawMessage
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

func (m *message) call() bool { return m.ID != nil }

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorObject  `json:"error"`
}

type rpcErrorObject struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func newRPCError(id json.RawMessage, code int64, msg string) rpcError {
	if id == nil {
		id = json.RawMessage("null")
	}
	return rpcError{JSONRPC: "2.0", ID: id, Error: rpcErrorObject{Code: code, Message: msg}}
}

// writeJSON sends v as the JSON answer with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Only the door's own values are written here.
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	w.Write(b)
}

// parseMessages reads a request's JSON-RPC message or batch, or answers
// why it cannot be served: a parse error, an empty or oversized batch, an
// element that is not a JSON-RPC 2.0 message.
func parseMessages(body []byte) (msgs []*message, batch bool, refusal *rpcError) {
	var raws []json.RawMessage
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		batch = true
		if err := json.Unmarshal(body, &raws); err != nil {
			e := newRPCError(nil, jsonrpc.CodeParseError, "The body is not JSON.")
			return nil, batch, &e
		}
		if len(raws) == 0 || len(raws) > MaxBatch {
			e := newRPCError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("A batch carries 1 to %d messages; this one has %d.", MaxBatch, len(raws)))
			return nil, batch, &e
		}
	} else {
		raws = []json.RawMessage{body}
	}
	for _, raw := range raws {
		m := &message{raw: raw}
		if err := json.Unmarshal(raw, m); err != nil {
			var probe any
			if !batch && json.Unmarshal(raw, &probe) != nil {
				e := newRPCError(nil, jsonrpc.CodeParseError, "The body is not JSON.")
				return nil, batch, &e
			}
			e := newRPCError(nil, jsonrpc.CodeInvalidRequest, "Each message is a JSON-RPC 2.0 object.")
			return nil, batch, &e
		}
		if m.JSONRPC != "2.0" || (m.Method == "" && m.Result == nil && m.Error == nil) {
			e := newRPCError(m.ID, jsonrpc.CodeInvalidRequest, `Each message is a JSON-RPC 2.0 object ("jsonrpc": "2.0") with a method, or a response.`)
			return nil, batch, &e
		}
		msgs = append(msgs, m)
	}
	return msgs, batch, nil
}

// originOf is the origin (scheme://host[:port]) of an absolute URL.
func originOf(publicURL string) string {
	u, err := url.Parse(publicURL)
	if err != nil {
		return publicURL
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// allowedOrigin reports whether a request's Origin header may drive the
// endpoint: none, the public origin, or, when the request names a
// loopback Host, that Host's own origin. A page that rebinds its own name
// to a loopback address still sends its name as Host and Origin, so it is
// refused; a client on the machine itself that dials 127.0.0.1 names the
// address it dialled, not the public URL's host.
func allowedOrigin(r *http.Request, public string) bool {
	o := r.Header.Get("Origin")
	if o == "" || strings.EqualFold(o, public) {
		return true
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(r.Host, "["), "]")
	}
	return httpx.Loopback(host) && strings.EqualFold(o, scheme+"://"+r.Host)
}

// Endpoint is the API's POST /mcp. It refuses a request whose Origin is
// present and neither publicURL's nor, on a loopback Host, the request's
// own (403, as the MCP transport requires, so a web page elsewhere cannot
// drive it), checks the request's text before
// the key is looked up (as the REST API's Decode does), authenticates the
// key with authenticate, meters every JSON-RPC message the request
// carries with meter (a batch of at most MaxBatch) and serves them with
// the principal in the context. Refusals before the key is known answer
// through refuse: the API's limit on requests without a valid key, which
// counts them and sets the X-RateLimit-* headers; a 401 carries the
// Bearer challenge. What the MCP layer refuses is a JSON-RPC error
// object, and no answer grows past MaxAnswer.
func (d *Door) Endpoint(publicURL string, authenticate func(*http.Request) (*Principal, error), meter Meter,
	refuse func(httpx.HandlerFunc) httpx.HandlerFunc) http.Handler {
	origin := originOf(publicURL)
	return httpx.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		if !allowedOrigin(r, origin) {
			return refuse(func(w http.ResponseWriter, _ *http.Request) error {
				writeJSON(w, http.StatusForbidden, newRPCError(nil, jsonrpc.CodeInvalidRequest, "Requests from the origin "+strconv.Quote(r.Header.Get("Origin"))+" are not allowed."))
				return nil
			})(w, r)
		}
		err := httpx.CheckJSONBody(w, r, d.maxBody)
		var p *Principal
		if err == nil {
			p, err = authenticate(r)
		}
		if err != nil {
			if apperr.Code(err) == apperr.Unauthorized {
				d.challenge(w, r, publicURL)
			}
			return refuse(func(http.ResponseWriter, *http.Request) error { return err })(w, r)
		}
		body, err := io.ReadAll(r.Body) // in memory: CheckJSONBody read it
		if err != nil {
			return err
		}
		msgs, batch, refusal := parseMessages(body)
		if refusal != nil {
			// The refused request counts as one message.
			if err := meter(w, r, p); err != nil {
				return err
			}
			writeJSON(w, http.StatusBadRequest, refusal)
			return nil
		}
		for range msgs {
			if err := meter(w, r, p); err != nil {
				return err
			}
		}
		if scope := d.missingScope(p, msgs); scope != "" {
			w.Header().Set("WWW-Authenticate", ScopeChallenge(publicURL, scope))
			e := apperr.Errorf(apperr.Scope, "The person has not granted this application the %s scope this tool needs; ask for it.", scope)
			e.Details = map[string]any{"requiredScope": scope}
			return e
		}
		return d.serve(w, r.WithContext(WithPrincipal(r.Context(), p)), body, msgs, batch)
	})
}

// missingScope returns the scope an application's token lacks for a tool
// the messages call, or "". A key's calls beyond its scopes are answered
// by the tool (see AddTool); a token's get the HTTP refusal the MCP
// authorization specification gives, which clients act on.
func (d *Door) missingScope(p *Principal, msgs []*message) string {
	if p.ClientID == "" {
		return ""
	}
	for _, m := range msgs {
		if m.Method != "tools/call" {
			continue
		}
		var params struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(m.Params, &params) != nil {
			continue
		}
		if scope, ok := d.scopes[params.Name]; ok && !p.allows(scope) {
			return scope
		}
	}
	return ""
}

// serve answers the metered messages: a call of a method the door does not
// serve with -32601, another notification not at all, the rest by the
// SDK, whose answer is made JSON and bounded.
func (d *Door) serve(w http.ResponseWriter, r *http.Request, body []byte, msgs []*message, batch bool) error {
	var pass []json.RawMessage
	var errs []rpcError
	for _, m := range msgs {
		switch {
		case m.Method == "" || methods[m.Method]:
			pass = append(pass, m.raw)
		case m.call():
			errs = append(errs, newRPCError(m.ID, jsonrpc.CodeMethodNotFound, "The method "+strconv.Quote(m.Method)+" is not served here."))
		}
	}
	var singleID json.RawMessage
	if !batch {
		singleID = msgs[0].ID
	}
	if len(pass) == 0 {
		switch {
		case len(errs) == 0:
			w.WriteHeader(http.StatusAccepted)
		case batch:
			writeJSON(w, http.StatusOK, errs)
		default:
			writeJSON(w, http.StatusOK, errs[0])
		}
		return nil
	}
	if batch {
		var err error
		if body, err = json.Marshal(pass); err != nil {
			return err
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	cw := &capture{header: w.Header()}
	d.handler.ServeHTTP(cw, r)
	status := cw.code()
	ctype, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
	switch {
	case cw.over:
		d.logger.WarnContext(r.Context(), "mcp answer over the bound", "server", d.name, "request_id", httpx.RequestID(r.Context()))
		writeJSON(w, http.StatusOK, newRPCError(singleID, jsonrpc.CodeInternalError,
			fmt.Sprintf("The answer would exceed %d bytes; ask for less (fewer messages, smaller pages).", MaxAnswer)))
	case status >= 400 && ctype != "application/json":
		// The SDK's refusals are plain text: the same reason, as JSON-RPC.
		writeJSON(w, status, newRPCError(singleID, jsonrpc.CodeInvalidRequest, strings.TrimSpace(cw.body.String())))
	case len(errs) > 0 && status == http.StatusAccepted:
		writeJSON(w, http.StatusOK, errs)
	case len(errs) > 0 && status == http.StatusOK && batch:
		var answers []json.RawMessage
		if err := json.Unmarshal(cw.body.Bytes(), &answers); err != nil {
			return err
		}
		for _, e := range errs {
			b, err := json.Marshal(e)
			if err != nil {
				return err
			}
			answers = append(answers, b)
		}
		writeJSON(w, http.StatusOK, answers)
	default:
		w.WriteHeader(status)
		w.Write(cw.body.Bytes())
	}
	return nil
}

// capture keeps the SDK's answer, up to MaxAnswer bytes; its headers are
// the real answer's.
type capture struct {
	header http.Header
	status int
	body   bytes.Buffer
	over   bool
}

func (c *capture) Header() http.Header { return c.header }

func (c *capture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}

func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if c.over || c.body.Len()+len(b) > MaxAnswer {
		c.over = true
		c.body.Reset()
		return 0, fmt.Errorf("mcpapi: answer over %d bytes", MaxAnswer)
	}
	return c.body.Write(b)
}

func (c *capture) code() int {
	if c.status == 0 {
		return http.StatusOK
	}
	return c.status
}
