package guidehttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
	"github.com/wayfarer-asia/platform/internal/platform/webui"
)

// elicitEnv is a traveller with a booking to cancel and a key an agent
// holds, behind a real HTTP server.
type elicitEnv struct {
	*env
	ts        *httptest.Server
	u         user
	key       string
	bookingID string
}

func newElicitEnv(t *testing.T, email string) *elicitEnv {
	e := newEnv(t, options{})
	x := &elicitEnv{env: e, u: e.register(t, email, "TOURIST")}
	var pkg string
	if err := e.db.QueryRow(`SELECT id FROM packages WHERE is_active = TRUE ORDER BY id LIMIT 1`).Scan(&pkg); err != nil {
		t.Fatal(err)
	}
	var created struct{ Data struct{ ID string } }
	e.Do("POST", "/api/v1/bookings", map[string]any{"packageId": pkg, "scheduledDate": e.clock.Now().Add(72 * time.Hour).Format(time.RFC3339)},
		bearer(x.u.token)...).Expect(201).Decode(&created)
	x.bookingID = created.Data.ID
	x.key = e.apiKey(t, x.u, "bookings:read", "bookings:write", "profile:write")
	x.ts = httptest.NewServer(e.srv)
	t.Cleanup(x.ts.Close)
	return x
}

// urlClient is an agent whose client takes URL elicitations: handle plays
// the person the client shows the page to.
func urlClient(handle func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), mrtr bool) *mcp.Client {
	return mcptest.NewClient(&mcp.ClientOptions{
		Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: handle,
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: !mrtr},
	})
}

func (x *elicitEnv) connect(t *testing.T, client *mcp.Client, version string) *mcp.ClientSession {
	return mcptest.ConnectClient(t, client, x.ts.URL+"/mcp", "Authorization", "Bearer "+x.key, version)
}

// fetch makes a request to the server as a browser would, with a bearer
// token when one is given.
func (x *elicitEnv) fetch(ctx context.Context, method, path, token, body string) (*http.Response, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, x.ts.URL+path, strings.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, string(b), err
}

func (x *elicitEnv) actions(t *testing.T) int {
	return x.count(t, `SELECT COUNT(*) FROM pending_actions WHERE user_id = $1`, x.u.id)
}

func (x *elicitEnv) bookingStatus(t *testing.T) string {
	var status string
	if err := x.db.QueryRow(`SELECT status FROM bookings WHERE id = $1`, x.bookingID).Scan(&status); err != nil {
		t.Fatal(err)
	}
	return status
}

