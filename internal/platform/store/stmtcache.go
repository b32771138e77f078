package store

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync/atomic"

	"modernc.org/sqlite"

	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// stmtCacheSize is how many prepared statements each SQLite connection
// keeps. The hot paths use a few dozen distinct statements; list queries
// built per filter come and go through the least recently used slot.
const stmtCacheSize = 256

// The SQLite driver prepares (parses and plans) every statement it runs
// through QueryContext or ExecContext and finalizes it afterwards, so a
// booking spent much of its CPU time parsing the same SQL again. Each
// connection here keeps its prepared statements by SQL text and runs them
// again with new arguments. PostgreSQL needs none of this: pgx caches each
// connection's prepared statements itself.

// sqliteConnector opens SQLite connections that cache their statements.
// The writer's connections ignore cancellation (batch.go). Every
// connection counts its commits in commits (checkpoint.go), the readers'
// too: migrations write through them.
type sqliteConnector struct {
	driver.Connector
	uninterruptible bool
	commits         *atomic.Uint64
}

func newSQLiteConnector(dsn string, uninterruptible bool, commits *atomic.Uint64) (driver.Connector, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sqliteConnector{c, uninterruptible, commits}, nil
}

// sqliteDriverConn is what the SQLite driver's connections implement and
// the cache passes on.
type sqliteDriverConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachedStmt is what the driver's prepared statements implement.
type cachedStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

func (c sqliteConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	conn, ok := dc.(sqliteDriverConn)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("sqlite connection %T lacks the interfaces the statement cache needs", dc)
	}
	hooks, ok := dc.(sqlite.HookRegisterer)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("sqlite connection %T cannot count its commits", dc)
	}
	sc := &stmtCacheConn{sqliteDriverConn: conn, byQuery: map[string]*list.Element{}, lru: list.New(),
		uninterruptible: c.uninterruptible, commits: c.commits}
	hooks.RegisterCommitHook(func() int32 { sc.committing = true; return 0 })
	return sc, nil
}

// IsValid counts the commits the connection made while database/sql had
// it out of the pool, and keeps it there. The commit hook runs before its
// commit writes the WAL: a checkpoint that counted it then could finish
// before the pages exist and take the WAL for copied. database/sql calls
// IsValid as each statement, transaction or held connection gives the
// connection back, so every commit is done by then.
func (c *stmtCacheConn) IsValid() bool {
	if c.committing {
		c.committing = false
		c.commits.Add(1)
	}
	return c.sqliteDriverConn.IsValid()
}

// stmtCacheConn is one SQLite connection with its statements. database/sql
// uses a connection from one goroutine at a time, so it needs no lock.
type stmtCacheConn struct {
	sqliteDriverConn
	byQuery map[string]*list.Element // of *cacheEntry
	lru     *list.List               // most recently used first
	// uninterruptible: statements run to their end whatever their
	// context, as the writer's must (batch.go).
	uninterruptible bool
	committing      bool           // a commit began since the connection was taken (IsValid)
	commits         *atomic.Uint64 // the database's, counted in IsValid
}

type cacheEntry struct {
	query string
	stmt  cachedStmt
	busy  bool // its rows are open: a nested use of the same SQL prepares its own
}

// take returns the cached statement of query, prepared on first use, marked
// busy; nil when it is busy already (rows of it still open).
func (c *stmtCacheConn) take(ctx context.Context, query string) (*cacheEntry, error) {
	if el, ok := c.byQuery[query]; ok {
		e := el.Value.(*cacheEntry)
		if e.busy {
			return nil, nil
		}
		c.lru.MoveToFront(el)
		e.busy = true
		return e, nil
	}
	ds, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s, ok := ds.(cachedStmt)
	if !ok {
		ds.Close()
		return nil, fmt.Errorf("sqlite statement %T lacks the context methods", ds)
	}
	e := &cacheEntry{query: query, stmt: s, busy: true}
	c.byQuery[query] = c.lru.PushFront(e)
	if c.lru.Len() > stmtCacheSize {
		c.evict()
	}
	return e, nil
}

// evict finalizes the least recently used statement that is not in use.
func (c *stmtCacheConn) evict() {
	for el := c.lru.Back(); el != nil; el = el.Prev() {
		if e := el.Value.(*cacheEntry); !e.busy {
			c.lru.Remove(el)
			delete(c.byQuery, e.query)
			e.stmt.Close()
			return
		}
	}
}

// The statements of both methods are traced here, under the span of the
// request or job that runs them (telemetry.StartQuery): the SQLite
// driver knows nothing of tracing.

func (c *stmtCacheConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (_ driver.Result, err error) {
	ctx, span := telemetry.StartQuery(ctx, "sqlite", query)
	if span != nil {
		defer func() { span.End(err) }()
	}
	if c.uninterruptible {
		ctx = context.WithoutCancel(ctx)
	}
	e, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return c.sqliteDriverConn.ExecContext(ctx, query, args)
	}
	defer func() { e.busy = false }()
	return e.stmt.ExecContext(ctx, args)
}

// QueryContext's span ends when its rows close: SQLite does most of a
// query's work as the rows are read.
func (c *stmtCacheConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (_ driver.Rows, err error) {
	ctx, span := telemetry.StartQuery(ctx, "sqlite", query)
	if span != nil {
		defer func() {
			if err != nil {
				span.End(err)
			}
		}()
	}
	if c.uninterruptible {
		ctx = context.WithoutCancel(ctx)
	}
	e, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	var rows driver.Rows
	if e == nil {
		rows, err = c.sqliteDriverConn.QueryContext(ctx, query, args)
	} else {
		rows, err = e.stmt.QueryContext(ctx, args)
	}
	if err != nil {
		if e != nil {
			e.busy = false
		}
		return nil, err
	}
	r, ok := rows.(sqliteRows)
	if !ok {
		rows.Close()
		if e != nil {
			e.busy = false
		}
		return nil, fmt.Errorf("sqlite rows %T lack the column type methods", rows)
	}
	return &cachedRows{sqliteRows: r, entry: e, span: span}, nil
}

// Close finalizes the cached statements, then closes the connection.
func (c *stmtCacheConn) Close() error {
	var errs []error
	for el := c.lru.Front(); el != nil; el = el.Next() {
		errs = append(errs, el.Value.(*cacheEntry).stmt.Close())
	}
	c.lru.Init()
	clear(c.byQuery)
	return errors.Join(append(errs, c.sqliteDriverConn.Close())...)
}

// sqliteRows is what the driver's rows implement; all of it is passed on
// (database/sql's ColumnTypes uses the column type methods).
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// cachedRows frees its statement for the next use when closed (the driver
// resets the statement then, rather than finalizing it), and ends the
// query's span.
type cachedRows struct {
	sqliteRows
	entry *cacheEntry     // nil: rows of a statement not cached
	span  *telemetry.Span // nil: not traced
}

func (r *cachedRows) Close() error {
	err := r.sqliteRows.Close()
	if r.entry != nil {
		r.entry.busy = false
		r.entry = nil
	}
	if r.span != nil {
		r.span.End(err)
		r.span = nil
	}
	return err
}
