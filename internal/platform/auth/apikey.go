package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strings"
)

// API key prefixes by mode.
const (
	LiveKeyPrefix = "pk_live_"
	TestKeyPrefix = "pk_test_"
)

const (
	keyAlphabet   = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	keyRandomLen  = 40 // base62 characters: about 238 random bits
	keyPrefixShow = 12 // characters of the key kept for display
)

// NewAPIKey returns a new key of the mode ("live" or "test"), the part of
// it safe to display, and the hash to store. The key itself is never stored.
func NewAPIKey(mode string) (key, displayPrefix, hash string, err error) {
	prefix := LiveKeyPrefix
	if mode == "test" {
		prefix = TestKeyPrefix
	}
	var b strings.Builder
	b.WriteString(prefix)
	max := big.NewInt(int64(len(keyAlphabet)))
	for range keyRandomLen {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", "", "", err
		}
		b.WriteByte(keyAlphabet[n.Int64()])
	}
	key = b.String()
	return key, key[:keyPrefixShow], HashAPIKey(key), nil
}

// HashAPIKey returns the stored form of a key. Keys carry over 200 random
// bits, so a fast hash is enough: there is nothing to guess.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// IsAPIKey reports whether a bearer value has the shape of an API key.
func IsAPIKey(s string) bool {
	return strings.HasPrefix(s, LiveKeyPrefix) || strings.HasPrefix(s, TestKeyPrefix)
}
