package guidedb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// A catalogue list page (experts, packages, travelogues) costs the same
// whatever the size of the catalogue:
//
//   - The page's ids come from an inner query that walks a partial index of
//     the rows the public sees in the order of the sort (guide migrations
//     00008 and 00012: one index per sort, and per sort under the country,
//     city, category, language or specialty filter) and stops after
//     offset+limit entries; only those ids are joined to their details,
//     translations and authors. Up to page 50 of 20 that is at most 1,000
//     index entries, read alone, under any single documented filter. A
//     page after the first starts from the total, so a page past the end
//     is answered without walking.
//   - meta.total under no filter or one documented filter is the sum of
//     its catalog_counts rows (guide migration 00013), kept by triggers in
//     the transaction of every write that changes a list: a city filter,
//     a partial match, sums the rows of the cities it matches.
//   - Under combined filters meta.total comes from countCache, not from
//     COUNT(*) OVER (), which visits every matching row on every page. The
//     count runs once per filter and version of the list (catalog_versions,
//     bumped by triggers in the transaction of every write that can change
//     which rows a list shows), so it stays exact: a cached count is used
//     only at the version it was taken at. Combinations are too many to
//     keep counts of.

// countCacheSize bounds the cached filters; when full the cache starts
// over, so a crawl of every filter cannot grow it without bound.
const countCacheSize = 4096

// countCache holds the totals of catalogue filters with the version of
// the list they were counted at.
type countCache struct {
	mu sync.Mutex
	m  map[string]countEntry
}

type countEntry struct {
	version int64
	total   int
}

func (c *countCache) get(key string, version int64) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	return e.total, ok && e.version == version
}

func (c *countCache) put(key string, version int64, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= countCacheSize {
		c.m = make(map[string]countEntry)
	}
	if e, ok := c.m[key]; !ok || e.version <= version {
		c.m[key] = countEntry{version, total}
	}
}

// catalogQuery is one catalogue list query.
type catalogQuery struct {
	list    string // the catalog_versions name: "experts", "packages" or "travelogues"
	id      string // the id column of the listed table, such as "e.id"
	filter  string // FROM ... WHERE: the listed rows; placeholders are args[:filterArgs]
	columns string // the columns of a row, read from the joins of details
	details string // FROM (the page's ids) AS pg JOIN ...: pg.id is the page's id column
	orderBy string // the order of the page's rows, on the columns of details
	// pageOrderBy is the same order on the columns of filter (or walk),
	// when the walk reads another table than details (a tag's copy of the
	// sort columns); "" for orderBy.
	pageOrderBy string
	// walk, when set, is the FROM of the page's walk, a derived table m
	// that reads fewer rows than filter (several cities' walks, each
	// stopped at the page's end); filter still counts the total.
	walk  string
	where *store.Where
	// filterArgs is how many of where.Args the filter uses; the rest (the
	// locale) only the details.
	filterArgs int
	// counted, when set, names the catalog_counts rows whose sum is the
	// total: a list under no filter or one documented filter.
	counted *countedFilter
}

// countedFilter names rows of catalog_counts (guide migration 00013).
type countedFilter struct {
	filter string   // "" (no filter), "country", "city", "language", "specialty" or "category"
	values []string // the filter's values, lowercased but the country; none matches nothing
}

// pageSQL is the query of page p on engine; it adds its arguments (a
// counted filter's values; on SQLite the limit and the offset) to q's.
// The last column of its rows is the list's version, or for a counted
// query the total, which the walk also checks against the offset:
// PostgreSQL computes it once and skips the walk of a page past the end;
// SQLite computes it once and checks it per entry, so that walk stops at
// the end of the filter's entries, fewer than the offset. One statement is
// the page, its total and the check of the end.
//
// On PostgreSQL the limit and the offset are constants in the text: with
// them as parameters the plan that pgx's prepared statement would reuse
// is made for an unknown limit, guessed at a tenth of the list, and sorts
// instead of walking, so PostgreSQL plans every run anew, paying the
// planner on every page. With constants the reusable plan walks the
// index as each run's own plan does, and after five runs of a statement
// PostgreSQL keeps it. SQLite plans once per prepared statement whatever the values,
// and more statement texts would only crowd its statement cache.
func (q catalogQuery) pageSQL(p paging.Page, engine store.Engine) string {
	var limit, offset string
	if engine == store.Postgres {
		limit, offset = strconv.Itoa(p.PageSize), strconv.Itoa(p.Offset())
	} else {
		limit, offset = q.where.Arg(p.PageSize), q.where.Arg(p.Offset())
	}
	pageOrderBy := q.pageOrderBy
	if pageOrderBy == "" {
		pageOrderBy = q.orderBy
	}
	last, filter, and := `(SELECT version FROM catalog_versions WHERE name = '`+q.list+`')`, q.filter, ` AND `
	if q.walk != "" {
		filter, and = q.walk, ` WHERE `
	}
	if q.counted != nil {
		last = q.counted.totalSQL(q.list, q.where)
		filter += and + last + ` > ` + offset
	}
	page := `SELECT ` + q.id + ` AS id` + filter + ` ORDER BY ` + pageOrderBy + ` LIMIT ` + limit + ` OFFSET ` + offset
	return `SELECT ` + q.columns + `, ` + last + `
		FROM (` + page + `) pg ` + q.details + ` ORDER BY ` + q.orderBy
}

