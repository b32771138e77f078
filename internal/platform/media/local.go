package media

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// Local keeps objects as files under Dir, a key "a/b.jpg" at Dir/a/b.jpg.
// Dir and the folders under it are created with mode 0750 on the first Put,
// files with 0640.
//
// The content type is not stored: it follows from the key's extension,
// ".jpg" for image/jpeg, ".png" for image/png and ".pdf" for a document,
// the only kinds of key Local takes. Every file is opened through an os.Root on Dir, so even a
// symbolic link planted under Dir cannot lead outside it.
//
// A Put writes a temporary file (named with a leading dot, which no key
// can have) in the target folder, syncs it and renames it over the key, so
// a reader sees the old object or the new one, never a part. Delete of a
// missing key returns nil; folders emptied by Delete are left in place.
type Local struct {
	Dir string
}

var extTypes = map[string]string{".jpg": "image/jpeg", ".png": "image/png", ".pdf": PDF}

// typeOf returns the content type of key from its extension.
func typeOf(key string) (string, bool) {
	ct, ok := extTypes[path.Ext(key)]
	return ct, ok
}

func (l Local) open(create bool) (*os.Root, error) {
	if l.Dir == "" {
		return nil, errors.New("media: Local.Dir is not set")
	}
	if create {
		if err := os.MkdirAll(l.Dir, 0o750); err != nil {
			return nil, fmt.Errorf("media: %w", err)
		}
	}
	return os.OpenRoot(l.Dir)
}

// missing reports whether err says that a file is not there, including
// when a folder on its path is a file.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// Put stores data under key. The key must end in ".jpg" or ".png", and
// contentType must be the matching type or empty.
func (l Local) Put(ctx context.Context, key string, data []byte, contentType string) (err error) {
	if err := checkKey(key); err != nil {
		return err
	}
	ct, ok := typeOf(key)
	if !ok {
		return fmt.Errorf("%w: %q: a Local key ends in .jpg, .png or .pdf", ErrInvalidKey, key)
	}
	if contentType != "" && contentType != ct {
		return fmt.Errorf("media: key %q holds %s, not %s", key, ct, contentType)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	root, err := l.open(true)
	if err != nil {
		return err
	}
	defer root.Close()

	dir := path.Dir(key)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o750); err != nil {
			return fmt.Errorf("media: %w", err)
		}
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := path.Join(dir, ".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return fmt.Errorf("media: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("media: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("media: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("media: %w", err)
	}
	if err = root.Rename(tmp, key); err != nil {
		return fmt.Errorf("media: %w", err)
	}
	// Make the rename itself durable.
	if d, derr := root.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Get opens the file of key.
func (l Local) Get(ctx context.Context, key string) (io.ReadCloser, string, error) {
	if err := checkKey(key); err != nil {
		return nil, "", err
	}
	ct, ok := typeOf(key)
	if !ok {
		return nil, "", ErrNotFound
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	root, err := l.open(false)
	if missing(err) {
		return nil, "", ErrNotFound
	}
	if err != nil {
		return nil, "", fmt.Errorf("media: %w", err)
	}
	defer root.Close()
	f, err := root.Open(key)
	if missing(err) {
		return nil, "", ErrNotFound
	}
	if err != nil {
		return nil, "", fmt.Errorf("media: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, "", fmt.Errorf("media: %w", err)
		}
		return nil, "", ErrNotFound
	}
	return f, ct, nil
}

// Delete removes the file of key; a missing one is not an error.
func (l Local) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	root, err := l.open(false)
	if missing(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("media: %w", err)
	}
	defer root.Close()
	fi, err := root.Lstat(key)
	if missing(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("media: %w", err)
	}
	if fi.IsDir() {
		return nil // a folder is no object
	}
	if err := root.Remove(key); err != nil && !missing(err) {
		return fmt.Errorf("media: %w", err)
	}
	return nil
}
