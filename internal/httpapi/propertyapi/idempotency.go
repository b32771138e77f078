package propertyapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/apperr"
	"github.com/wayfarer-asia/platform/internal/httpapi"
)

// maxIdempotencyKey bounds the Idempotency-Key header.
const maxIdempotencyKey = 255

// idempotent makes a POST handler honour the Idempotency-Key header: the
// first request with a key runs and its response is recorded; the same
// request again (same method, path, key mode and body) replays that
// response with Idempotent-Replayed: true; another request with the key is
// refused with IDEMPOTENCY_KEY_REUSED, and one sent while the first still
// runs with IDEMPOTENCY_IN_PROGRESS. A server error is not recorded, so
// that the request can be retried with the same key. Keys belong to the
// account (the developer) and are kept 24 hours.
func (s *Server) idempotent(h httpapi.HandlerFunc) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			return h(w, r)
		}
		if len(key) > maxIdempotencyKey || !printable(key) {
			return apperr.Field("Idempotency-Key", "must be 1 to 255 printable ASCII characters, such as a UUID")
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, httpapi.MaxJSONBody))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return apperr.Errorf(apperr.TooLarge, "The body is larger than %d bytes.", tooBig.Limit)
			}
			return apperr.Field("body", "the body could not be read")
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		acct, mode := s.idempotencyAccount(r)
		sum := sha256.New()
		io.WriteString(sum, r.Method+"\n"+r.URL.Path+"\n"+mode+"\n")
		var compact bytes.Buffer
		if json.Compact(&compact, body) == nil {
			sum.Write(compact.Bytes())
		} else {
			sum.Write(body)
		}
		hash := hex.EncodeToString(sum.Sum(nil))

		stored, err := s.cfg.Idempotency.BeginIdempotent(r.Context(), acct, key, hash)
		if err != nil {
			return err
		}
		if stored != nil {
			w.Header().Set("Idempotent-Replayed", "true")
			if len(stored.Body) == 0 {
				w.WriteHeader(stored.Status)
				return nil
			}
			httpapi.WriteJSONBytes(w, stored.Status, stored.Body)
			return nil
		}
		ctx := context.WithoutCancel(r.Context())
		done := false
		defer func() {
			if !done { // a panic or a server error: forget the key
				s.cfg.Idempotency.AbandonIdempotent(ctx, acct, key)
			}
		}()
		rec := &recordingWriter{ResponseWriter: w}
		if err := h(rec, r); err != nil {
			httpapi.WriteError(rec, r, err)
		}
		status := rec.code()
		if status >= 500 {
			return nil
		}
		recorded := rec.body.Bytes()
		if rec.recorded != nil {
			recorded = rec.recorded
		}
		if err := s.cfg.Idempotency.FinishIdempotent(ctx, acct, key, status, recorded); err != nil {
			s.cfg.Logger.ErrorContext(ctx, "record idempotent response", "err", err, "request_id", httpapi.RequestID(ctx))
			return nil
		}
		done = true
		return nil
	}
}

// recordInstead makes the idempotency record of the response being written
// to w the body b instead of the response itself: a new API key is sent
// once and never stored, so its replay carries the key as null.
func recordInstead(w http.ResponseWriter, b []byte) {
	if rw, ok := w.(*recordingWriter); ok {
		rw.recorded = b
	}
}

// idempotencyAccount returns whose key space the request uses and the
// mode that is part of its fingerprint.
func (s *Server) idempotencyAccount(r *http.Request) (string, string) {
	if k := callerKey(r.Context()); k != nil {
		return k.DeveloperID, k.Mode
	}
	return developer(r.Context()).ID, "portal"
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// recordingWriter passes a response through and keeps a copy of it.
type recordingWriter struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	recorded []byte // what to record instead of body, when set
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *recordingWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}
