// Package dburl reads a database setting (GUIDE_DATABASE_URL,
// PROPERTY_DATABASE_URL): which engine it names, and where. It has no
// dependencies, so that the configuration can refuse a bad setting before
// anything starts.
package dburl

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// The engines a setting can name.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// scheme matches a URL scheme (RFC 3986). A path whose first colon comes
// after a slash has none.
var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// Parse returns the engine s names and its target: for PostgreSQL (a
// postgres:// or postgresql:// URL) s itself; for SQLite (a sqlite: or
// file: URL, or a plain path) the file path, without the scheme and any
// query. Any other scheme, such as mysql://, is an error rather than a
// file name, as is an empty setting or one that names no file.
func Parse(s string) (engine, target string, err error) {
	if s == "" {
		return "", "", errors.New("empty database URL")
	}
	name, rest, ok := strings.Cut(s, ":")
	if !ok || !scheme.MatchString(name) {
		return SQLite, s, nil
	}
	switch strings.ToLower(name) {
	case "postgres", "postgresql":
		if !strings.HasPrefix(rest, "//") {
			// Not echoed: the value may hold a password.
			return "", "", fmt.Errorf("a %s URL has the form %s://user@host:port/database", name, name)
		}
		return Postgres, s, nil
	case "sqlite", "file":
		path := strings.TrimPrefix(rest, "//")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if path == "" {
			return "", "", fmt.Errorf("database URL %q names no file", s)
		}
		return SQLite, path, nil
	}
	return "", "", fmt.Errorf("database URL scheme %q is not supported: use postgres://…, sqlite:path, file:path or a plain file path", name)
}
