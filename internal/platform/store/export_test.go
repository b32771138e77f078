package store

import "context"

// MigrateTo brings the named service's schema up to version, so that a
// test can write rows as an earlier version did before migrating on.
func (db *DB) MigrateTo(ctx context.Context, service string, version int64) error {
	p, err := db.migrations(service)
	if err != nil {
		return err
	}
	_, err = p.UpTo(ctx, version)
	return err
}
