package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestValidKey(t *testing.T) {
	for _, key := range []string{"a.jpg", "avatars/u-1/9f86d081884c7d65.jpg", "a_b/c.d/e.png", "0"} {
		if !ValidKey(key) {
			t.Errorf("ValidKey(%q) = false", key)
		}
	}
	for _, key := range []string{
		"", "/etc/passwd", "../x.jpg", "a/../../x.jpg", "a/..", "..", ".", "./a.jpg", "a/./b.jpg",
		"a//b.jpg", "a/", "a..b.jpg", ".hidden.jpg", "a/.tmp-1.jpg", `a\b.jpg`, "A.jpg", "a b.jpg",
		"a%2e%2e/b.jpg", "a\x00.jpg", "é.jpg", "a?.jpg", "a:b.jpg", strings.Repeat("a", MaxKeyLen+1),
	} {
		if ValidKey(key) {
			t.Errorf("ValidKey(%q) = true", key)
		}
	}
}

func readAll(t *testing.T, s Store, key string) ([]byte, string) {
	t.Helper()
	rc, ct, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return data, ct
}

// testStore runs the behaviour every Store shares.
func testStore(t *testing.T, s Store) {
	ctx := context.Background()
	if err := s.Put(ctx, "avatars/u1/abc.jpg", []byte("jpeg bytes"), "image/jpeg"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if err := s.Put(ctx, "avatars/u1/def.png", []byte("png bytes"), "image/png"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if data, ct := readAll(t, s, "avatars/u1/abc.jpg"); string(data) != "jpeg bytes" || ct != "image/jpeg" {
		t.Errorf("Get = %q %q", data, ct)
	}
	if data, ct := readAll(t, s, "avatars/u1/def.png"); string(data) != "png bytes" || ct != "image/png" {
		t.Errorf("Get = %q %q", data, ct)
	}
	// Overwrite.
	if err := s.Put(ctx, "avatars/u1/abc.jpg", []byte("new jpeg"), "image/jpeg"); err != nil {
		t.Fatal(err)
	}
	if data, _ := readAll(t, s, "avatars/u1/abc.jpg"); string(data) != "new jpeg" {
		t.Errorf("after overwrite Get = %q", data)
	}
	// Missing keys.
	for _, key := range []string{"avatars/u1/nope.jpg", "nope/at/all.png", "avatars/u1", "avatars/u1/abc.jpg/x.jpg"} {
		if _, _, err := s.Get(ctx, key); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) error %v, want ErrNotFound", key, err)
		}
	}
	// Delete, twice: the second is a no-op.
	for range 2 {
		if err := s.Delete(ctx, "avatars/u1/abc.jpg"); err != nil {
			t.Fatalf("Delete: %v", err)
		}
	}
	if _, _, err := s.Get(ctx, "avatars/u1/abc.jpg"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	if err := s.Delete(ctx, "never/was.jpg"); err != nil {
		t.Errorf("Delete of a missing key: %v", err)
	}
	// Invalid keys are refused by every method.
	for _, key := range []string{"../escape.jpg", "/abs.jpg", "a/../../b.jpg", "a//b.jpg", ".hidden.jpg"} {
		if err := s.Put(ctx, key, []byte("x"), "image/jpeg"); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Put(%q) error %v, want ErrInvalidKey", key, err)
		}
		if _, _, err := s.Get(ctx, key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Get(%q) error %v, want ErrInvalidKey", key, err)
		}
		if err := s.Delete(ctx, key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Delete(%q) error %v, want ErrInvalidKey", key, err)
		}
	}
}

