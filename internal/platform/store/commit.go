package store

import (
	"database/sql"
	"sync"
)

// commitHooks are the functions to run after a transaction of InTx
// commits.
type commitHooks struct {
	mu  sync.Mutex
	fns []func()
}

// afterCommit runs fn once q, a transaction of InTx, has committed (not
// at all if it rolls back); at once when q is anything else.
func (db *DB) afterCommit(q Querier, fn func()) {
	tx, ok := q.(*sql.Tx)
	if !ok {
		fn()
		return
	}
	v, _ := db.hooks.LoadOrStore(tx, &commitHooks{})
	h := v.(*commitHooks)
	h.mu.Lock()
	h.fns = append(h.fns, fn)
	h.mu.Unlock()
}

// runCommitHooks runs (after a commit, committed true) or drops the hooks
// of tx.
func (db *DB) runCommitHooks(tx *sql.Tx, committed bool) {
	fns := db.takeCommitHooks(tx)
	if !committed {
		return
	}
	for _, fn := range fns {
		fn()
	}
}

// takeCommitHooks removes the hooks of tx and returns them, for a
// batched transaction (batch.go) to run once its batch has committed.
func (db *DB) takeCommitHooks(tx *sql.Tx) []func() {
	v, ok := db.hooks.LoadAndDelete(tx)
	if !ok {
		return nil
	}
	h := v.(*commitHooks)
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fns
}
