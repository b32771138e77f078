package ai_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/ai"
)

func TestReply(t *testing.T) {
	var got struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("%s %s", r.Method, r.URL.Path)
		}
		if h := r.Header.Get("Authorization"); h != "Bearer sk-test" {
			t.Errorf("Authorization = %q", h)
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"  Hello from Kyoto!\n"},"finish_reason":"stop"}]}`))
	}))
	defer srv.Close()
	c := &ai.Client{BaseURL: srv.URL + "/v1/", APIKey: "sk-test", Model: "test-model"}
	reply, err := c.Reply(t.Context(), "You are a guide.", []ai.Turn{
		{Role: ai.RoleUser, Content: "Hi"}, {Role: ai.RoleAssistant, Content: "Hello"}, {Role: ai.RoleUser, Content: "Rain plan?"}})
	if err != nil {
		t.Fatal(err)
	}
	if reply != "Hello from Kyoto!" {
		t.Errorf("reply = %q", reply)
	}
	gotReq := map[string]any{"model": got.Model, "messages": len(got.Messages)}
	if len(got.Messages) == 4 {
		gotReq["first role"], gotReq["first content"] = got.Messages[0].Role, got.Messages[0].Content
		gotReq["last role"], gotReq["last content"] = got.Messages[3].Role, got.Messages[3].Content
	}
	wantReq := map[string]any{"model": "test-model", "messages": 4, "first role": "system", "first content": "You are a guide.", "last role": "user", "last content": "Rain plan?"}
	if diff := cmp.Diff(wantReq, gotReq); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestReplyErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		body      string
		retriable bool
		contains  string
	}{
		{"bad key", 401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, false, "Incorrect API key"},
		{"unknown model", 404, `{"error":{"message":"The model does not exist"}}`, false, "model does not exist"},
		{"rate limited", 429, `{"error":{"message":"Rate limit reached"}}`, true, "Rate limit"},
		{"server error", 500, `upstream failed`, true, "upstream failed"},
		{"no choices", 200, `{"choices":[]}`, true, "no reply"},
		{"empty content", 200, `{"choices":[{"message":{"content":"  "}}]}`, true, "no reply"},
		{"not JSON", 200, `<html>`, true, "decode"},
		{"too large", 200, `{"choices":[{"message":{"content":"` + strings.Repeat("a", ai.MaxResponseBytes) + `"}}]}`, true, "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			_, err := (&ai.Client{BaseURL: srv.URL, Model: "m"}).Reply(t.Context(), "s", []ai.Turn{{Role: ai.RoleUser, Content: "hi"}})
			if err == nil || !strings.Contains(err.Error(), tc.contains) {
				t.Fatalf("err = %v; want one that says %q", err, tc.contains)
			}
			if ai.Retriable(err) != tc.retriable {
				t.Errorf("Retriable = %v; want %v", !tc.retriable, tc.retriable)
			}
			var se *ai.StatusError
			if tc.status != 200 && (!errors.As(err, &se) || se.StatusCode != tc.status) {
				t.Errorf("err = %#v; want a StatusError %d", err, tc.status)
			}
		})
	}
}

func TestReplyMisconfigured(t *testing.T) {
	var nilClient *ai.Client
	for name, c := range map[string]*ai.Client{"nil": nilClient, "no URL": {Model: "m"}, "no model": {BaseURL: "http://127.0.0.1:1"}} {
		if _, err := c.Reply(t.Context(), "", nil); err == nil || ai.Retriable(err) {
			t.Errorf("%s: %v; want a permanent error", name, err)
		}
	}
	if _, err := (&ai.Client{BaseURL: "http://127.0.0.1:1", Model: "m"}).Reply(t.Context(), "", []ai.Turn{{Role: "system", Content: "x"}}); err == nil || ai.Retriable(err) {
		t.Errorf("bad role: %v; want a permanent error", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	url := srv.URL
	srv.Close()
	if _, err := (&ai.Client{BaseURL: url, Model: "m"}).Reply(t.Context(), "", nil); err == nil || !ai.Retriable(err) {
		t.Errorf("unreachable: %v; want a retriable error", err)
	}
}
