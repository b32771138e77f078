package guide_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// TestKeysOnlyAsk: what a key may not do itself. It never manages keys or
// sessions; closing the account it only asks for, once, and the account
// stays open; the person closes it at once.
func TestKeysOnlyAsk(t *testing.T) {
	t.Parallel()
	s := newService(t, store.SQLite)
	s.KeyUsage = auth.NewKeyUsage()
	ctx := t.Context()
	name, scopes := "agent", []string{"profile:write", "nonsense"}
	auth.SetTestPasswordCost()
	tokens, err := auth.NewTokens([]byte("test-secret-test-secret-test-secret!"), s.Clock)
	if err != nil {
		t.Fatal(err)
	}
	s.Tokens = tokens
	email, password, role := " closer@example.com ", "correct-horse-1", guide.RoleTourist
	signed, err := s.Register(ctx, guide.Registration{Email: &email, Password: &password, Name: &name, Role: &role})
	if err != nil || signed.Token == "" || *signed.User.Email != "closer@example.com" {
		t.Fatalf("registered %+v %v", signed, err)
	}
	person := &guide.Caller{User: signed.User}
	if _, _, err := s.CreateAPIKey(ctx, person, guide.NewAPIKey{Name: &name, Scopes: &scopes}); fieldErrors(t, err)["scopes"] == nil {
		t.Errorf("unknown scope: %v", err)
	}
	scopes = scopes[:1]
	key, secret, err := s.CreateAPIKey(ctx, person, guide.NewAPIKey{Name: &name, Scopes: &scopes})
	if err != nil {
		t.Fatalf("created: %v", err)
	}
	gotKey := map[string]any{"isAPIKey": auth.IsAPIKey(secret), "mode": key.Mode, "rateLimit": key.RateLimit, "confirmation": key.Confirmation}
	wantKey := map[string]any{"isAPIKey": true, "mode": "live", "rateLimit": 300, "confirmation": guide.ConfirmActor}
	if diff := cmp.Diff(wantKey, gotKey); diff != "" {
		t.Fatalf("created (-want +got):\n%s", diff)
	}
	withKey := &guide.Caller{User: person.User, APIKey: key}
	if _, _, err := s.CreateAPIKey(ctx, withKey, guide.NewAPIKey{Name: &name, Scopes: &scopes}); apperr.Code(err) != apperr.Forbidden {
		t.Errorf("a key makes a key: %v", err)
	}
	if _, err := s.RevokeAPIKey(ctx, withKey, key.ID); apperr.Code(err) != apperr.Forbidden {
		t.Errorf("a key revokes a key: %v", err)
	}
	if _, err := s.CreateSession(ctx, withKey); apperr.Code(err) != apperr.Forbidden {
		t.Errorf("a key opens a session: %v", err)
	}

	word, wrong := "DELETE", "delete"
	if _, err := s.CloseAccount(ctx, withKey, &wrong); fieldErrors(t, err)["confirmation"] != `must be the word "DELETE"` {
		t.Errorf("wrong word: %v", err)
	}
	first, err := s.CloseAccount(ctx, withKey, &word)
	if err != nil {
		t.Fatalf("a key closes: %v", err)
	}
	gotFirst := map[string]any{"closed": first.ClosedAt != nil, "asked": first.Asked != nil}
	if first.Asked != nil {
		gotFirst["created"], gotFirst["action"], gotFirst["target"] = first.Asked.Created, first.Asked.Action.Action, first.Asked.Action.TargetID
	}
	wantFirst := map[string]any{"closed": false, "asked": true, "created": true, "action": guide.ActionAccountDelete, "target": person.User.ID}
	if diff := cmp.Diff(wantFirst, gotFirst); diff != "" {
		t.Fatalf("a key closes (-want +got):\n%s", diff)
	}
	again, err := s.CloseAccount(ctx, withKey, &word)
	if err != nil || again.Asked.Created || again.Asked.Action.ID != first.Asked.Action.ID {
		t.Errorf("asked again: %+v %v", again, err)
	}
	if open, err := s.OpenAction(ctx, withKey, guide.ActionAccountDelete, person.User.ID); err != nil || open.ID != first.Asked.Action.ID {
		t.Errorf("open action: %+v %v", open, err)
	}
	if _, err := s.Profile(ctx, person); err != nil {
		t.Fatalf("the account closed on a key's ask: %v", err)
	}
	closed, err := s.CloseAccount(ctx, person, &word)
	if err != nil || closed.ClosedAt == nil || closed.Asked != nil {
		t.Fatalf("the person closes: %+v %v", closed, err)
	}
	if _, err := s.Profile(ctx, person); apperr.Code(err) != apperr.NotFound {
		t.Errorf("profile after closure: %v", err)
	}
}
