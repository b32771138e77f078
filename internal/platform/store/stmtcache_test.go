package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
)

// cacheConn opens a SQLite database with table t (id, v) holding rows 1–3
// and returns one pinned connection of it.
func cacheConn(t *testing.T) *sql.Conn {
	t.Helper()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(t.Context(), `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)`); err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{"one", "two", "three"} {
		if _, err := conn.ExecContext(t.Context(), `INSERT INTO t (id, v) VALUES ($1, $2)`, i+1, v); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// cached returns the connection's cached statement of query (nil when
// none) and how many it holds.
func cached(t *testing.T, conn *sql.Conn, query string) (entry *cacheEntry, n int) {
	t.Helper()
	if err := conn.Raw(func(dc any) error {
		c := dc.(*stmtCacheConn)
		if el, ok := c.byQuery[query]; ok {
			entry = el.Value.(*cacheEntry)
		}
		n = c.lru.Len()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return entry, n
}

func TestStmtCacheReusesStatement(t *testing.T) {
	conn := cacheConn(t)
	const q = `SELECT v FROM t WHERE id = $1`
	var first *cacheEntry
	for id, want := range map[int]string{1: "one", 2: "two", 3: "three"} {
		var v string
		if err := conn.QueryRowContext(t.Context(), q, id).Scan(&v); err != nil || v != want {
			t.Fatalf("id %d: %q, %v; want %q", id, v, err, want)
		}
		e, _ := cached(t, conn, q)
		if e == nil || e.busy {
			t.Fatalf("after id %d: entry %+v, want one cached and free", id, e)
		}
		if first == nil {
			first = e
		} else if e != first {
			t.Fatalf("id %d ran a new statement", id)
		}
	}
	// A failed run (unique violation) leaves the statement usable.
	const ins = `INSERT INTO t (id, v) VALUES ($1, $2)`
	if _, err := conn.ExecContext(t.Context(), ins, 4, "one"); err == nil {
		t.Fatal("duplicate v inserted")
	}
	if _, err := conn.ExecContext(t.Context(), ins, 4, "four"); err != nil {
		t.Fatalf("after a failure: %v", err)
	}
}

// A query run again while its own rows are open (same SQL, same
// connection) gets a statement of its own; both read their full results.
func TestStmtCacheNestedUse(t *testing.T) {
	conn := cacheConn(t)
	const q = `SELECT id FROM t WHERE id >= $1 ORDER BY id`
	ids := func(from int) []int {
		rows, err := conn.QueryContext(t.Context(), q, from)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int
		for rows.Next() {
			var id int
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	outer, err := conn.QueryContext(t.Context(), q, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for outer.Next() {
		var id int
		if err := outer.Scan(&id); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(id, ids(id)))
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1 [1 2 3]", "2 [2 3]", "3 [3]"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("nested: %v, want %v", got, want)
	}
	if e, _ := cached(t, conn, q); e == nil || e.busy {
		t.Fatalf("after the rows closed: %+v, want cached and free", e)
	}
}

func TestStmtCacheEvictsAndFollowsSchema(t *testing.T) {
	conn := cacheConn(t)
	for i := range stmtCacheSize + 10 {
		var n int
		if err := conn.QueryRowContext(t.Context(), fmt.Sprintf(`SELECT COUNT(*) + %d FROM t`, i)).Scan(&n); err != nil || n != 3+i {
			t.Fatalf("query %d: %d, %v", i, n, err)
		}
	}
	if e, n := cached(t, conn, `SELECT COUNT(*) + 0 FROM t`); n != stmtCacheSize || e != nil {
		t.Fatalf("%d statements kept, the oldest %v; want %d, the oldest evicted", n, e, stmtCacheSize)
	}
	// A schema change re-prepares a cached statement.
	const q = `SELECT * FROM t WHERE id = 1`
	columns := func() int {
		rows, err := conn.QueryContext(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		return len(cols)
	}
	if n := columns(); n != 2 {
		t.Fatalf("%d columns", n)
	}
	if _, err := conn.ExecContext(t.Context(), `ALTER TABLE t ADD COLUMN w TEXT`); err != nil {
		t.Fatal(err)
	}
	if n := columns(); n != 3 {
		t.Fatalf("after ALTER TABLE: %d columns, want 3", n)
	}
}