// TestMCPURLElicitation: a client on protocol 2026-07-28 that takes URL
// elicitations is asked to send the person to the confirmation page; the
// person signs in there and confirms; the tool's second call reports the
// outcome. The client's reply confirms nothing by itself.
func TestMCPURLElicitation(t *testing.T) {
	t.Parallel()

	t.Run("the person confirms on the page", func(t *testing.T) {
		t.Parallel()
		x := newElicitEnv(t, "elicit-confirm@example.com")
		var asked []*mcp.ElicitParams
		var token string
		person := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			// The client runs this in its own goroutine: failures are
			// reported with t.Error and an error, never t.Fatal.
			p := req.Params
			asked = append(asked, p)
			if p.Mode != "url" || p.URL != publicURL+"/confirm/?action="+p.ElicitationID || !strings.Contains(p.Message, "cancel a booking") {
				t.Errorf("elicitation: %+v", p)
			}
			// The page is ours: HTML under the pages' CSP.
			page, body, err := x.fetch(ctx, "GET", strings.TrimPrefix(p.URL, publicURL), "", "")
			gotPage := map[string]any{"err": err}
			if err == nil {
				gotPage["status"] = page.StatusCode
				gotPage["csp"] = page.Header.Get("Content-Security-Policy")
				gotPage["script"] = strings.Contains(body, "/confirm/assets/confirm.js")
			}
			wantPage := map[string]any{"err": nil, "status": 200, "csp": webui.PortalCSP, "script": true}
			if diff := cmp.Diff(wantPage, gotPage, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
			if x.bookingStatus(t) != "PENDING" {
				t.Error("cancelled before the person confirmed")
			}
			// Signed in there, the person confirms, as the page's script does.
			login, body, err := x.fetch(ctx, "POST", "/api/v1/auth/login", "", `{"email":"elicit-confirm@example.com","password":"correct-horse-1"}`)
			if err != nil || login.StatusCode != 200 {
				t.Errorf("login: %v %v", login, err)
				return nil, err
			}
			var tok struct{ Token string }
			if err := json.Unmarshal([]byte(body), &tok); err != nil {
				return nil, err
			}
			token = tok.Token
			if res, _, err := x.fetch(ctx, "POST", "/api/v1/actions/"+p.ElicitationID+"/confirm", token, ""); err != nil || res.StatusCode != 200 {
				t.Errorf("confirm: %v %v", res, err)
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
		cs := x.connect(t, urlClient(person, true), "")
		var done struct {
			ActionID, Status, PageURL string
			Result                    struct{ ID, Status string }
		}
		if res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": x.bookingID}, &done); res.IsError {
			t.Fatalf("cancel_booking: %+v", res)
		}
		gotDone := map[string]any{
			"asked": len(asked), "actionID": done.ActionID, "status": done.Status,
			"resultID": done.Result.ID, "resultStatus": done.Result.Status, "pageURL": done.PageURL,
		}
		wantDone := map[string]any{
			"asked": 1, "actionID": "", "status": "confirmed",
			"resultID": x.bookingID, "resultStatus": "CANCELLED", "pageURL": "",
		}
		if len(asked) > 0 {
			wantDone["actionID"] = asked[0].ElicitationID
			wantDone["pageURL"] = asked[0].URL
		}
		if diff := cmp.Diff(wantDone, gotDone); diff != "" {
			t.Fatalf("after the page (-want +got):\n%s", diff)
		}
		if x.bookingStatus(t) != "CANCELLED" || x.actions(t) != 1 {
			t.Fatalf("booking %s, %d actions", x.bookingStatus(t), x.actions(t))
		}
		// What the page shows: the action names its target and its key.
		var read struct {
			Data struct {
				Action, Status, TargetID string
				APIKeyID                 *string
			}
		}
		x.Get("/api/v1/actions/"+done.ActionID, bearer(token)...).Expect(200).Decode(&read)
		gotRead := map[string]any{
			"action": read.Data.Action, "targetID": read.Data.TargetID, "apiKeySet": read.Data.APIKeyID != nil, "status": read.Data.Status,
		}
		wantRead := map[string]any{"action": "booking.cancel", "targetID": x.bookingID, "apiKeySet": true, "status": "confirmed"}
		if diff := cmp.Diff(wantRead, gotRead); diff != "" {
			t.Errorf("the page's read (-want +got):\n%s", diff)
		}
		metrics := string(x.Get("/metrics").Expect(200).Body)
		for _, want := range []string{
			`mcp_tool_calls_total{outcome="input_required",server="guide",tool="cancel_booking"} 1`,
			`mcp_tool_calls_total{outcome="ok",server="guide",tool="cancel_booking"} 1`,
		} {
			if !strings.Contains(metrics, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
	})

	t.Run("the person declines", func(t *testing.T) {
		t.Parallel()
		x := newElicitEnv(t, "elicit-decline@example.com")
		// An active booking would block the closure.
		x.Do("POST", "/api/v1/bookings/"+x.bookingID+"/cancel", nil, bearer(x.u.token)...).Expect(200)
		calls := 0
		person := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			calls++
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		cs := x.connect(t, urlClient(person, true), "")
		var out struct{ Action, Status, Message string }
		if res := mcptest.Call(t, cs, "close_account", map[string]any{}, &out); res.IsError {
			t.Fatalf("close_account: %+v", res)
		}
		gotOut := map[string]any{
			"calls": calls, "action": out.Action, "status": out.Status,
			"explains": strings.Contains(out.Message, "did not open the confirmation page"),
		}
		wantOut := map[string]any{"calls": 1, "action": "account.delete", "status": "pending", "explains": true}
		if diff := cmp.Diff(wantOut, gotOut); diff != "" {
			t.Fatalf("declined (-want +got):\n%s", diff)
		}
		if n := x.count(t, `SELECT COUNT(*) FROM users WHERE id = $1 AND deleted_at IS NULL`, x.u.id); n != 1 || x.actions(t) != 1 {
			t.Fatalf("account open %d, %d actions", n, x.actions(t))
		}
	})

	t.Run("older protocol: the action is returned, nobody is asked", func(t *testing.T) {
		t.Parallel()
		x := newElicitEnv(t, "elicit-old@example.com")
		person := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("a stateless server cannot ask a 2025-11-25 client mid-call")
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		cs := x.connect(t, urlClient(person, true), "2025-11-25")
		var out struct{ ActionID, Status, PageURL string }
		if res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": x.bookingID}, &out); res.IsError ||
			out.Status != "pending" || out.PageURL != publicURL+"/confirm/?action="+out.ActionID {
			t.Fatalf("cancel_booking: %+v %+v", res, out)
		}
	})

	t.Run("the request state is checked, never trusted", func(t *testing.T) {
		t.Parallel()
		x := newElicitEnv(t, "elicit-state@example.com")
		cs := x.connect(t, urlClient(nil, false), "")
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "cancel_booking", Arguments: map[string]any{"id": x.bookingID}})
		if err != nil {
			t.Fatal(err)
		}
		ask, ok := res.InputRequests["confirm"].(*mcp.ElicitParams)
		gotRes := map[string]any{
			"needsInput": res.NeedsInput(), "elicit": ok, "content": len(res.Content), "structured": res.StructuredContent != nil,
		}
		wantRes := map[string]any{"needsInput": true, "elicit": true, "content": 0, "structured": false}
		if ok {
			gotRes["mode"] = ask.Mode
			gotRes["requestState"] = res.RequestState
			wantRes["mode"] = "url"
			wantRes["requestState"] = ask.ElicitationID
		}
		if diff := cmp.Diff(wantRes, gotRes); diff != "" {
			t.Fatalf("input-required answer (-want +got):\n%s", diff)
		}
		if x.actions(t) != 1 {
			t.Fatalf("%d actions", x.actions(t))
		}

		// Another person's action, a malformed state, and this key's
		// action named for another tool or booking are refused, and
		// nothing is created.
		other := newElicitEnv(t, "elicit-other@example.com")
		var theirs struct{ ActionID string }
		mcptest.Call(t, other.connect(t, mcptest.NewClient(nil), ""), "cancel_booking", map[string]any{"id": other.bookingID}, &theirs)
		for _, tc := range []struct {
			tool, state string
			args        map[string]any
			code        string
		}{
			{"cancel_booking", theirs.ActionID, map[string]any{"id": x.bookingID}, "NOT_FOUND"},
			{"cancel_booking", "'; DROP TABLE pending_actions; --", map[string]any{"id": x.bookingID}, "VALIDATION_ERROR"},
			{"cancel_booking", ask.ElicitationID, map[string]any{"id": other.bookingID}, "VALIDATION_ERROR"},
			{"close_account", ask.ElicitationID, map[string]any{}, "VALIDATION_ERROR"},
		} {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args, RequestState: tc.state,
				InputResponses: mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept"}}})
			if err != nil {
				t.Fatal(err)
			}
			if code, details := toolError(t, res); code != tc.code || (code == "VALIDATION_ERROR" && details["requestState"] == nil) {
				t.Errorf("%s with state %q: %s %v", tc.tool, tc.state, code, details)
			}
		}
		if x.actions(t) != 1 || x.bookingStatus(t) != "PENDING" {
			t.Fatalf("%d actions, booking %s", x.actions(t), x.bookingStatus(t))
		}

		// The genuine state answers the action as it stands (the id in
		// any case, as REST takes it).
		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "cancel_booking", Arguments: map[string]any{"id": strings.ToUpper(x.bookingID)},
			RequestState: res.RequestState, InputResponses: mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept"}}})
		if err != nil || res.IsError || res.NeedsInput() {
			t.Fatalf("resumed: %v %+v", err, res)
		}
		if x.actions(t) != 1 {
			t.Fatalf("%d actions after resuming", x.actions(t))
		}
	})
}

// TestMCPAskingAgain: a key that asks again while its action is pending
// gets the same action back, with no second action and no second push;
// once that action has expired, asking makes a new one; another key of
// the same person has its own.
func TestMCPAskingAgain(t *testing.T) {
	t.Parallel()
	x := newElicitEnv(t, "asking-again@example.com")
	x.device(t, x.u, "phone", "en")
	cs := x.connect(t, mcptest.NewClient(nil), "")
	var first, again struct{ ActionID, Status, Message string }
	if res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": x.bookingID}, &first); res.IsError || first.Status != "pending" {
		t.Fatalf("first: %+v %+v", res, first)
	}
	res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": strings.ToUpper(x.bookingID)}, &again)
	gotAgain := map[string]any{
		"isError": res.IsError, "actionID": again.ActionID, "status": again.Status,
		"alreadyAsked": strings.Contains(again.Message, "already asked"),
	}
	wantAgain := map[string]any{"isError": false, "actionID": first.ActionID, "status": "pending", "alreadyAsked": true}
	if diff := cmp.Diff(wantAgain, gotAgain); diff != "" {
		t.Fatalf("again (-want +got):\n%s", diff)
	}
	if n := x.actions(t); n != 1 {
		t.Fatalf("%d actions after asking twice", n)
	}
	if tokens, _ := x.actionJobs(t, first.ActionID); len(tokens) != 1 {
		t.Fatalf("push jobs %v, want one", tokens)
	}

	x.clock.Advance(11 * time.Minute)
	var later struct{ ActionID, Status string }
	if res := mcptest.Call(t, cs, "cancel_booking", map[string]any{"id": x.bookingID}, &later); res.IsError ||
		later.ActionID == first.ActionID || later.Status != "pending" {
		t.Fatalf("after expiry: %+v %+v", res, later)
	}
	other := mcptest.ConnectClient(t, mcptest.NewClient(nil), x.ts.URL+"/mcp", "Authorization", "Bearer "+x.apiKey(t, x.u, "bookings:write"), "")
	var theirs struct{ ActionID string }
	if res := mcptest.Call(t, other, "cancel_booking", map[string]any{"id": x.bookingID}, &theirs); res.IsError || theirs.ActionID == later.ActionID {
		t.Fatalf("another key: %+v %+v", res, theirs)
	}
	if n := x.actions(t); n != 3 {
		t.Fatalf("%d actions, want 3", n)
	}
}
