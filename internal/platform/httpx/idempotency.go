package httpx

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
)

// Idempotency makes POST handlers honour the Idempotency-Key header, the
// same way on both APIs.
type Idempotency struct {
	Store idempotency.Store
	// Account returns whose key space the request uses and a mode that is
	// part of its fingerprint (so that the same key and body sent with a
	// test and a live key are two requests).
	Account func(r *http.Request) (account, mode string)
	// Render turns an operation's result into the response body the API
	// sends for it (its envelope).
	Render func(result any) ([]byte, error)
	Logger *slog.Logger
}

// Wrap returns h honouring the Idempotency-Key header: the first request
// with a key runs; its success is recorded, with the status given, in the
// transaction of its effect (rendered by render, or the API's Render when
// nil); a refusal is recorded after it. The same request again (same
// method, path, mode and body) replays the answer with Idempotent-Replayed:
// true; another request with the key is refused with
// IDEMPOTENCY_KEY_REUSED (422), and one sent while the first still runs
// with IDEMPOTENCY_IN_PROGRESS (409). A server error is not recorded, so
// that the request can be retried with the same key.
func (m *Idempotency) Wrap(status int, render func(any) ([]byte, error), h HandlerFunc) HandlerFunc {
	if render == nil {
		render = m.Render
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			return h(w, r)
		}
		if err := idempotency.CheckKey(key); err != nil {
			return err
		}
		body, err := readJSONBody(w, r, routeLimit(r))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return apperr.Errorf(apperr.TooLarge, "The body is larger than %d bytes.", tooBig.Limit)
			}
			return apperr.Field("body", "the body could not be read")
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		account, mode := m.Account(r)
		token, stored, err := m.Store.Begin(r.Context(), account, key, idempotency.Fingerprint(r.Method, r.URL.Path, mode, body))
		if err != nil {
			return err
		}
		if stored != nil {
			w.Header().Set("Idempotent-Replayed", "true")
			if len(stored.Body) == 0 {
				w.WriteHeader(stored.Status)
				return nil
			}
			WriteJSONBytes(w, stored.Status, stored.Body)
			return nil
		}
		ctx := r.Context()
		claim := &idempotency.Claim{Account: account, Key: key, Token: token, Status: status, Render: func(result any) ([]byte, error) {
			// The answer as the handler sends it: with absolute image URLs.
			if m, ok := result.(Media); ok {
				ResolveMedia(ctx, m)
			}
			return render(result)
		}}
		r = r.WithContext(idempotency.NewContext(r.Context(), claim))
		// Past this point the claim is settled whatever happens to the
		// request: a client that leaves must not cancel the bookkeeping.
		ctx = context.WithoutCancel(ctx)
		settled := false
		defer func() {
			if !settled { // a panic: forget the claim (a committed answer stays)
				m.Store.Abandon(ctx, claim)
			}
		}()
		rec := &recordingWriter{ResponseWriter: w}
		if err := h(rec, r); err != nil {
			WriteError(rec, r, err)
		}
		settled = true
		if rec.code() >= 500 {
			if err := m.Store.Abandon(ctx, claim); err != nil {
				m.Logger.ErrorContext(ctx, "abandon idempotency key", "err", err, "request_id", RequestID(ctx))
			}
			return nil
		}
		// A success committed its answer with its effect, and this changes
		// nothing; a refusal is recorded here.
		if err := m.Store.Finish(ctx, claim, rec.code(), rec.body.Bytes()); err != nil {
			m.Logger.ErrorContext(ctx, "record idempotent response", "err", err, "request_id", RequestID(ctx))
		}
		return nil
	}
}

// recordingWriter passes a response through and keeps a copy of it.
type recordingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
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
