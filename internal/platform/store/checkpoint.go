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
//
// A tick with nothing to copy is skipped: no commit since the last
// checkpoint, and that one copied the whole WAL. An idle database then
// costs no statement ten times a second, and takes no reader connection
// from the requests for nothing.

// checkpointEvery is how often the WAL is checkpointed.
const checkpointEvery = 100 * time.Millisecond

// checkpointLoop checkpoints the WAL until the database closes.
func (db *DB) checkpointLoop() {
	defer close(db.checkpointDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	// db.commits when the WAL was last copied whole; none yet, as a WAL
	// left by a process that died may hold pages.
	copied := ^uint64(0)
	for {
		select {
		case <-t.C:
		case <-db.closing:
			return
		}
		// Read before the checkpoint: a commit during it is copied by the
		// next one.
		commits := db.commits.Load()
		if commits == copied {
			continue
		}
		// The readers' pool: the writer connection stays free for writes.
		var busy, walPages, copiedPages int
		if err := db.DB.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &walPages, &copiedPages); err != nil {
			slog.Warn("sqlite checkpoint", "err", err)
			continue
		}
		// A reader still on an older snapshot keeps the pages it may read
		// in the WAL: the next tick tries again.
		if busy == 0 && copiedPages == walPages {
			copied = commits
		}
	}
}
