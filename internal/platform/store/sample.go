package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SampleTable is a table's rows as SQL arguments, in column order: the
// sample data of both products loads through it.
type SampleTable struct {
	Name    string
	Columns []string
	N       int                        // rows
	Row     func(i int) ([]any, error) // the values of row i
}

// InsertSampleRows inserts the table's rows with multi-row INSERTs of up to
// batch rows. On SQLite the parameters are anonymous (?): SQLite looks a
// numbered one ($N) up in a list of all the statement's parameters, once
// when parsing and once when binding, which is quadratic in a statement of
// thousands of them.
func InsertSampleRows(ctx context.Context, tx *sql.Tx, engine Engine, t SampleTable, batch int) error {
	for start := 0; start < t.N; start += batch {
		end := min(start+batch, t.N)
		var q strings.Builder
		q.WriteString("INSERT INTO " + t.Name + " (" + strings.Join(t.Columns, ", ") + ") VALUES ")
		args := make([]any, 0, (end-start)*len(t.Columns))
		for i := start; i < end; i++ {
			row, err := t.Row(i)
			if err != nil {
				return fmt.Errorf("%s row %d: %w", t.Name, i, err)
			}
			if len(row) != len(t.Columns) {
				return fmt.Errorf("%s row %d: %d values for %d columns", t.Name, i, len(row), len(t.Columns))
			}
			if i > start {
				q.WriteString(", ")
			}
			q.WriteByte('(')
			for j := range row {
				if j > 0 {
					q.WriteString(", ")
				}
				if engine == SQLite {
					q.WriteByte('?')
				} else {
					q.WriteString("$" + strconv.Itoa(len(args)+j+1))
				}
			}
			q.WriteByte(')')
			args = append(args, row...)
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return fmt.Errorf("insert %s rows %d-%d: %w", t.Name, start, end-1, err)
		}
	}
	return nil
}

// SampleArg turns a nullable field into a driver argument: nil for NULL, else
// the value itself.
func SampleArg[T string | int | float64 | time.Time](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// SampleJSON is v as JSON text, or empty (for example "[]") when v is a nil
// slice or map.
func SampleJSON(v any, empty string) (string, error) {
	s, err := sampleJSONText(v)
	if s == "null" {
		s = empty
	}
	return s, err
}

// sampleJSONText marshals v without escaping HTML characters.
func sampleJSONText(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
