package store_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

func TestMigrateTwice(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			db := storetest.MustOpenDB(t, engine, guidedb.Schema)
			if err := db.Migrate(t.Context(), guidedb.Schema); err != nil {
				t.Fatalf("second migrate: %v", err)
			}
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM users").Scan(&n); err != nil || n != 0 {
				t.Fatalf("users: %d, %v", n, err)
			}
		})
	}
}

// TestMigrateAvatarPaths: avatars stored as absolute URLs on the Host of
// the upload request become paths on the API (migration 00004), and one
// stored before avatar_key existed gets its key back; other values stay.
func TestMigrateAvatarPaths(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			db := storetest.MustOpenEmpty(t, engine, guidedb.Schema)
			if err := db.MigrateTo(t.Context(), guidedb.Schema, 3); err != nil {
				t.Fatal(err)
			}
			rows := []struct {
				id               string
				avatar, key      any
				wantAvatar, want string // want: the key afterwards
			}{
				{"u1", "http://attacker.example/media/avatars/u1/abc.jpg", "avatars/u1/abc.jpg", "/media/avatars/u1/abc.jpg", "avatars/u1/abc.jpg"},
				{"u2", "https://api.example.com:8443/media/avatars/u2/def.png", nil, "/media/avatars/u2/def.png", "avatars/u2/def.png"},
				{"u3", "/media/sample/avatars/u3.jpg", nil, "/media/sample/avatars/u3.jpg", ""},
				{"u4", nil, nil, "", ""},
			}
			now := time.Now().UTC()
			for _, r := range rows {
				if _, err := db.Exec(`INSERT INTO users (id, handle, role, avatar, avatar_key, created_at, updated_at)
					VALUES ($1, $1, 'TOURIST', $2, $3, $4, $4)`, r.id, r.avatar, r.key, now); err != nil {
					t.Fatal(err)
				}
			}
			if err := db.Migrate(t.Context(), guidedb.Schema); err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				var avatar, key sql.NullString
				if err := db.QueryRow(`SELECT avatar, avatar_key FROM users WHERE id = $1`, r.id).Scan(&avatar, &key); err != nil {
					t.Fatal(err)
				}
				if avatar.String != r.wantAvatar || key.String != r.want {
					t.Errorf("%s: avatar %q key %q, want %q %q", r.id, avatar.String, key.String, r.wantAvatar, r.want)
				}
			}
		})
	}
}

// TestSQLiteSettings: the settings the write path's figures depend on
// hold on the writer's connection (where the commits and their checkpoints
// run) and on the readers'.
func TestSQLiteSettings(t *testing.T) {
	db := storetest.MustOpenDB(t, store.SQLite, guidedb.Schema)
	for name, conn := range map[string]interface {
		QueryRow(string, ...any) *sql.Row
	}{"reader": db, "writer": db.Writer()} {
		for pragma, want := range map[string]string{"journal_mode": "wal", "synchronous": "1", "wal_autocheckpoint": "10000", "temp_store": "2", "foreign_keys": "1"} {
			var got string
			if err := conn.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
				t.Fatalf("%s: %s: %v", name, pragma, err)
			}
			if got != want {
				t.Errorf("%s: PRAGMA %s = %s, want %s", name, pragma, got, want)
			}
		}
		// Only the readers map the file (store.readerMmap).
		var mmap int64
		if err := conn.QueryRow("PRAGMA mmap_size").Scan(&mmap); err != nil {
			t.Fatal(err)
		}
		if want := map[string]int64{"reader": 1 << 30, "writer": 0}[name]; mmap != want {
			t.Errorf("%s: PRAGMA mmap_size = %d, want %d", name, mmap, want)
		}
	}
}

