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
	"sync"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/store"
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

// MustOpenDB returns a new empty database of the given engine with
// schema s, removed when the test ends. On SQLite it is a copy of a
// migrated template made once per test process; on PostgreSQL each call
// gets a schema of its own and migrates it.
func MustOpenDB(tb testing.TB, engine store.Engine, s store.Schema) *store.DB {
	tb.Helper()
	if engine == store.SQLite {
		return copyTemplate(tb, s, "empty", nil)
	}
	db := MustOpenEmpty(tb, engine, s)
	if err := db.Migrate(context.Background(), s); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
	return db
}

// MustOpenEmpty is MustOpenDB without the schema, for tests of the
// migrations themselves.
func MustOpenEmpty(tb testing.TB, engine store.Engine, s store.Schema) *store.DB {
	tb.Helper()
	ctx := context.Background()
	var dsn string
	switch engine {
	case store.SQLite:
		dsn = filepath.Join(tb.TempDir(), s.Name+".db")
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
	// The schema names the connections too, so that a benchmark finds its
	// own backends among those of other tests sharing the database.
	q.Set("application_name", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// templates are the databases built once per test process, per schema
// and kind (migrated only, or with the sample), kept in memory and
// written out for each test that asks for one.
var templates struct {
	sync.Mutex
	byName map[string]*template
}

type template struct {
	once sync.Once
	file []byte
	err  error
}

// MustOpenSample returns a new database of the given engine with schema s
// and the data load puts in it, removed when the
// test ends. On SQLite the data is loaded once per test process into a
// template file that each call copies (one file copy instead of a load per
// test); on PostgreSQL each call loads it into a schema of its own. Every
// call of one process must pass the same load for a schema.
func MustOpenSample(tb testing.TB, engine store.Engine, s store.Schema, load func(context.Context, *store.DB) error) *store.DB {
	tb.Helper()
	if engine != store.SQLite {
		db := MustOpenDB(tb, engine, s)
		if err := load(context.Background(), db); err != nil {
			tb.Fatalf("load %s sample: %v", s.Name, err)
		}
		return db
	}
	return copyTemplate(tb, s, "sample", load)
}

// copyTemplate returns a copy of the SQLite template of schema s named
// kind, built with load (nil: migrated only) on first use.
func copyTemplate(tb testing.TB, s store.Schema, kind string, load func(context.Context, *store.DB) error) *store.DB {
	tb.Helper()
	tpl, err := templateOf(s, kind, load)
	if err != nil {
		tb.Fatalf("%s %s template: %v", s.Name, kind, err)
	}
	path := filepath.Join(tb.TempDir(), s.Name+".db")
	if err := os.WriteFile(path, tpl, 0o600); err != nil {
		tb.Fatal(err)
	}
	db, err := store.Open(context.Background(), path)
	if err != nil {
		tb.Fatalf("open %s copy: %v", s.Name, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// templateOf returns the file of the SQLite template of schema s named
// kind, built with load (nil: migrated only) on first use.
func templateOf(s store.Schema, kind string, load func(context.Context, *store.DB) error) ([]byte, error) {
	templates.Lock()
	if templates.byName == nil {
		templates.byName = map[string]*template{}
	}
	tpl := templates.byName[s.Name+"/"+kind]
	if tpl == nil {
		tpl = &template{}
		templates.byName[s.Name+"/"+kind] = tpl
	}
	templates.Unlock()
	tpl.once.Do(func() { tpl.file, tpl.err = buildTemplate(s, load) })
	return tpl.file, tpl.err
}

// buildTemplate makes a SQLite file whose whole content is in the main
// file (WAL checkpointed), ready to be copied, and returns its content: the
// migrated template when load is nil, else the migrated one with the data
// load puts in, so that a process migrates each schema once.
func buildTemplate(s store.Schema, load func(context.Context, *store.DB) error) ([]byte, error) {
	dir, err := os.MkdirTemp("", "storetest-"+s.Name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, s.Name+".db")
	if load != nil {
		empty, err := templateOf(s, "empty", nil)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, empty, 0o600); err != nil {
			return nil, err
		}
	}
	if err := fill(path, s, load); err != nil {
		return nil, err
	}
	return os.ReadFile(path) // #nosec G304 -- the file written above
}

// fill migrates the database at path (load nil) or loads it, and leaves
// its whole content in the main file.
func fill(path string, s store.Schema, load func(context.Context, *store.DB) error) error {
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	if load == nil {
		err = db.Migrate(ctx, s)
	} else {
		err = load(ctx, db)
	}
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
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

// Plan returns the plan of query, one line per row of its EXPLAIN (EXPLAIN
// QUERY PLAN on SQLite): what the plan tests read to fail when a query
// stops using its index.
func Plan(tb testing.TB, q store.Querier, engine store.Engine, query string, args ...any) string {
	tb.Helper()
	explain := "EXPLAIN QUERY PLAN "
	if engine == store.Postgres {
		explain = "EXPLAIN "
	}
	rows, err := q.QueryContext(context.Background(), explain+query, args...)
	if err != nil {
		tb.Fatalf("explain: %v\n%s", err, query)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintln(&b, vals[len(vals)-1])
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}
