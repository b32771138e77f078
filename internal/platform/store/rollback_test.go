package store_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// release returns a schema holding the numbered migrations given, the
// same for both engines.
func release(migrations map[string]string) store.Schema {
	fsys := fstest.MapFS{}
	for name, up := range migrations {
		for _, engine := range []string{"sqlite", "postgres"} {
			fsys["migrations/"+engine+"/"+name] = &fstest.MapFile{Data: []byte("-- +goose Up\n" + up + "\n")}
		}
	}
	return store.Schema{Name: "rollback", Migrations: fsys}
}

// TestRollbackOnNewerSchema holds what docs/operations.md promises about
// upgrades: the previous release starts on a database its successor
// migrated (a rollback deploys the previous image, and during a rolling
// update both releases run), leaving the newer migrations in place; and a
// release that brings a migration numbered below one applied is refused
// at start, so migration numbers must only grow.
func TestRollbackOnNewerSchema(t *testing.T) {
	t.Parallel()
	first := map[string]string{"00001_a.sql": "CREATE TABLE a (id INTEGER PRIMARY KEY);"}
	v1 := release(first)
	v2 := release(map[string]string{"00001_a.sql": first["00001_a.sql"], "00003_note.sql": "ALTER TABLE a ADD COLUMN note TEXT;"})
	late := release(map[string]string{"00001_a.sql": first["00001_a.sql"], "00002_b.sql": "CREATE TABLE b (id INTEGER PRIMARY KEY);",
		"00003_note.sql": "ALTER TABLE a ADD COLUMN note TEXT;"})
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			db := storetest.MustOpenEmpty(t, engine, v1)
			ctx := t.Context()
			for i, s := range []store.Schema{v1, v2, v1, v2} {
				if err := db.Migrate(ctx, s); err != nil {
					t.Fatalf("start %d: %v", i+1, err)
				}
			}
			// The previous release left the newer column alone.
			if _, err := db.ExecContext(ctx, `INSERT INTO a (id, note) VALUES (1, 'kept')`); err != nil {
				t.Fatalf("the newer migration was undone: %v", err)
			}
			if err := db.Migrate(ctx, late); err == nil || !strings.Contains(err.Error(), "out-of-order") {
				t.Errorf("a migration numbered below an applied one: %v, want an out-of-order error", err)
			}
		})
	}
}
