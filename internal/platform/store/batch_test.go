package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestInTxConcurrentOutcomes: transactions racing through InTx each keep
// their own outcome, whether or not SQLite's writer ran them in one batch:
// the ones that fail (an error, a constraint, a panic) leave nothing, and
// every other one commits all it wrote, once.
func TestInTxConcurrentOutcomes(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenDB(t, engine, guidedb.Schema)
			ctx := t.Context()
			if _, err := db.ExecContext(ctx, `CREATE TABLE batch_probe (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE, twin INTEGER)`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO batch_probe (id, v) VALUES (-1, 'taken')`); err != nil {
				t.Fatal(err)
			}
			// A panic reaches the caller's goroutine on PostgreSQL; on
			// SQLite the writer goroutine survives it and reports an error.
			panics := engine == store.SQLite
			const n = 200
			errFail := errors.New("refused")
			outcome := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					outcome[i] = db.InTx(ctx, func(tx *sql.Tx) error {
						if _, err := tx.ExecContext(ctx, `INSERT INTO batch_probe (id, v) VALUES ($1, $2)`, i, fmt.Sprint("v", i)); err != nil {
							return err
						}
						// A second row, so that a failure must undo more than
						// the statement that failed.
						if _, err := tx.ExecContext(ctx, `INSERT INTO batch_probe (id, v, twin) VALUES ($1, $2, $3)`, n+i, fmt.Sprint("w", i), i); err != nil {
							return err
						}
						switch i % 5 {
						case 1:
							return errFail
						case 2: // a unique violation
							_, err := tx.ExecContext(ctx, `INSERT INTO batch_probe (id, v) VALUES ($1, 'taken')`, 2*n+i)
							return err
						case 3:
							if panics && i%15 == 3 {
								panic("transaction panics")
							}
						}
						return nil
					})
				})
			}
			wg.Wait()
			for i, err := range outcome {
				wantOK := i%5 == 0 || i%5 == 4 || (i%5 == 3 && !(panics && i%15 == 3))
				var got int
				if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM batch_probe WHERE id = $1 OR twin = $1`, i).Scan(&got); err != nil {
					t.Fatal(err)
				}
				switch {
				case wantOK && (err != nil || got != 2):
					t.Errorf("transaction %d: error %v and %d rows, want it committed with 2", i, err, got)
				case !wantOK && (err == nil || got != 0):
					t.Errorf("transaction %d: error %v and %d rows, want it failed with none", i, err, got)
				}
				if i%5 == 1 && !errors.Is(err, errFail) {
					t.Errorf("transaction %d: error %v, want its own error", i, err)
				}
			}
			if batches, txs := db.WriteBatches(); engine == store.SQLite && txs <= batches {
				t.Errorf("%d transactions in %d batches: the writer never batched", txs, batches)
			}
		})
	}
}

// TestInTxCancelledWhileQueued: a request that gave up before its
// transaction began writes nothing and is told so.
func TestInTxCancelledWhileQueued(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenDB(t, engine, guidedb.Schema)
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			ran := false
			err := db.InTx(ctx, func(tx *sql.Tx) error { ran = true; return nil })
			if !errors.Is(err, context.Canceled) || ran {
				t.Fatalf("InTx with a cancelled context: ran %v, error %v; want not run and context.Canceled", ran, err)
			}
		})
	}
}
