// Package store is the persistence kernel both products build on: it opens
// SQLite or PostgreSQL through database/sql, migrates the schema a product
// hands it (Schema), and holds what both products' stores share (query
// helpers, ids, the job queue). Each product's persistence lives
// in its own package: guidedb and propertydb. SQL is written once with $N
// placeholders, which both engines accept; the few statements that differ
// ask DB.Engine.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"

	"github.com/wayfarer-asia/platform/internal/platform/store/dburl"
	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// Engine names a database engine.
type Engine string

// The supported engines.
const (
	SQLite   Engine = dburl.SQLite
	Postgres Engine = dburl.Postgres
)

// DB is a database handle that knows its engine.
type DB struct {
	*sql.DB
	Engine Engine
	// writer takes the writes: InTx, ExecContext and Writer. On SQLite it
	// is a pool of one connection of its own, so that writers queue in
	// Go instead of sleeping in SQLite's busy handler (1–100 ms steps,
	// whatever the wait), and so that no other connection's commit
	// empties its page cache: in WAL mode a connection drops every cached
	// page when it finds that another connection wrote. On PostgreSQL it
	// is the pool itself.
	writer  *sql.DB
	hooks   sync.Map                // *sql.Tx → *commitHooks (commit.go)
	handoff atomic.Pointer[Handoff] // to this process's runner of jobs (jobs.go)

	// SQLite's writer goroutine (batch.go).
	batches                    chan *batchTx
	closing                    chan struct{}
	writeLoopDone              chan struct{}
	checkpointDone             chan struct{} // checkpoint.go
	closeOnce                  sync.Once
	batchCount, batchedTxCount atomic.Int64

	txConflicts atomic.Int64  // InTx runs PostgreSQL aborted (TxConflicts)
	commits     atomic.Uint64 // SQLite's commits (checkpoint.go)
}

// Open connects to the database named by dsn: a postgres:// or
// postgresql:// URL selects PostgreSQL; a file path or a sqlite: or file:
// URL selects SQLite, whose folder is created when missing. Any other
// scheme is an error (dburl.Parse).
func Open(ctx context.Context, dsn string) (*DB, error) {
	engine, driverDSN, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	var db *DB
	if engine == SQLite {
		// Each connection keeps its prepared statements (stmtcache.go).
		db = &DB{Engine: SQLite}
		readConnector, err := newSQLiteConnector(driverDSN+readerMmap, false, &db.commits)
		if err != nil {
			return nil, fmt.Errorf("open %s database: %w", engine, err)
		}
		writeConnector, err := newSQLiteConnector(driverDSN, true, &db.commits)
		if err != nil {
			return nil, fmt.Errorf("open %s database: %w", engine, err)
		}
		// One writer at a time is all SQLite allows; readers work beside
		// it in WAL mode.
		readers, writer := sql.OpenDB(readConnector), sql.OpenDB(writeConnector)
		readers.SetMaxOpenConns(8)
		readers.SetMaxIdleConns(8)
		writer.SetMaxOpenConns(1)
		writer.SetMaxIdleConns(1)
		db.DB, db.writer = readers, writer
		db.batches, db.closing = make(chan *batchTx), make(chan struct{})
		db.writeLoopDone, db.checkpointDone = make(chan struct{}), make(chan struct{})
		go db.writeLoop()
		go db.checkpointLoop()
	} else {
		cfg, err := pgx.ParseConfig(driverDSN)
		if err != nil {
			return nil, fmt.Errorf("open %s database: %w", engine, err)
		}
		cfg.Tracer = pgTracer{}
		pool := stdlib.OpenDB(*cfg)
		db = &DB{DB: pool, Engine: engine, writer: pool}
		db.SetPool(DefaultMaxConns())
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to %s database: %w", engine, err)
	}
	return db, nil
}

