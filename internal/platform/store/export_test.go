package store

import "context"

// MigrateTo brings schema s up to version, so that a test can write rows
// as an earlier version did before migrating on.
func (db *DB) MigrateTo(ctx context.Context, s Schema, version int64) error {
	p, err := db.migrations(s)
	if err != nil {
		return err
	}
	_, err = p.UpTo(ctx, version)
	return err
}