// countSQL is the query of the total and the list's version.
func (q catalogQuery) countSQL() string {
	return `SELECT COUNT(*), (SELECT version FROM catalog_versions WHERE name = '` + q.list + `')` + q.filter
}

// catalogPage runs q for page p: the rows of the page and the exact total.
// scan reads one row; its last column is the list's version.
func catalogPage[T any](ctx context.Context, g *Guide, q catalogQuery, p paging.Page,
	scan func(s store.Scanner, version *int64) (T, error)) ([]T, int, error) {
	if q.counted != nil {
		return countedPage(ctx, g, q, p, scan)
	}
	key := cacheKey(q.list, q.filter, q.where.Args[:q.filterArgs])
	if p.Offset() > 0 {
		// A later page starts from the total: past the end it is empty,
		// and walking the sort's index to learn that would visit the
		// whole list (a city with 100 experts, page 25).
		version, err := listVersion(ctx, g.db, q.list)
		if err != nil {
			return nil, 0, err
		}
		total, err := g.total(ctx, q, key, version)
		if err != nil {
			return nil, 0, err
		}
		if p.Offset() >= total {
			return []T{}, total, nil
		}
	}
	out, version, err := readPage(ctx, g, q, p, scan)
	if err != nil {
		return nil, 0, err
	}
	if version < 0 {
		// An empty page carries no version: read it alone.
		if version, err = listVersion(ctx, g.db, q.list); err != nil {
			return nil, 0, err
		}
	}
	total, err := g.total(ctx, q, key, version)
	return out, total, err
}

// countedPage is catalogPage for a query whose total catalog_counts
// holds: the total first, so a page past the end is not walked.
func countedPage[T any](ctx context.Context, g *Guide, q catalogQuery, p paging.Page,
	scan func(s store.Scanner, total *int64) (T, error)) ([]T, int, error) {
	out, total, err := readPage(ctx, g, q, p, scan)
	if err != nil || len(out) > 0 {
		return out, int(total), err
	}
	// An empty page carries no total: read it alone.
	var n int
	err = g.db.QueryRowContext(ctx, `SELECT `+q.counted.totalSQL(q.list, &store.Where{}), q.counted.args()...).Scan(&n)
	return out, n, err
}

// readPage runs q's query of page p: its rows, and the version of the
// list they were read at (-1 for an empty page).
func readPage[T any](ctx context.Context, g *Guide, q catalogQuery, p paging.Page,
	scan func(s store.Scanner, version *int64) (T, error)) ([]T, int64, error) {
	rows, err := g.db.QueryContext(ctx, q.pageSQL(p, g.db.Engine), q.where.Args...) // pageSQL adds its arguments
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []T{}
	version := int64(-1)
	for rows.Next() {
		x, err := scan(rows, &version)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, x)
	}
	return out, version, rows.Err()
}

// totalSQL is the sum of c's catalog_counts rows of list, a scalar
// subquery; it adds c's values to w's arguments.
func (c *countedFilter) totalSQL(list string, w *store.Where) string {
	if len(c.values) == 0 {
		return `0`
	}
	// list and filter are names from the code, never input.
	return `(SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM catalog_counts WHERE list = '` + list + `' AND filter = '` + c.filter +
		`' AND value IN (` + w.ArgStrings(c.values) + `))`
}

// args are the arguments of c's totalSQL in a statement of its own.
func (c *countedFilter) args() []any {
	args := make([]any, len(c.values))
	for i, v := range c.values {
		args[i] = v
	}
	return args
}

// listVersion reads the version of a list (catalog_versions).
func listVersion(ctx context.Context, db store.Querier, list string) (int64, error) {
	var version int64
	err := db.QueryRowContext(ctx, `SELECT version FROM catalog_versions WHERE name = $1`, list).Scan(&version)
	return version, err
}

// total is the count of q's filter at the list's version: from the count
// cache, or counted and cached.
func (g *Guide) total(ctx context.Context, q catalogQuery, key string, version int64) (int, error) {
	if total, ok := g.counts.get(key, version); ok {
		return total, nil
	}
	var total int
	// The count and the version it holds for come from one statement, so
	// from one snapshot.
	if err := g.db.QueryRowContext(ctx, q.countSQL(), q.where.Args[:q.filterArgs]...).Scan(&total, &version); err != nil {
		return 0, err
	}
	g.counts.put(key, version, total)
	return total, nil
}

// cacheKey identifies a filter of a list.
func cacheKey(list, filter string, args []any) string {
	var b strings.Builder
	b.WriteString(list)
	b.WriteString(filter)
	for _, a := range args {
		fmt.Fprintf(&b, "\x00%q", a)
	}
	return b.String()
}