// Writer is the pool for a statement that writes outside InTx and is not
// an ExecContext (an UPDATE … RETURNING read with QueryContext). On
// SQLite a write through the readers' pool would wait in the busy handler.
func (db *DB) Writer() *sql.DB { return db.writer }

// ExecContext runs a statement through the writers' pool: statements
// without rows are writes.
func (db *DB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return db.writer.ExecContext(ctx, query, args...)
}

// Close stops SQLite's writer goroutine, once the batch it runs has
// committed, and its checkpoints, and closes both pools.
func (db *DB) Close() error {
	if db.writer == db.DB {
		return db.DB.Close()
	}
	db.closeOnce.Do(func() { close(db.closing) })
	<-db.writeLoopDone
	<-db.checkpointDone
	return errors.Join(db.writer.Close(), db.DB.Close())
}

// DefaultMaxConns is the PostgreSQL pool size when DATABASE_MAX_CONNS is
// not set: four connections per core of this process, at least 8. A
// request holds a connection only while PostgreSQL works for it, and more
// backends than the database server's cores only queue there, with locks
// and context switches, instead of in the pool.
func DefaultMaxConns() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// SetPool sizes a PostgreSQL pool: n open connections, all kept when idle
// so that no backend is closed and reopened under load (each reconnection
// costs a fork on the server and drops the connection's cache of prepared
// statements, which pgx fills on first use). SQLite keeps its own pool.
func (db *DB) SetPool(n int) {
	if db.Engine != Postgres {
		return
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	// Idle backends still go after a quiet spell, one at a time.
	db.SetConnMaxIdleTime(10 * time.Minute)
}

// readerMmap is added to the DSN of SQLite's readers: they read the file
// through a mapping of up to 1 GiB instead of a pread per page their
// cache misses. A catalogue larger than a connection's 16 MB cache pays
// those syscalls on most pages, and a list page's cost then grows with
// the catalogue. The writer keeps no mapping: a connection that finds the
// WAL changed by another drops its cache and its whole mapping, which
// costs a reader the mapping's two syscalls once per read after a commit,
// but would cost the writer them on its every transaction.
const readerMmap = "&_pragma=mmap_size(1073741824)"

func parseDSN(dsn string) (Engine, string, error) {
	engine, path, err := dburl.Parse(dsn)
	if err != nil {
		return "", "", err
	}
	if engine == dburl.Postgres {
		return Postgres, dsn, nil
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return "", "", fmt.Errorf("create database folder: %w", err)
		}
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// The default 2 MB page cache per connection left a catalogue-sized
	// file to pread on every page; each connection keeps 16 MB of pages.
	// Readers also map the file (readerMmap).
	q.Add("_pragma", "cache_size(-16384)")
	// The savepoints of batched writes (batch.go) journal pages in
	// memory instead of spilling to a temporary file.
	q.Add("_pragma", "temp_store(MEMORY)")
	// The WAL is checkpointed beside the writer (checkpoint.go); a
	// commit checkpoints it itself, holding up the batches behind it, only
	// past 10,000 pages (about 40 MB), when that loop has fallen behind.
	q.Add("_pragma", "wal_autocheckpoint(10000)")
	q.Add("_txlock", "immediate")
	q.Add("_time_format", "sqlite")
	return SQLite, "file:" + path + "?" + q.Encode(), nil
}

// Schema is a product's database schema: goose SQL migrations in one
// folder per engine, migrations/sqlite and migrations/postgres (what a
// product's "//go:embed migrations" holds), and the name whose version
// table, goose_<Name>, records which have run. Each product keeps its own
// version table, so that two products may share one PostgreSQL database;
// renaming one would run every migration again on an existing database.
type Schema struct {
	Name       string
	Migrations fs.FS
}

// Migrate brings schema s to its newest version.
func (db *DB) Migrate(ctx context.Context, s Schema) error {
	p, err := db.migrations(s)
	if err != nil {
		return fmt.Errorf("migrations of %s: %w", s.Name, err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", s.Name, err)
	}
	return nil
}

// Exclusive runs fn while no other process runs Exclusive with the same
// name on this database (and schema). Replicas started together on an
// empty PostgreSQL database would otherwise all run the same migrations
// and load the sample data side by side; with it, the first one does and
// the others find the work done. The lock is a session advisory lock on a
// connection held for the call, so a process that dies releases it. On
// SQLite one process owns the file, so fn simply runs.
func (db *DB) Exclusive(ctx context.Context, name string, fn func(context.Context) error) error {
	if db.Engine != Postgres {
		return fn(ctx)
	}
	conn, err := db.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	key := "wayfarer:" + name
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext($1 || current_schema()))`, key); err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	defer func() {
		// A failed unlock ends with the connection: Close below returns
		// it to the pool, so drop it instead by leaving the error to Raw.
		_, err := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1 || current_schema()))`, key)
		if err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	return fn(ctx)
}

