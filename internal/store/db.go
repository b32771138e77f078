// Package store is the persistence kernel both products build on: it opens
// SQLite or PostgreSQL through database/sql, migrates each product's schema,
// and holds what both products' stores share (query helpers, ids, the
// Idempotency-Key records, the job queue). Each product's persistence lives
// in its own package: guidedb and propertydb. SQL is written once with $N
// placeholders, which both engines accept; the few statements that differ
// ask DB.Engine.
package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/wayfarer-asia/platform/internal/store/dburl"
)

// Engine names a database engine.
type Engine string

// The supported engines.
const (
	SQLite   Engine = dburl.SQLite
	Postgres Engine = dburl.Postgres
)

//go:embed migrations
var migrations embed.FS

// DB is a database handle that knows its engine.
type DB struct {
	*sql.DB
	Engine Engine
	hooks  sync.Map // *sql.Tx → *commitHooks (commit.go)
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
	driver := "pgx"
	if engine == SQLite {
		driver = "sqlite"
	}
	sqlDB, err := sql.Open(driver, driverDSN)
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", engine, err)
	}
	if engine == SQLite {
		// One writer at a time is all SQLite allows; a small pool of readers
		// works in WAL mode while writers wait on busy_timeout.
		sqlDB.SetMaxOpenConns(8)
		sqlDB.SetMaxIdleConns(8)
	} else {
		sqlDB.SetMaxOpenConns(20)
		sqlDB.SetMaxIdleConns(10)
	}
	if err := sqlDB.PingContext(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("connect to %s database: %w", engine, err)
	}
	return &DB{DB: sqlDB, Engine: engine}, nil
}

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
	q.Add("_txlock", "immediate")
	q.Add("_time_format", "sqlite")
	return SQLite, "file:" + path + "?" + q.Encode(), nil
}

// Migrate brings the schema of the named service ("guide" or "property") to
// the newest version. Each service keeps its own version table, so both may
// share one PostgreSQL database.
func (db *DB) Migrate(ctx context.Context, service string) error {
	p, err := db.migrations(service)
	if err != nil {
		return fmt.Errorf("migrations of %s: %w", service, err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", service, err)
	}
	return nil
}

func (db *DB) migrations(service string) (*goose.Provider, error) {
	dir, err := fs.Sub(migrations, "migrations/"+service+"/"+string(db.Engine))
	if err != nil {
		return nil, err
	}
	dialect := database.DialectSQLite3
	if db.Engine == Postgres {
		dialect = database.DialectPostgres
	}
	versions, err := database.NewStore(dialect, "goose_"+service)
	if err != nil {
		return nil, fmt.Errorf("migration versions of %s: %w", service, err)
	}
	p, err := goose.NewProvider("", db.DB, dir, goose.WithStore(versions), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// InTx runs fn in a transaction, committing when it returns nil.
func (db *DB) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
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
