package httpx

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestWriteErrorOutage: a dependency that cannot be reached is a 503 the
// client may retry, with Retry-After and the error envelope; any other
// unknown error is a 500 that says nothing of its cause.
func TestWriteErrorOutage(t *testing.T) {
	_, dialErr := net.Dial("tcp", "127.0.0.1:1")
	for _, c := range []struct {
		err    error
		status int
		code   string
	}{
		{dialErr, 503, "SERVICE_UNAVAILABLE"},
		{errors.New("pq: secret internals"), 500, "INTERNAL_ERROR"},
	} {
		w := httptest.NewRecorder()
		WriteError(w, httptest.NewRequest("GET", "/x", nil), c.err)
		var body struct {
			Error struct {
				Code        string
				Message     string
				IsRetriable bool `json:"is_retriable"`
			}
		}
		json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != c.status || body.Error.Code != c.code || !body.Error.IsRetriable {
			t.Errorf("%v: %d %s", c.err, w.Code, w.Body)
		}
		if retry := w.Header().Get("Retry-After"); (c.status == http.StatusServiceUnavailable) != (retry != "") {
			t.Errorf("%v: Retry-After %q", c.err, retry)
		}
		if body.Error.Message == c.err.Error() {
			t.Errorf("%v: the cause reached the client", c.err)
		}
	}
}
