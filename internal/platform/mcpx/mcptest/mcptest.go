// Package mcptest drives an API's MCP endpoint in tests with the SDK's own
// client over HTTP, and reads its tool answers.
package mcptest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect connects the SDK's client to the MCP endpoint at url, sending
// header: value (the API key) with every request. The session closes when
// the test ends.
func Connect(t testing.TB, url, header, value string) *mcp.ClientSession {
	t.Helper()
	return ConnectClient(t, NewClient(nil), url, header, value, "")
}

// NewClient returns the SDK's client as the tests' agent, with opts.
func NewClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, opts)
}

// ConnectClient connects client as Connect does, speaking protocol
// version (the SDK's newest when empty).
func ConnectClient(t testing.TB, client *mcp.Client, url, header, value, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint:             url,
		HTTPClient:           &http.Client{Transport: headerTransport{header, value}},
		DisableStandaloneSSE: true,
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type headerTransport struct{ name, value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// Call calls a tool and, when it succeeds and out is not nil, decodes its
// structured result into out. It returns the result, which IsError when
// the API refused.
func Call(t testing.TB, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError && out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, b)
		}
	}
	return res
}

// Error returns the code and details of the REST error envelope a failed
// tool call carries, after checking that it is the whole envelope: a
// doc_url on publicURL and a request id.
func Error(t testing.TB, res *mcp.CallToolResult, publicURL string) (code string, details map[string]any) {
	t.Helper()
	if !res.IsError || len(res.Content) != 1 {
		t.Fatalf("want a tool error, got %+v", res)
	}
	var env struct {
		Error struct {
			Code    string
			Details map[string]any
			DocURL  string `json:"doc_url"`
		}
		RequestID string
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		t.Fatalf("error text is not the REST envelope: %s", text)
	}
	if !strings.HasPrefix(env.Error.DocURL, publicURL+"/docs/errors/") || env.RequestID == "" {
		t.Errorf("envelope without doc_url or requestId: %s", text)
	}
	return env.Error.Code, env.Error.Details
}

// Post sends body to the MCP endpoint at url as a client would (JSON,
// accepting JSON and event streams), with the header pairs given, and
// returns the answer with its body read.
func Post(t testing.TB, url, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// Batch is a JSON-RPC batch of n copies of the call method (ids 1 to n).
func Batch(n int, method string) string {
	msgs := make([]string, n)
	for i := range msgs {
		msgs[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, i+1, method)
	}
	return "[" + strings.Join(msgs, ",") + "]"
}

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// DecodeRPCError decodes an answer that must be one JSON error object.
func DecodeRPCError(t testing.TB, res *http.Response, body []byte) RPCError {
	t.Helper()
	var e RPCError
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q of %s", ct, body)
	}
	if err := json.Unmarshal(body, &e); err != nil || e.JSONRPC != "2.0" || e.Error.Code == 0 || e.Error.Message == "" {
		t.Errorf("not a JSON-RPC error: %s", body)
	}
	return e
}

// Check is a tool call of CheckOutputs.
type Check struct {
	Name string
	Args map[string]any
}

// CheckOutputs makes the calls in order and validates each structured
// result against the output schema the tool declares, as a client that
// validates does; out gets each result by tool name. With allReads, every
// read-only tool the session lists must be among the calls.
func CheckOutputs(t testing.TB, cs *mcp.ClientSession, allReads bool, calls ...Check) (out map[string]json.RawMessage) {
	t.Helper()
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		var s jsonschema.Schema
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if schemas[tool.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		if allReads && tool.Annotations.ReadOnlyHint && !slices.ContainsFunc(calls, func(c Check) bool { return c.Name == tool.Name }) {
			t.Errorf("read tool %s is not checked", tool.Name)
		}
	}
	out = map[string]json.RawMessage{}
	for _, c := range calls {
		res := Call(t, cs, c.Name, c.Args, nil)
		if res.IsError || res.StructuredContent == nil {
			t.Errorf("%s: %+v", c.Name, res.Content)
			continue
		}
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if err := schemas[c.Name].Validate(v); err != nil {
			t.Errorf("%s: output against its schema: %v", c.Name, err)
		}
		out[c.Name] = b
	}
	return out
}

// Origin is a Host and Origin pair of a request to an MCP endpoint, and
// the status the endpoint answers it with.
type Origin struct {
	Host, Origin string
	Status       int
}

// Origins are the pairs an endpoint whose public URL is publicURL serves
// (200) and refuses (403): it serves no Origin, the public origin, and on
// a loopback Host that Host's own origin, as a client on the machine
// sends it; it refuses a loopback Host with any other origin, and a Host
// other than the public one whose Origin names it (a page that rebinds
// its own name to the server's address).
func Origins(publicURL string) []Origin {
	return []Origin{
		{"example.com", "", 200},
		{"example.com", publicURL, 200},
		{"127.0.0.1:8080", "http://127.0.0.1:8080", 200},
		{"127.0.0.2:8080", "http://127.0.0.2:8080", 200},
		{"localhost:8080", "http://localhost:8080", 200},
		{"[::1]:8080", "http://[::1]:8080", 200},
		{"127.0.0.1:8080", publicURL, 200},
		{"127.0.0.1:8080", "https://evil.example", 403},
		{"127.0.0.1:8080", "http://localhost:8080", 403},
		{"127.0.0.1:8080", "http://127.0.0.1:9090", 403},
		{"127.0.0.1:8080", "https://127.0.0.1:8080", 403},
		{"127.0.0.1:8080", "null", 403},
		{"evil.example:8080", "http://evil.example:8080", 403},
		{"example.com", "http://example.com", 403},
	}
}