func (db *DB) migrations(s Schema) (*goose.Provider, error) {
	dir, err := fs.Sub(s.Migrations, "migrations/"+string(db.Engine))
	if err != nil {
		return nil, err
	}
	dialect := database.DialectSQLite3
	if db.Engine == Postgres {
		dialect = database.DialectPostgres
	}
	versions, err := database.NewStore(dialect, "goose_"+s.Name)
	if err != nil {
		return nil, fmt.Errorf("migration versions of %s: %w", s.Name, err)
	}
	p, err := goose.NewProvider("", db.DB, dir, goose.WithStore(versions), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// maxTxRuns bounds the runs of a PostgreSQL transaction that PostgreSQL
// aborted to resolve a deadlock or a serialization failure.
const maxTxRuns = 3

// InTx runs fn in a transaction, committing when it returns nil. On
// SQLite, fn runs on the writer goroutine, in a savepoint of a transaction
// it may share with others (batch.go): it must not call InTx itself, and
// its statements run to the end even when ctx is cancelled. On
// PostgreSQL, a transaction aborted for a deadlock (two writers locking
// the same rows in opposite orders, as the catalogue's count triggers
// may) or a serialization failure runs again from the start, up to
// maxTxRuns times in all: fn must have no effect outside tx other than
// on variables it sets again.
func (db *DB) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if db.batches != nil {
		return db.inBatch(ctx, fn)
	}
	for run := 1; ; run++ {
		err := db.inTx(ctx, fn)
		if !isTxConflict(err) {
			return err
		}
		db.txConflicts.Add(1)
		if run == maxTxRuns || ctx.Err() != nil {
			return err
		}
	}
}

// TxConflicts reports how many runs of InTx PostgreSQL aborted for a
// deadlock or a serialization failure. Writers that lock rows in one order
// never deadlock, so a count that grows names a path that does not.
func (db *DB) TxConflicts() int64 { return db.txConflicts.Load() }

// isTxConflict reports whether PostgreSQL aborted the transaction so that
// another could go on: a deadlock or a serialization failure.
func isTxConflict(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40P01" || pg.Code == "40001")
}

func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		db.runCommitHooks(tx, false)
		return err
	}
	if err := tx.Commit(); err != nil {
		db.runCommitHooks(tx, false)
		return fmt.Errorf("commit transaction: %w", err)
	}
	db.runCommitHooks(tx, true)
	return nil
}

// pgTracer traces PostgreSQL statements under the span of the request or
// job that runs them (telemetry.StartQuery), through pgx's own hook.
type pgTracer struct{}

type pgSpanKey struct{}

func (pgTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	ctx, span := telemetry.StartQuery(ctx, "postgresql", data.SQL)
	if span == nil {
		return ctx
	}
	return context.WithValue(ctx, pgSpanKey{}, span)
}

func (pgTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	if !telemetry.Enabled() {
		return
	}
	if span, ok := ctx.Value(pgSpanKey{}).(*telemetry.Span); ok {
		span.End(data.Err)
	}
}
