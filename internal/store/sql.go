package store

import (
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"time"
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
