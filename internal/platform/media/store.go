package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Store keeps immutable binary objects (uploaded images) by short keys, on
// the local disk (Local) or in any S3-compatible object store (S3).
type Store interface {
	// Put stores data under key with its content type, replacing any
	// object there. Readers see either the old object or the new one,
	// never a part.
	Put(ctx context.Context, key string, data []byte, contentType string) error
	// Get opens the object under key and returns its content type. The
	// caller closes the reader. A missing object is ErrNotFound.
	Get(ctx context.Context, key string) (io.ReadCloser, string, error)
	// Delete removes the object under key. Deleting a missing object is
	// not an error (it returns nil), in both stores, as in S3.
	Delete(ctx context.Context, key string) error
}

var (
	// ErrNotFound is returned by Get for a key that holds no object.
	ErrNotFound = errors.New("media: not found")
	// ErrInvalidKey is returned for a key outside the key syntax (see
	// ValidKey). A key that comes from a URL should be answered as "not
	// found" when it fails with it.
	ErrInvalidKey = errors.New("media: invalid key")
)

// MaxKeyLen is the longest key accepted.
const MaxKeyLen = 512

// ValidKey reports whether key is acceptable to the stores: 1 to MaxKeyLen
// bytes of [a-z0-9/._-], made of slash-separated segments that are not
// empty and do not start with a dot (so no "..", no ".", no leading,
// trailing or doubled slash, no hidden files). Such a key is the same
// string in a file path, a URL path and an S3 object name, with no escaping.
func ValidKey(key string) bool {
	if key == "" || len(key) > MaxKeyLen {
		return false
	}
	for _, c := range []byte(key) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '/' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg[0] == '.' {
			return false
		}
	}
	return !strings.Contains(key, "..")
}

func checkKey(key string) error {
	if !ValidKey(key) {
		return fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	return nil
}