func TestLocal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "avatars")
	testStore(t, Local{Dir: dir})

	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&^0o750 != 0 {
		t.Errorf("Dir mode %v, want at most 0750", perm)
	}
	fi, err = os.Stat(filepath.Join(dir, "avatars", "u1", "def.png"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&^0o640 != 0 {
		t.Errorf("file mode %v, want at most 0640", perm)
	}
}

func TestLocalContentTypeFromExtension(t *testing.T) {
	s := Local{Dir: t.TempDir()}
	ctx := context.Background()
	if err := s.Put(ctx, "a.gif", []byte("x"), "image/gif"); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("Put .gif: %v", err)
	}
	if err := s.Put(ctx, "a.jpg", []byte("x"), "image/png"); err == nil {
		t.Error("Put of a PNG type under .jpg accepted")
	}
	if err := s.Put(ctx, "a.png", []byte("x"), ""); err != nil {
		t.Errorf("Put with an empty type: %v", err)
	}
	if _, ct := readAll(t, s, "a.png"); ct != "image/png" {
		t.Errorf("type %q", ct)
	}
	// A file of another extension under Dir is never served.
	os.WriteFile(filepath.Join(s.Dir, "page.html"), []byte("<script>"), 0o640)
	if _, _, err := s.Get(ctx, "page.html"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(page.html): %v", err)
	}
}

func TestLocalMissingDir(t *testing.T) {
	s := Local{Dir: filepath.Join(t.TempDir(), "not-yet")}
	if _, _, err := s.Get(context.Background(), "a.jpg"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get: %v", err)
	}
	if err := s.Delete(context.Background(), "a.jpg"); err != nil {
		t.Errorf("Delete: %v", err)
	}
	if err := (Local{}).Put(context.Background(), "a.jpg", nil, ""); err == nil {
		t.Error("Put with no Dir accepted")
	}
}

func TestLocalSymlinkCannotEscape(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	os.Mkdir(outside, 0o750)
	os.WriteFile(filepath.Join(outside, "secret.jpg"), []byte("secret"), 0o640)
	dir := filepath.Join(base, "store")
	os.Mkdir(dir, 0o750)
	if err := os.Symlink(outside, filepath.Join(dir, "evil")); err != nil {
		t.Skip("no symlinks:", err)
	}
	s := Local{Dir: dir}
	ctx := context.Background()
	if rc, _, err := s.Get(ctx, "evil/secret.jpg"); err == nil {
		data, _ := io.ReadAll(rc)
		rc.Close()
		t.Fatalf("read %q through a symlink out of Dir", data)
	}
	if err := s.Put(ctx, "evil/planted.jpg", []byte("x"), ""); err == nil {
		t.Error("Put through a symlink out of Dir accepted")
	}
	if _, err := os.Stat(filepath.Join(outside, "planted.jpg")); err == nil {
		t.Error("file planted outside Dir")
	}
	s.Delete(ctx, "evil/secret.jpg")
	if _, err := os.Stat(filepath.Join(outside, "secret.jpg")); err != nil {
		t.Error("Delete removed a file outside Dir")
	}
}

func TestLocalAtomicOverwrite(t *testing.T) {
	s := Local{Dir: t.TempDir()}
	ctx := context.Background()
	const size = 256 << 10
	versions := [][]byte{bytes.Repeat([]byte{'a'}, size), bytes.Repeat([]byte{'b'}, size*2)}
	if err := s.Put(ctx, "k/v.jpg", versions[0], ""); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var torn []string
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				rc, _, err := s.Get(ctx, "k/v.jpg")
				if err != nil {
					mu.Lock()
					torn = append(torn, err.Error())
					mu.Unlock()
					continue
				}
				data, _ := io.ReadAll(rc)
				rc.Close()
				if !bytes.Equal(data, versions[0]) && !bytes.Equal(data, versions[1]) {
					mu.Lock()
					torn = append(torn, fmt.Sprintf("partial read of %d bytes", len(data)))
					mu.Unlock()
				}
			}
		})
	}
	for i := range 40 {
		if err := s.Put(ctx, "k/v.jpg", versions[i%2], "image/jpeg"); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if len(torn) > 0 {
		t.Errorf("%d bad reads, first: %s", len(torn), torn[0])
	}
	entries, _ := os.ReadDir(filepath.Join(s.Dir, "k"))
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only v.jpg (no temporary files left)", names)
	}
}

func TestLocalCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := Local{Dir: t.TempDir()}
	if err := s.Put(ctx, "a.jpg", []byte("x"), ""); !errors.Is(err, context.Canceled) {
		t.Errorf("Put: %v", err)
	}
}
