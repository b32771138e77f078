package mcpx_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// keysSchema is the idempotency_keys table each product's migrations
// create.
var keysSchema = store.Schema{Name: "mcpx", Migrations: os.DirFS("testdata")}

type writeIn struct {
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
}

// written is the write's answer: which run of the operation gave it.
type written struct {
	Run int `json:"run"`
}

// writes serves a write tool, and the REST route it stands for, whose
// operation answers as the next outcome says: "ok" commits its answer as
// a store does, "refuse" is a refusal of the request, "fail" an error of
// the server, "outage" a database that cannot be reached. It returns the
// endpoint's URL, the REST route's, and the count of runs.
func writes(t *testing.T, engine store.Engine, next *atomic.Value) (mcpURL, restURL string, runs *atomic.Int64) {
	t.Helper()
	db := storetest.MustOpenDB(t, engine, keysSchema)
	keys := idempotency.NewKeys(db, clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)), 0)
	runs = new(atomic.Int64)
	op := func(ctx context.Context) (*written, error) {
		run := int(runs.Add(1))
		switch next.Load() {
		case "refuse":
			return nil, apperr.Errorf(apperr.Conflict, "Refused.")
		case "fail":
			return nil, errors.New("a bug")
		case "outage":
			return nil, fmt.Errorf("connect: %w", syscall.ECONNREFUSED)
		}
		out := &written{Run: run}
		return out, db.InTx(ctx, func(tx *sql.Tx) error { return idempotency.RecordResult(ctx, tx, out) })
	}
	const path = "/api/v1/writes"
	logger := slog.New(slog.DiscardHandler)
	d := mcpx.NewDoor("test", "1", "", 64<<10, logger, nil)
	mcpx.AddTool(d, &mcp.Tool{Name: "write", Description: "x", Annotations: mcpx.Creates}, "",
		func(ctx context.Context, _ *mcp.CallToolRequest, in writeIn) (*mcp.CallToolResult, *written, error) {
			return mcpx.Idempotent(ctx, mcpx.Write{Store: keys, Key: in.IdempotencyKey, Account: "acct", Mode: "live",
				Method: http.MethodPost, Path: path, Status: http.StatusCreated, Render: json.Marshal}, op)
		})
	authenticate := func(*http.Request) (*mcpx.Principal, error) { return &mcpx.Principal{KeyID: "k"}, nil }
	meter := func(http.ResponseWriter, *http.Request, *mcpx.Principal) error { return nil }
	refuse := func(h httpx.HandlerFunc) httpx.HandlerFunc { return h }
	rest := &idempotency.HTTP{Store: keys, Account: func(*http.Request) (string, string) { return "acct", "live" }, Render: json.Marshal, Logger: logger}
	mux := http.NewServeMux()
	mux.Handle("POST /mcp", d.Endpoint(publicURL, authenticate, meter, refuse))
	mux.Handle("POST "+path, httpx.Adapt(rest.Wrap(http.StatusCreated, nil, func(w http.ResponseWriter, r *http.Request) error {
		out, err := op(r.Context())
		if err != nil {
			return err
		}
		httpx.WriteJSON(w, http.StatusCreated, out)
		return nil
	})))
	outer := &httpx.Outer{Logger: logger, PublicURL: publicURL, Server: "test"}
	ts := httptest.NewServer(outer.Wrap(mux))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", ts.URL + path, runs
}

// answer is what a call of the write tool gave.
type answer struct {
	Run      int
	Replayed bool
	Code     string // the refusal's
}

// TestIdempotentWrite: a write tool's key is the REST route's. A success
// or a refusal is the key's answer, replayed to a retry through either
// door; a server error or an outage is not recorded, so that a retry
// with the same key runs again and can succeed.
func TestIdempotentWrite(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			var next atomic.Value
			mcpURL, restURL, runs := writes(t, engine, &next)
			cs := mcptest.Connect(t, mcpURL, "Authorization", "Bearer k")
			call := func(outcome, key string) answer {
				t.Helper()
				next.Store(outcome)
				var out written
				res := mcptest.Call(t, cs, "write", writeIn{IdempotencyKey: key}, &out)
				if res.IsError {
					code, _ := mcptest.Error(t, res, publicURL)
					return answer{Code: code}
				}
				return answer{Run: out.Run, Replayed: res.Meta["idempotentReplayed"] == true}
			}
			steps := []struct {
				name, outcome, key string
				want               answer
				runs               int64
			}{
				{"a success", "ok", "k1", answer{Run: 1}, 1},
				{"its retry replays it", "ok", "k1", answer{Run: 1, Replayed: true}, 1},
				{"a refusal", "refuse", "k2", answer{Code: apperr.Conflict}, 2},
				{"its retry replays it, though the call would now succeed", "ok", "k2", answer{Code: apperr.Conflict}, 2},
				{"a server error", "fail", "k3", answer{Code: apperr.Internal}, 3},
				{"its retry runs again", "ok", "k3", answer{Run: 4}, 4},
				{"an outage", "outage", "k4", answer{Code: apperr.Unavailable}, 5},
				{"its retry runs again", "ok", "k4", answer{Run: 6}, 6},
				{"without a key", "ok", "", answer{Run: 7}, 7},
				{"each call runs", "ok", "", answer{Run: 8}, 8},
				{"a key that is not one", "ok", strings.Repeat("k", 256), answer{Code: apperr.Validation}, 8},
			}
			for _, s := range steps {
				if diff := cmp.Diff(s.want, call(s.outcome, s.key)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", s.name, diff)
				}
				if n := runs.Load(); n != s.runs {
					t.Errorf("%s: %d runs, want %d", s.name, n, s.runs)
				}
			}

			// The REST route replays what the tool recorded under the key.
			for key, want := range map[string]struct {
				status int
				body   string
			}{"k1": {http.StatusCreated, `{"run":1}`}, "k4": {http.StatusCreated, `{"run":6}`}} {
				req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, restURL, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Idempotency-Key", key)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var body json.RawMessage
				if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				type got struct {
					Status   int
					Replayed string
					Body     string
				}
				if diff := cmp.Diff(got{want.status, "true", want.body}, got{res.StatusCode, res.Header.Get("Idempotent-Replayed"), string(body)}); diff != "" {
					t.Errorf("REST retry of %s (-want +got):\n%s", key, diff)
				}
			}
			if n := runs.Load(); n != 8 {
				t.Errorf("the REST retries ran the operation: %d runs", n)
			}
		})
	}
}
