package store

import (
	"log/slog"
	"time"
)

// SQLite checkpoints: copying the WAL's pages into the database file.
//
// By default a commit that finds the WAL past 1,000 pages checkpoints it
// there and then, on the writer connection, so every transaction queued
// behind that batch waits for the copy and its two fsyncs. The checkpoints
// run here instead, on a reader connection beside the writer (a PASSIVE
// checkpoint takes no write lock), ten times a second: the writer goes on
// committing meanwhile, and a page that several batches rewrote within
// the interval goes to the file once. Measured under load (BENCHMARKS.md):
// less CPU per booking and per message than checkpoints in the writer,
// and a lower p50 and p99. A longer interval saved more CPU but copied
// more at a time, and the requests waited on its I/O. The writer's own
// wal_autocheckpoint (parseDSN) is a backstop for when this loop falls
// behind.

// checkpointEvery is how often the WAL is checkpointed.
const checkpointEvery = 100 * time.Millisecond

// checkpointLoop checkpoints the WAL until the database closes.
func (db *DB) checkpointLoop() {
	defer close(db.checkpointDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-db.closing:
			return
		}
		// The readers' pool: the writer connection stays free for writes.
		// Its row (busy, WAL pages, pages copied) is not needed.
		if _, err := db.DB.Exec("PRAGMA wal_checkpoint(PASSIVE)"); err != nil {
			slog.Warn("sqlite checkpoint", "err", err)
		}
	}
}
