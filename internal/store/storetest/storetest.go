// Package storetest opens fresh, migrated databases for tests: SQLite always,
// and PostgreSQL when TEST_POSTGRES_URL is set.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
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
	db := MustOpenEmpty(tb, engine, service)
	if err := db.Migrate(context.Background(), service); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
	return db
}

// MustOpenEmpty is MustOpenDB without the schema, for tests of the
// migrations themselves.
func MustOpenEmpty(tb testing.TB, engine store.Engine, service string) *store.DB {
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
