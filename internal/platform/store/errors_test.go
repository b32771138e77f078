package store_test

import (
	"database/sql"
	"errors"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

func TestWrap(t *testing.T) {
	wrap := func(err error) error {
		store.Wrap(&err, "find booking %s", "b1")
		return err
	}
	if err := wrap(nil); err != nil {
		t.Errorf("nil became %v", err)
	}
	err := wrap(sql.ErrNoRows)
	if err.Error() != "find booking b1: "+sql.ErrNoRows.Error() || !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("wrapped = %q; want the operation, and errors.Is to find sql.ErrNoRows", err)
	}
	domain := apperr.Errorf(apperr.NotFound, "No booking with id %q.", "b1")
	if err := wrap(domain); err != domain {
		t.Errorf("a domain error was changed: %v", err)
	}
}

// TestOutage: the failures PostgreSQL gives while it restarts, and a
// refused connection, are outages (answered 503, retriable); an ordinary
// query error is not. The PostgreSQL case really happens: the server ends
// the session the way a restart does.
func TestOutage(t *testing.T) {
	t.Parallel()
	if _, err := store.Open(t.Context(), "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"); err == nil || !apperr.Outage(err) {
		t.Errorf("refused connection: Outage(%v) = false", err)
	}
	if apperr.Outage(sql.ErrNoRows) || apperr.Outage(apperr.Errorf(apperr.NotFound, "x")) {
		t.Error("an ordinary error counted as an outage")
	}
	for _, engine := range storetest.Engines() {
		if engine != store.Postgres {
			continue
		}
		db := storetest.MustOpenEmpty(t, engine, store.Schema{Name: "outage"})
		conn, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var pid int
		if err := conn.QueryRowContext(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(t.Context(), `SELECT pg_terminate_backend($1)`, pid); err != nil {
			t.Fatal(err)
		}
		_, err = conn.ExecContext(t.Context(), `SELECT 1`)
		if err == nil || !apperr.Outage(err) {
			t.Errorf("session ended by the server: Outage(%v) = false", err)
		}
		if _, err := db.ExecContext(t.Context(), `SELECT 1 FROM no_such_table`); err == nil || apperr.Outage(err) {
			t.Errorf("query error: Outage(%v) = true", err)
		}
	}
}
