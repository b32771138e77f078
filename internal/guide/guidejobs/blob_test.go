package guidejobs_test

import (
	"errors"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidejobs"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// TestBlobDelete: a closed account's avatar file is removed by its job.
func TestBlobDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	files := &media.Local{Dir: t.TempDir()}
	key := "avatars/0193a4f0-1111-7aaa-8bbb-0123456789ab/abc.jpg"
	if err := files.Put(t.Context(), key, []byte{0xff, 0xd8, 0xff}, "image/jpeg"); err != nil {
		t.Fatal(err)
	}
	now := e.clk.Now()
	if err := e.q.Enqueue(t.Context(), e.db, guide.JobBlobDelete, map[string]string{"key": key}, now); err != nil {
		t.Fatal(err)
	}
	r := e.runner(nil, func(g *guidejobs.Jobs) { g.Blobs = files })
	if n := drain(t, r); n != 1 {
		t.Fatalf("handled %d jobs", n)
	}
	if _, _, err := files.Get(t.Context(), key); !errors.Is(err, media.ErrNotFound) {
		t.Errorf("file still there: %v", err)
	}
	var done int
	if err := e.db.QueryRow(`SELECT COUNT(*) FROM jobs WHERE done_at IS NOT NULL AND last_error IS NULL`).Scan(&done); err != nil {
		t.Fatal(err)
	}
	if done != 1 {
		t.Errorf("%d jobs completed", done)
	}
}
