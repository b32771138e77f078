package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
)

// SQLite commits: group commit on the one writer connection.
//
// SQLite runs one write transaction at a time, and its commit costs the
// same for one booking as for fifty: every page the transaction changed
// goes to the WAL once, and the rightmost leaves of the tables and
// indexes a booking appends to are the same pages for the next booking.
// So one goroutine owns the writer connection and runs the transactions
// of InTx that are waiting when it is free in one SQLite transaction,
// each in a savepoint of its own: a transaction that fails rolls back to
// its savepoint and leaves the others be, and all that succeeded commit
// together. A transaction's caller hears of it only after that commit.
// Under no load a batch is one transaction and runs without savepoints;
// under load a batch is whatever queued during the last one, so it adds
// no wait of its own.
//
// The transactions of a batch run one after another, each seeing the
// ones before it, as they would have one at a time. Statements on the
// writer connection ignore their context's cancellation (the connector
// drops it): SQLite interrupts a cancelled statement by rolling back the
// whole transaction, which would be the whole batch. A request that gives
// up while queued is skipped before its transaction starts.

// maxBatch bounds a batch, so that a commit's WAL write stays small.
const maxBatch = 64

// WriteBatches reports how many batches SQLite's writer goroutine has
// committed (or rolled back) and how many transactions of InTx they held:
// their ratio is the mean batch. Both are 0 on PostgreSQL.
func (db *DB) WriteBatches() (batches, transactions int64) {
	return db.batchCount.Load(), db.batchedTxCount.Load()
}

// batchTx is one transaction of InTx waiting for the writer.
type batchTx struct {
	ctx   context.Context
	fn    func(*sql.Tx) error
	err   error
	hooks []func()      // its commit hooks, run by its caller once the batch committed
	done  chan struct{} // closed when err and hooks are final
}

// inBatch runs fn through the writer goroutine.
func (db *DB) inBatch(ctx context.Context, fn func(tx *sql.Tx) error) error {
	t := &batchTx{ctx: ctx, fn: fn, done: make(chan struct{})}
	select {
	case db.batches <- t:
	case <-ctx.Done():
		return fmt.Errorf("begin transaction: %w", ctx.Err())
	case <-db.closing:
		return errors.New("begin transaction: the database is closed")
	}
	<-t.done // once queued, fn may be running: wait for its outcome
	if t.err == nil {
		for _, h := range t.hooks {
			h()
		}
	}
	return t.err
}

// writeLoop owns the writer connection until the database closes.
func (db *DB) writeLoop() {
	defer close(db.writeLoopDone)
	batch := make([]*batchTx, 0, maxBatch)
	for {
		select {
		case t := <-db.batches:
			batch = append(batch[:0], t)
		case <-db.closing:
			return
		}
		// The first sender woke this goroutine and it would run next:
		// let the requests already under way reach InTx first, or a
		// batch would rarely hold more than one (with one core, always).
		// They wait in their sends (the channel is unbuffered, so that
		// none is accepted once the loop has stopped).
		runtime.Gosched()
	fill:
		for len(batch) < maxBatch {
			select {
			case t := <-db.batches:
				batch = append(batch, t)
			default:
				break fill
			}
		}
		db.runBatch(batch)
		db.batchCount.Add(1)
		db.batchedTxCount.Add(int64(len(batch)))
		for _, t := range batch {
			close(t.done)
		}
		clear(batch)
	}
}

// runBatch runs the transactions of batch in one SQLite transaction and
// sets each one's outcome.
func (db *DB) runBatch(batch []*batchTx) {
	live := batch[:0:0]
	for _, t := range batch {
		if err := t.ctx.Err(); err != nil {
			t.err = fmt.Errorf("begin transaction: %w", err)
		} else {
			live = append(live, t)
		}
	}
	if len(live) == 0 {
		return
	}
	tx, err := db.writer.BeginTx(context.Background(), nil)
	if err != nil {
		for _, t := range live {
			t.err = fmt.Errorf("begin transaction: %w", err)
		}
		return
	}
	if len(live) == 1 {
		t := live[0]
		if t.err = runFn(t.fn, tx); t.err != nil {
			tx.Rollback()
			db.runCommitHooks(tx, false)
			return
		}
		t.hooks = db.takeCommitHooks(tx)
		if err := tx.Commit(); err != nil {
			t.err = fmt.Errorf("commit transaction: %w", err)
		}
		return
	}
	var ok []*batchTx
	for i, t := range live {
		if _, err := tx.Exec(`SAVEPOINT batch_tx`); err != nil {
			db.abandonBatch(tx, ok, live[i:], err)
			return
		}
		if t.err = runFn(t.fn, tx); t.err != nil {
			db.runCommitHooks(tx, false)
			if _, err := tx.Exec(`ROLLBACK TO batch_tx`); err != nil {
				// The transaction is gone with the work of the ones before.
				db.abandonBatch(tx, ok, live[i+1:], err)
				return
			}
		} else {
			t.hooks = db.takeCommitHooks(tx)
			ok = append(ok, t)
		}
		if _, err := tx.Exec(`RELEASE batch_tx`); err != nil {
			db.abandonBatch(tx, ok, live[i+1:], err)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		for _, t := range ok {
			t.err = fmt.Errorf("commit transaction: %w", err)
		}
	}
}

// abandonBatch rolls the batch back after the writer connection failed:
// the transactions that had succeeded and the ones not run yet all fail.
func (db *DB) abandonBatch(tx *sql.Tx, succeeded, notRun []*batchTx, cause error) {
	tx.Rollback()
	db.runCommitHooks(tx, false)
	for _, t := range append(succeeded, notRun...) {
		t.err = fmt.Errorf("batched transaction rolled back: %w", cause)
	}
}

// runFn calls fn, turning a panic into an error that carries its stack
// (the caller logs it), so that the writer goroutine survives it.
func runFn(fn func(*sql.Tx) error, tx *sql.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("transaction panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return fn(tx)
}
