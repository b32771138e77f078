package httpx

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestLogNamesTheCredential: a request's log line names the key and the
// OAuth client that acted, when the door recorded them, and nothing
// otherwise.
func TestLogNamesTheCredential(t *testing.T) {
	var buf bytes.Buffer
	o := &Outer{Logger: slog.New(slog.NewJSONHandler(&buf, nil))}
	h := o.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/agent" {
			SetCredential(r.Context(), "key-1", "https://assistant.example/client.json")
		}
	}))
	for _, path := range []string{"/agent", "/anonymous"} {
		buf.Reset()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
		var line map[string]any
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v: %s", path, err, buf.Bytes())
		}
		want := path == "/agent"
		if (line["key_id"] == "key-1") != want || (line["oauth_client_id"] == "https://assistant.example/client.json") != want ||
			(!want && (line["key_id"] != nil || line["oauth_client_id"] != nil)) {
			t.Errorf("%s: %v", path, line)
		}
	}
}
