// Package mcptest drives an API's MCP endpoint in tests with the SDK's own
// client over HTTP, and reads its tool answers.
package mcptest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

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
