package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// Where builds a WHERE clause and its $N arguments together, so that
// placeholders and values never drift apart.
type Where struct {
	conds []string
	Args  []any // the values of the placeholders, in order
}

// Arg adds v to the arguments and returns its placeholder.
func (w *Where) Arg(v any) string {
	w.Args = append(w.Args, v)
	return "$" + strconv.Itoa(len(w.Args))
}

// ArgStrings adds each of vs to the arguments and returns their
// placeholders, comma-separated (for an IN list).
func (w *Where) ArgStrings(vs []string) string {
	ph := make([]string, len(vs))
	for i, v := range vs {
		ph[i] = w.Arg(v)
	}
	return strings.Join(ph, ", ")
}

// And adds a condition.
func (w *Where) And(cond string) { w.conds = append(w.conds, cond) }

// String is the WHERE clause, with a leading space, or "" without
// conditions.
func (w *Where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// LikePattern returns a LIKE pattern (with ESCAPE '\') matching s anywhere,
// lowercased for comparison with lower(column).
func LikePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(s)) + "%"
}

// Direction returns the SQL keyword for an "asc"/"desc" order.
func Direction(order string) string {
	if order == "asc" {
		return "ASC"
	}
	return "DESC"
}

// NullString is the string of ns, nil when NULL.
func NullString(ns sql.NullString) *string {
	if !ns.Valid {
		return nil
	}
	return &ns.String
}

// NullFloat is the number of nf, nil when NULL.
func NullFloat(nf sql.NullFloat64) *float64 {
	if !nf.Valid {
		return nil
	}
	return &nf.Float64
}

// NullTime is the time of nt in UTC, nil when NULL.
func NullTime(nt sql.NullTime) *time.Time {
	if !nt.Valid {
		return nil
	}
	t := nt.Time.UTC()
	return &t
}

// StringList decodes a JSON array column; a NULL or empty column is an
// empty list, never nil, so it encodes as [].
func StringList(b []byte) []string {
	out := []string{}
	if len(b) > 0 {
		json.Unmarshal(b, &out)
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// RawJSON returns a JSON column as raw JSON, empty when the column is.
func RawJSON(b []byte, empty string) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage(empty)
	}
	return json.RawMessage(append([]byte(nil), b...))
}

// Placeholders returns "$from, $from+1, ..." for n values.
func Placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(from+i))
	}
	return b.String()
}

// Scanner is a row to scan: *sql.Row or *sql.Rows.
type Scanner interface{ Scan(...any) error }

// QueryPage runs a list query: [with] SELECT columns FROM from (which
// holds w's conditions) ORDER BY orderBy, one page of it, with the total
// counted in the same query by a window function. with is "" or a WITH
// clause, whose placeholders are w's too. Past the last page no row carries
// the count, so then it is counted alone. scan reads one row whose last
// column is the total.
func QueryPage[T any](ctx context.Context, q Querier, with, columns, from string, w *Where, orderBy string, p paging.Page,
	scan func(s Scanner, total *int) (T, error)) ([]T, int, error) {
	filterArgs := len(w.Args)
	rows, err := q.QueryContext(ctx, PageSQL(with, columns, from, w, orderBy, p), w.Args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []T{}
	total := 0
	for rows.Next() {
		x, err := scan(rows, &total)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if len(out) == 0 && p.Offset() > 0 {
		if err := q.QueryRowContext(ctx, with+`SELECT COUNT(*)`+from, w.Args[:filterArgs]...).Scan(&total); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// PageSQL is the query QueryPage runs for page p (tests explain it); it
// adds the limit and offset to w's arguments.
func PageSQL(with, columns, from string, w *Where, orderBy string, p paging.Page) string {
	return with + `SELECT ` + columns + `, COUNT(*) OVER ()` + from + ` ORDER BY ` + orderBy +
		` LIMIT ` + w.Arg(p.PageSize) + ` OFFSET ` + w.Arg(p.Offset())
}

// Querier is what *sql.DB and *sql.Tx share, so that one operation can run
// alone or inside a larger transaction.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// NewID returns a time-ordered UUIDv7.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// IsUniqueViolation reports whether err is a unique constraint failure on
// either engine.
func IsUniqueViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}