// TestCheckpointBesideWriter: the WAL reaches the database file without a
// commit checkpointing it (the writer's backstop is 10,000 pages; this
// writes about 300).
func TestCheckpointBesideWriter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "guide.db")
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE blobs (b TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	blob := strings.Repeat("x", 1<<20)
	if err := db.InTx(t.Context(), func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO blobs (b) VALUES ($1)`, blob)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	waitCheckpointed(t, path, before.Size()+1<<20)
}

// waitCheckpointed fails the test unless the database file at path grows
// to size bytes within 10 s: only a checkpoint writes into it.
func waitCheckpointed(t *testing.T, path string, size int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() >= size {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("database file %d bytes, want %d: the WAL was not checkpointed", fi.Size(), size)
		}
	}
}

// TestIdleDatabaseNoCheckpoint: once the WAL is copied, a database that is
// only read runs no checkpoint, and a commit brings one. With no idle
// reader kept, each checkpoint (and each read) opens a connection of its
// own and closes it after, which the pool counts.
func TestIdleDatabaseNoCheckpoint(t *testing.T) {
	t.Parallel()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "idle.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(0)
	checkpoints := func() int64 { return db.Stats().MaxIdleClosed }
	// Quiet: three ticks in a row without a checkpoint.
	quiet := func(when string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; {
			var x int
			if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM t`).Scan(&x); err != nil {
				t.Fatal(err)
			}
			n := checkpoints() // the read's connection closed
			time.Sleep(3 * 100 * time.Millisecond)
			if checkpoints() == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: checkpoints keep running on an idle database", when)
			}
		}
	}
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	quiet("after the first commit")
	n := checkpoints()
	if _, err := db.ExecContext(t.Context(), `INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); checkpoints() == n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint after a commit")
		}
	}
	quiet("after the second commit")
}

// TestCheckpointAfterMigrate: pages written by migrations, which commit
// through the readers' pool, reach the database file too, though the
// first checkpoint ran before them.
func TestCheckpointAfterMigrate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "blobs.db")
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	time.Sleep(300 * time.Millisecond) // the first ticks, with nothing to copy
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	blobs := store.Schema{Name: "blobs", Migrations: fstest.MapFS{"migrations/sqlite/00001_blobs.sql": {Data: []byte(
		"-- +goose Up\nCREATE TABLE blobs (b BLOB NOT NULL);\nINSERT INTO blobs VALUES (randomblob(1048576));\n")}}}
	if err := db.Migrate(t.Context(), blobs); err != nil {
		t.Fatal(err)
	}
	waitCheckpointed(t, path, before.Size()+1<<20)
}

// TestMigrateRealtimeIDPerSender: guide migration 00018 keeps every
// message, and afterwards a realtime message id is unique per sender in a
// conversation: the other participant may use it, the sender not twice.
func TestMigrateRealtimeIDPerSender(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			db := storetest.MustOpenEmpty(t, engine, guidedb.Schema)
			if err := db.MigrateTo(t.Context(), guidedb.Schema, 15); err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC()
			for _, q := range []string{
				`INSERT INTO users (id, handle, role, created_at, updated_at) VALUES ('t1', 't1', 'TOURIST', $1, $1), ('x1', 'x1', 'EXPERT', $1, $1)`,
				`INSERT INTO experts (id, user_id, currency, timezone, created_at, updated_at) VALUES ('e1', 'x1', 'JPY', 'Asia/Tokyo', $1, $1)`,
				`INSERT INTO conversations (id, tourist_id, expert_id, created_at, updated_at) VALUES ('c1', 't1', 'e1', $1, $1)`,
				`INSERT INTO messages (id, conversation_id, sender_id, message_type, content, realtime_message_id, created_at)
					VALUES ('m1', 'c1', 't1', 'TEXT', 'Hello', 'd1', $1), ('m2', 'c1', 'x1', 'TEXT', 'Hi', NULL, $1)`,
			} {
				if _, err := db.Exec(q, now); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if err := db.Migrate(t.Context(), guidedb.Schema); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM messages WHERE (id = 'm1' AND content = 'Hello' AND realtime_message_id = 'd1')
				OR (id = 'm2' AND realtime_message_id IS NULL)`).Scan(&n); err != nil || n != 2 {
				t.Fatalf("%d of 2 messages kept: %v", n, err)
			}
			insert := `INSERT INTO messages (id, conversation_id, sender_id, message_type, content, realtime_message_id, created_at)
				VALUES ($1, 'c1', $2, 'TEXT', 'x', 'd1', $3)`
			if _, err := db.Exec(insert, "m3", "x1", now); err != nil {
				t.Errorf("the other participant's message under the id: %v", err)
			}
			if _, err := db.Exec(insert, "m4", "t1", now); !store.IsUniqueViolation(err) {
				t.Errorf("the sender's second message under the id: %v, want a unique violation", err)
			}
		})
	}
}
