// Package storetest opens fresh, migrated databases for tests: SQLite always,
// and PostgreSQL when TEST_POSTGRES_URL is set.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/store"
)

// Engines lists the engines to test against: SQLite, plus PostgreSQL when
// TEST_POSTGRES_URL is set.
func Engines() []store.Engine {
	engines := []store.Engine{store.SQLite}
	if os.Getenv("TEST_POSTGRES_URL") != "" {
		engines = append(engines, store.Postgres)
	}
	return engines
}

// MustOpenDB returns a new empty database of the given engine with the
// named service's schema, removed when the test ends. On PostgreSQL each
// call gets a schema of its own.
func MustOpenDB(tb testing.TB, engine store.Engine, service string) *store.DB {
	tb.Helper()
	ctx := context.Background()
	var dsn string
	switch engine {
	case store.SQLite:
		dsn = filepath.Join(tb.TempDir(), service+".db")
	case store.Postgres:
		dsn = freshSchema(tb)
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		tb.Fatalf("open %s: %v", engine, err)
	}
	tb.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx, service); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
	return db
}

func freshSchema(tb testing.TB) string {
	base := os.Getenv("TEST_POSTGRES_URL")
	if base == "" {
		tb.Fatal("TEST_POSTGRES_URL is not set")
	}
	admin, err := store.Open(context.Background(), base)
	if err != nil {
		tb.Fatalf("TEST_POSTGRES_URL: %v", err)
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		admin.Close()
		tb.Fatalf("create schema: %v", err)
	}
	tb.Cleanup(func() {
		admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("TEST_POSTGRES_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Snapshot returns everything the database holds, every row of every
// table, in a stable order: two equal snapshots mean nothing was stored,
// changed or removed in between.
func Snapshot(tb testing.TB, db *store.DB) string {
	tb.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`
	if db.Engine == store.Postgres {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`
	}
	tables, err := queryStrings(db, q)
	if err != nil {
		tb.Fatalf("snapshot: %v", err)
	}
	var out strings.Builder
	for _, t := range tables {
		rows, err := db.Query(`SELECT * FROM ` + t) // #nosec G202 -- a table name the database listed
		if err != nil {
			tb.Fatalf("snapshot %s: %v", t, err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				tb.Fatalf("snapshot %s: %v", t, err)
			}
			lines = append(lines, fmt.Sprintf("%#v", vals))
		}
		rows.Close()
		slices.Sort(lines)
		fmt.Fprintf(&out, "%s (%d rows)\n%s\n", t, len(lines), strings.Join(lines, "\n"))
	}
	return out.String()
}

func queryStrings(db *store.DB, q string) ([]string, error) {
	rows, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
