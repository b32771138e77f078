package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// maxKey bounds a key.
const maxKey = 255

// CheckKey refuses a key that is not 1 to 255 printable ASCII characters,
// naming the Idempotency-Key header, where REST clients send it.
// Errors: apperr.Validation.
func CheckKey(key string) error {
	ok := key != "" && len(key) <= maxKey
	for i := 0; ok && i < len(key); i++ {
		ok = key[i] >= 0x21 && key[i] <= 0x7e
	}
	if !ok {
		return apperr.Field("Idempotency-Key", "must be 1 to 255 printable ASCII characters, such as a UUID")
	}
	return nil
}

// Fingerprint identifies a request to the operation at method and path
// (as REST names it, whichever door it came through), sent in mode, with
// body, a JSON object compacted first (so that its spacing does not
// matter) or, when it is not JSON, taken as it is. A retry through any
// door with the same arguments has the same fingerprint.
func Fingerprint(method, path, mode string, body []byte) string {
	sum := sha256.New()
	io.WriteString(sum, method+"\n"+path+"\n"+mode+"\n")
	var compact bytes.Buffer
	if json.Compact(&compact, body) == nil {
		sum.Write(compact.Bytes())
	} else {
		sum.Write(body)
	}
	return hex.EncodeToString(sum.Sum(nil))
}
