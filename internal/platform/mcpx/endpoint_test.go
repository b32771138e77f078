package mcpx_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
)

const publicURL = "https://api.test"

// misshapen encodes as what its schema (an integer n) does not allow.
type misshapen struct {
	N int `json:"n"`
}

func (misshapen) MarshalJSON() ([]byte, error) { return []byte(`{"n":"not a number"}`), nil }

type bigOut struct {
	Text string `json:"text"`
}

// door serves a door whose tools fail in the ways only the server can:
// an answer too large, an error of ours, an output against its schema.
// It returns the endpoint's URL and the count of messages metered.
func door(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	d := mcpx.NewDoor("test", "1", "", 64<<10, logger, nil)
	mcpx.AddTool(d, &mcp.Tool{Name: "big", Description: "x", Annotations: mcpx.ReadOnly}, "",
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, bigOut, error) {
			return nil, bigOut{Text: strings.Repeat("a", mcpx.MaxAnswer)}, nil
		})
	mcpx.AddTool(d, &mcp.Tool{Name: "broken", Description: "x", Annotations: mcpx.ReadOnly}, "",
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, bigOut, error) {
			return nil, bigOut{}, errors.New("dial tcp 10.0.0.5:5432: connection refused")
		})
	mcpx.AddTool(d, &mcp.Tool{Name: "misshapen", Description: "x", Annotations: mcpx.ReadOnly}, "",
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, misshapen, error) {
			return nil, misshapen{}, nil
		})
	var metered atomic.Int64
	authenticate := func(*http.Request) (*mcpx.Principal, error) { return &mcpx.Principal{KeyID: "k"}, nil }
	meter := func(http.ResponseWriter, *http.Request, *mcpx.Principal) error { metered.Add(1); return nil }
	refuse := func(h httpx.HandlerFunc) httpx.HandlerFunc { return h }
	outer := &httpx.Outer{Logger: logger, PublicURL: publicURL, Server: "test"}
	ts := httptest.NewServer(outer.Wrap(d.Endpoint(publicURL, authenticate, meter, refuse)))
	t.Cleanup(ts.Close)
	return ts.URL, &metered
}

func call(tool string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

// TestAnswerBounded: an answer past MaxAnswer is never sent: the client
// gets a JSON-RPC error instead.
func TestAnswerBounded(t *testing.T) {
	url, metered := door(t)
	res, body := mcptest.Post(t, url, call("big"))
	rpc := mcptest.DecodeRPCError(t, res, body)
	got := map[string]any{"status": res.StatusCode, "rpc code": rpc.Error.Code, "id": rpc.ID, "body over 1 KiB": len(body) > 1<<10}
	want := map[string]any{"status": 200, "rpc code": -32603, "id": float64(1), "body over 1 KiB": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("big answer (-want +got):\n%s\n%.300s", diff, body)
	}
	if metered.Load() != 1 {
		t.Errorf("%d messages metered, want 1", metered.Load())
	}
}

// TestInternalsHidden: a tool's own failure and an output that breaks
// its schema show a generic message with the request id, never the Go
// error's text.
func TestInternalsHidden(t *testing.T) {
	url, _ := door(t)

	res, body := mcptest.Post(t, url, call("broken"))
	var toolRes struct {
		Result struct {
			IsError bool
			Content []struct{ Text string }
		}
	}
	if err := json.Unmarshal(body, &toolRes); err != nil || !toolRes.Result.IsError || len(toolRes.Result.Content) != 1 {
		t.Fatalf("broken: %d %s", res.StatusCode, body)
	}
	var env struct {
		Error     struct{ Code string }
		RequestID string
	}
	text := toolRes.Result.Content[0].Text
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		t.Errorf("broken: %v: %s", err, text)
	} else {
		got := map[string]any{"code": env.Error.Code, "request id": env.RequestID, "leaks address": strings.Contains(text, "10.0.0.5")}
		want := map[string]any{"code": "INTERNAL_ERROR", "request id": res.Header.Get("X-Request-Id"), "leaks address": false}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("broken (-want +got):\n%s", diff)
		}
	}

	res, body = mcptest.Post(t, url, call("misshapen"))
	rpc := mcptest.DecodeRPCError(t, res, body)
	got := map[string]any{
		"rpc code":            rpc.Error.Code,
		"names request id":    strings.Contains(rpc.Error.Message, res.Header.Get("X-Request-Id")),
		"leaks validation":    strings.Contains(string(body), "validating"),
		"leaks invalid value": strings.Contains(string(body), "not a number"),
	}
	want := map[string]any{"rpc code": -32603, "names request id": true, "leaks validation": false, "leaks invalid value": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("misshapen (-want +got):\n%s\n%d %s", diff, res.StatusCode, body)
	}
}
