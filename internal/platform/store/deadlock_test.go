package store_test

import (
	"database/sql"
	"slices"
	"sync"
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestInTxRetriesDeadlock: two transactions lock two rows in opposite
// orders; PostgreSQL aborts one (rarely both, when their detectors run
// together) to break the deadlock, and InTx runs it again, so both commit
// and each row is counted twice.
func TestInTxRetriesDeadlock(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storetest.Engines(), store.Postgres) {
		t.Skip("PostgreSQL only (TEST_POSTGRES_URL): SQLite runs one writer at a time")
	}
	db := storetest.MustOpenDB(t, store.Postgres, guidedb.Schema)
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, `CREATE TABLE deadlock_probe (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO deadlock_probe (id, n) VALUES (1, 0), (2, 0)`); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	runs := 0
	holding := make(chan struct{}, 2) // each run's first row is locked
	both := make(chan struct{})       // closed once both first runs hold theirs
	go func() { <-holding; <-holding; close(both) }()
	lockBoth := func(first, second int) func(tx *sql.Tx) error {
		run := 0
		return func(tx *sql.Tx) error {
			mu.Lock()
			runs++
			mu.Unlock()
			run++
			// The detector runs after deadlock_timeout (1 s by default).
			if _, err := tx.ExecContext(ctx, `SET LOCAL deadlock_timeout = '50ms'`); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE deadlock_probe SET n = n + 1 WHERE id = $1`, first); err != nil {
				return err
			}
			if run == 1 {
				holding <- struct{}{}
				<-both
			}
			_, err := tx.ExecContext(ctx, `UPDATE deadlock_probe SET n = n + 1 WHERE id = $1`, second)
			return err
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, order := range [][2]int{{1, 2}, {2, 1}} {
		wg.Go(func() { errs[i] = db.InTx(ctx, lockBoth(order[0], order[1])) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("transaction %d: %v", i, err)
		}
	}
	if runs < 3 || runs > 4 {
		t.Errorf("%d runs, want 3 or 4 (an aborted one again)", runs)
	}
	for id := 1; id <= 2; id++ {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT n FROM deadlock_probe WHERE id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("row %d counted %d times, want 2", id, n)
		}
	}
}
