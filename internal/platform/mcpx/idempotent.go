package mcpx

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/media"
)

// Write is a write tool's call with an idempotencyKey argument, as the
// REST request it stands for: it shares that request's key space, mode
// and fingerprint (idempotency.HTTP.Wrap), so that a retry through either
// door replays the first answer.
type Write struct {
	Store idempotency.Store
	// Key is the tool's idempotencyKey; empty runs the operation as is.
	Key string
	// Account and Mode are the key space and mode of the caller's REST
	// requests.
	Account, Mode string
	// Method, Path and Body are the REST request's; Body is its JSON
	// body, nil for none.
	Method, Path string
	Body         any
	// Status is the status of the REST request's success.
	Status int
	// Render turns the operation's result, as the store records it with
	// its effect, into the REST answer's body (the API's Render).
	Render func(result any) ([]byte, error)
}

// Idempotent runs op for a write tool, at most once for a non-empty
// w.Key, through idempotency.Do. Out is what the tool answers; it encodes
// as the REST answer's body, so that a replayed success decodes into it
// (marked in the result's _meta as REST marks it with a header) and a
// replayed refusal is the refusal again.
//
// An answer below 500, a success or a refusal of the request itself, is
// the key's for good. A server error or an outage (500, 503) is not
// recorded, so that a retry with the same key runs op again: the REST
// door's rule.
func Idempotent[Out any](ctx context.Context, w Write, op func(context.Context) (Out, error)) (*mcp.CallToolResult, Out, error) {
	var zero Out
	if w.Key == "" {
		out, err := op(ctx)
		if err != nil {
			return nil, zero, ErrorOf(ctx, err)
		}
		return nil, out, nil
	}
	if err := idempotency.CheckKey(w.Key); err != nil {
		return nil, zero, ErrorOf(ctx, err)
	}
	var body []byte
	if w.Body != nil {
		var err error
		if body, err = json.Marshal(w.Body); err != nil {
			return nil, zero, err
		}
	}
	// The answer as REST sends it: with absolute image URLs.
	resolve := func(result any) {
		if m, ok := result.(media.Referrer); ok {
			media.Resolve(ctx, m)
		}
	}
	// refusal is op's error as the door answers it, rendered once: a
	// server error's rendering logs it.
	var refusal *CallError
	result, stored, replayed, err := idempotency.Do(ctx, w.Store, idempotency.Call{
		Account: w.Account, Key: w.Key, Fingerprint: idempotency.Fingerprint(w.Method, w.Path, w.Mode, body), Status: w.Status,
		Render: func(result any) ([]byte, error) {
			resolve(result)
			return w.Render(result)
		},
		Answer: func(result any, err error) (int, []byte, bool) {
			if err == nil { // committed with its effect; recorded here only if it were not
				resolve(result)
				b, merr := json.Marshal(result)
				return w.Status, b, merr == nil
			}
			if !errors.As(ErrorOf(ctx, err), &refusal) {
				return 0, nil, false
			}
			return refusal.Status, refusal.Body, refusal.Status < http.StatusInternalServerError
		},
	}, func(ctx context.Context) (any, error) { return op(ctx) })
	switch {
	case err != nil && refusal != nil:
		return nil, zero, refusal
	case err != nil:
		return nil, zero, ErrorOf(ctx, err)
	case !replayed:
		return nil, result.(Out), nil
	case stored.Status >= http.StatusBadRequest:
		return nil, zero, RecordedRefusal(stored.Status, stored.Body)
	}
	var out Out
	if err := json.Unmarshal(stored.Body, &out); err != nil {
		return nil, zero, err
	}
	return &mcp.CallToolResult{Meta: mcp.Meta{"idempotentReplayed": true}}, out, nil
}
