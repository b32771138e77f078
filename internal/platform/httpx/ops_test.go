package httpx

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReady: a dependency the service does without (Redis) leaves the
// replica ready but "degraded"; a required one, or a shutdown under way,
// makes it not ready.
func TestReady(t *testing.T) {
	ok := func(context.Context) error { return nil }
	down := func(context.Context) error { return errors.New("connection refused") }
	draining := func(context.Context) error { return ErrDraining }
	for _, c := range []struct {
		checks []Check
		status int
		body   string
	}{
		{[]Check{{Name: "database", Check: ok}, {Name: "redis", Check: ok, Degrades: true}}, 200, `"status":"ready"`},
		{[]Check{{Name: "database", Check: ok}, {Name: "redis", Check: down, Degrades: true}}, 200, `"status":"degraded"`},
		{[]Check{{Name: "database", Check: down}, {Name: "redis", Check: down, Degrades: true}}, 503, `"status":"not ready"`},
		{[]Check{{Name: "shutdown", Check: draining}, {Name: "database", Check: down}}, 503, `"status":"draining"`},
	} {
		w := httptest.NewRecorder()
		if err := HandleReady(c.checks)(w, httptest.NewRequest("GET", "/readyz", nil)); err != nil {
			t.Fatal(err)
		}
		if w.Code != c.status || !strings.Contains(w.Body.String(), c.body) {
			t.Errorf("%d %s; want %d with %s", w.Code, w.Body, c.status, c.body)
		}
	}
}
