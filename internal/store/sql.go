package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
)

// where builds a WHERE clause and its $N arguments together, so that
// placeholders and values never drift apart.
type where struct {
	conds []string
	args  []any
}

// arg adds v to the arguments and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

// and adds a condition.
func (w *where) and(cond string) { w.conds = append(w.conds, cond) }

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// likePattern returns a LIKE pattern (with ESCAPE '\') matching s anywhere,
// lowercased for comparison with lower(column).
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(s)) + "%"
}

// direction returns the SQL keyword for an "asc"/"desc" order.
func direction(order string) string {
	if order == "asc" {
		return "ASC"
	}
	return "DESC"
}

func nullString(ns sql.NullString) *string {
	if !ns.Valid {
		return nil
	}
	return &ns.String
}

func nullFloat(nf sql.NullFloat64) *float64 {
	if !nf.Valid {
		return nil
	}
	return &nf.Float64
}

func nullTime(nt sql.NullTime) *time.Time {
	if !nt.Valid {
		return nil
	}
	t := nt.Time.UTC()
	return &t
}

// stringList decodes a JSON array column; a NULL or empty column is an
// empty list, never nil, so it encodes as [].
func stringList(b []byte) []string {
	out := []string{}
	if len(b) > 0 {
		json.Unmarshal(b, &out)
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// rawObject returns a JSON column as raw JSON, "{}" when empty.
func rawJSON(b []byte, empty string) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage(empty)
	}
	return json.RawMessage(append([]byte(nil), b...))
}

// placeholders returns "$from, $from+1, ..." for n values.
func placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(from+i))
	}
	return b.String()
}

// scanner is a row to scan: *sql.Row or *sql.Rows.
type scanner interface{ Scan(...any) error }

// queryPage runs a list query: columns FROM from (which holds w's
// conditions) ORDER BY orderBy, one page of it, with the total counted in
// the same query by a window function. Past the last page no row carries
// the count, so then it is counted alone. scan reads one row whose last
// column is the total.
func queryPage[T any](ctx context.Context, q querier, columns, from string, w *where, orderBy string, p guide.Page,
	scan func(s scanner, total *int) (T, error)) ([]T, int, error) {
	filterArgs := len(w.args)
	rows, err := q.QueryContext(ctx, `SELECT `+columns+`, COUNT(*) OVER ()`+from+` ORDER BY `+orderBy+
		` LIMIT `+w.arg(p.PageSize)+` OFFSET `+w.arg(p.Offset()), w.args...)
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
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*)`+from, w.args[:filterArgs]...).Scan(&total); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}
