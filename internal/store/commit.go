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
	v, ok := db.hooks.LoadAndDelete(tx)
	if !ok || !committed {
		return
	}
	h := v.(*commitHooks)
	h.mu.Lock()
	fns := h.fns
	h.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
