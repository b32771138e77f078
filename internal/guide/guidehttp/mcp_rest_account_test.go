package guidehttp_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/mcpx/mcptest"
)

// structured returns a successful tool call's structured content as
// generic JSON, to compare with a REST body.
func structured(t *testing.T, res *mcp.CallToolResult) any {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", res.Content[0].(*mcp.TextContent).Text)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// restJSON returns a REST body as generic JSON.
func restJSON(t *testing.T, body []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	return v
}

// sameRefusal checks that a tool and a REST call refused alike: the same
// error envelope but for the request id (each call has its own).
func sameRefusal(t *testing.T, what string, res *mcp.CallToolResult, rest []byte) {
	t.Helper()
	toolError(t, res) // the whole envelope
	var tool, want struct {
		Error     any `json:"error"`
		RequestID string
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &tool); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rest, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tool.Error, want.Error) {
		t.Errorf("%s: tool %v\nREST %v", what, tool.Error, want.Error)
	}
}

// TestMCPAccountToolsAnswerAsREST: each account tool that calls the
// service answers what the REST route answers the same key with the same
// arguments: the same structured content as the REST body (media URLs
// absolute on the public URL), or the same refusal.
func TestMCPAccountToolsAnswerAsREST(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, "sqlite")
	// The sample expert has an avatar and an expert section.
	key := b.apiKey(t, b.expert, "profile:read", "profile:write", "bookings:read")
	cs := mcpSession(t, b.env, key)
	auth := bearer(key)

	{ // get_my_profile
		rest := b.Get("/api/v1/profile", auth...).Expect(200)
		got := structured(t, mcptest.Call(t, cs, "get_my_profile", map[string]any{}, nil))
		if want := restJSON(t, rest.Body); !reflect.DeepEqual(got, want) {
			t.Errorf("tool %v\nREST %v", got, want)
		}
		if !strings.Contains(string(rest.Body), `"avatar":"`+publicURL+`/media/`) {
			t.Errorf("the avatar is not absolute on the public URL: %s", rest.Body)
		}
	}

	{ // update_my_profile
		args := map[string]any{"nickname": "  Guide Kim ", "bio": "Food walks in Seoul."}
		got := structured(t, mcptest.Call(t, cs, "update_my_profile", args, nil))
		rest := b.Do("PUT", "/api/v1/profile", args, auth...).Expect(200)
		if want := restJSON(t, rest.Body); !reflect.DeepEqual(got, want) {
			t.Errorf("tool %v\nREST %v", got, want)
		}
		if !strings.Contains(string(rest.Body), `"nickname":"Guide Kim"`) {
			t.Errorf("not trimmed: %s", rest.Body)
		}
		for _, bad := range []map[string]any{
			{"name": "   "},
			{"nickname": strings.Repeat("n", 51), "bio": strings.Repeat("b", 501)},
		} {
			rest := b.Do("PUT", "/api/v1/profile", bad, auth...).Expect(400)
			sameRefusal(t, "update_my_profile", mcptest.Call(t, cs, "update_my_profile", bad, nil), rest.Body)
		}
	}

	{ // get_pending_action
		for _, id := range []string{"0190f1a8-0000-7000-8000-000000000000", "not-an-id", "0190F1A8-0000-7000-8000-00000000000"} {
			rest := b.Get("/api/v1/actions/"+id, auth...).Expect(404)
			sameRefusal(t, "get_pending_action "+id, mcptest.Call(t, cs, "get_pending_action", map[string]any{"id": id}, nil), rest.Body)
		}
	}

	{ // close_account
		// Blocked while a booking is to happen (the sample expert has
		// some): the same refusal.
		rest := b.Do("POST", "/api/v1/profile/delete", map[string]string{"confirmation": "DELETE"}, auth...).Expect(422)
		sameRefusal(t, "close_account", mcptest.Call(t, cs, "close_account", map[string]any{}, nil), rest.Body)

		// Where nothing blocks it, the tool asks, as the REST route does for
		// a key; the action the tool shows is the one REST reads back.
		key := b.apiKey(t, b.tourist, "profile:write")
		cs, auth := mcpSession(t, b.env, key), bearer(key)
		var asked struct {
			ActionID, Action, Status, ConfirmURL, PageURL string
		}
		if res := mcptest.Call(t, cs, "close_account", map[string]any{}, &asked); res.IsError {
			t.Fatalf("close_account: %s", res.Content[0].(*mcp.TextContent).Text)
		}
		var read struct {
			Data struct{ ID, Action, Status, TargetID string }
		}
		b.Get("/api/v1/actions/"+asked.ActionID, auth...).Expect(200).Decode(&read)
		gotAsked := map[string]any{
			"action": asked.Action, "status": asked.Status, "confirmURL": asked.ConfirmURL, "pageURL": asked.PageURL,
			"restID": read.Data.ID, "restAction": read.Data.Action, "restStatus": read.Data.Status, "restTargetID": read.Data.TargetID,
		}
		wantAsked := map[string]any{
			"action": "account.delete", "status": "pending",
			"confirmURL": publicURL + "/api/v1/actions/" + asked.ActionID + "/confirm",
			"pageURL":    publicURL + "/confirm/?action=" + asked.ActionID,
			"restID":     asked.ActionID, "restAction": asked.Action, "restStatus": asked.Status, "restTargetID": b.tourist.id,
		}
		if diff := cmp.Diff(wantAsked, gotAsked); diff != "" {
			t.Errorf("tool vs REST (-want +got):\n%s", diff)
		}
		var polled struct{ ActionID, Action, Status string }
		mcptest.Call(t, cs, "get_pending_action", map[string]any{"id": asked.ActionID}, &polled)
		if polled.ActionID != asked.ActionID || polled.Status != read.Data.Status || polled.Action != read.Data.Action {
			t.Errorf("get_pending_action %+v, REST %+v", polled, read.Data)
		}
		// Asked again, the same action, and no second one.
		var again struct{ ActionID string }
		mcptest.Call(t, cs, "close_account", map[string]any{}, &again)
		if again.ActionID != asked.ActionID {
			t.Errorf("asked again: %s, first %s", again.ActionID, asked.ActionID)
		}
		// REST asks for an action of its own kind (the key may confirm
		// it); the person's account stays open until someone confirms.
		b.Do("POST", "/api/v1/profile/delete", map[string]string{"confirmation": "DELETE"}, auth...).Expect(202)
		if n := b.count(t, `SELECT COUNT(*) FROM users WHERE id = $1 AND deleted_at IS NULL`, b.tourist.id); n != 1 {
			t.Error("the account was closed without confirmation")
		}
	}
}
