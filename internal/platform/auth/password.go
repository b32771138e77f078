// Package auth holds the credentials of the services: password hashes, user
// tokens, identity-provider tokens and API keys.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/argon2"

	"github.com/wayfarer-asia/platform/internal/platform/admission"
)

// Argon2id parameters: the OWASP baseline (19 MiB, 2 passes, 1 lane).
// The cost of new hashes may be lowered in tests (SetTestPasswordCost);
// a hash is always checked with the parameters it carries.
var (
	argonMemory uint32 = 19 * 1024
	argonTime   uint32 = 2
)

const (
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// SetTestPasswordCost makes new password hashes cheap (the smallest
// argon2id memory, one pass), for test binaries only, where thousands of
// hashes would otherwise dominate the run. It panics outside a test.
func SetTestPasswordCost() {
	if !testing.Testing() {
		panic("auth: SetTestPasswordCost outside a test")
	}
	argonMemory, argonTime = 8*argonThreads, 1
}

var errBadHash = errors.New("auth: malformed password hash")

// HashPassword returns an argon2id hash of password in the PHC string
// format. The hash runs under admission.Do (its 19 MiB counted against the
// budget): when the server is busy it waits as long as ctx allows, then
// fails with SERVICE_UNAVAILABLE.
func HashPassword(ctx context.Context, password string) (string, error) {
	var hash string
	var err error
	if herr := admission.Do(ctx, int64(argonMemory)<<10, func() { hash, err = hashPassword(password) }); herr != nil {
		return "", herr
	}
	return hash, err
}

func hashPassword(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword reports whether password matches hash, in time that does
// not depend on where they differ. The check runs under admission.Do, as
// HashPassword does; a malformed hash is an error.
func CheckPassword(ctx context.Context, hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil {
		return false, errBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errBadHash
	}
	var got []byte
	if err := admission.Do(ctx, int64(memory)<<10, func() {
		got = argon2.IDKey([]byte(password), salt, passes, memory, threads, uint32(len(want)))
	}); err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash stands in for the hash of an account that does not exist.
var dummyHash = sync.OnceValue(func() string {
	h, err := hashPassword("no account has this password")
	if err != nil {
		panic(err)
	}
	return h
})

// CheckLogin reports whether password matches hash. An empty hash (no such
// account, or one without a password) is checked against a stand-in and
// fails, so that a failed login takes as long whether or not the account
// exists; a malformed hash fails too. The error is only that of a server
// too busy to check before ctx ended (SERVICE_UNAVAILABLE).
func CheckLogin(ctx context.Context, hash, password string) (bool, error) {
	if hash == "" {
		if _, err := CheckPassword(ctx, dummyHash(), password); errors.Is(err, admission.ErrBusy) {
			return false, err
		}
		return false, nil
	}
	ok, err := CheckPassword(ctx, hash, password)
	if errors.Is(err, admission.ErrBusy) {
		return false, err
	}
	return ok && err == nil, nil
}
