package idempotency

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
)

// HTTP makes POST handlers honour the Idempotency-Key header, the same way
// on both APIs.
type HTTP struct {
	Store Store
	// Account returns whose key space the request uses and a mode that is
	// part of its fingerprint (so that the same key and body sent with a
	// test and a live key are two requests).
	Account func(r *http.Request) (account, mode string)
	// Render turns an operation's result into the response body the API
	// sends for it (its envelope).
	Render func(result any) ([]byte, error)
	Logger *slog.Logger
}

// Wrap returns h honouring the Idempotency-Key header, through Do: the
// first request with a key runs; its success is recorded, with the status
// given, in the transaction of its effect (rendered by render, or the
// API's Render when nil); any other answer is recorded after it, as it was
// sent. The same request again (same method, path, mode and body) replays
// the answer with Idempotent-Replayed: true; another request with the key
// is refused with IDEMPOTENCY_KEY_REUSED (422), and one sent while the
// first still runs with IDEMPOTENCY_IN_PROGRESS (409). A server error is
// not recorded, so that the request can be retried with the same key.
func (m *HTTP) Wrap(status int, render func(any) ([]byte, error), h httpx.HandlerFunc) httpx.HandlerFunc {
	if render == nil {
		render = m.Render
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			return h(w, r)
		}
		if err := CheckKey(key); err != nil {
			return err
		}
		body, err := httpx.ReadBody(w, r)
		if err != nil {
			return err
		}
		account, mode := m.Account(r)
		ctx := r.Context()
		var rec *recordingWriter
		call := Call{Account: account, Key: key, Fingerprint: Fingerprint(r.Method, r.URL.Path, mode, body), Status: status,
			Render: func(result any) ([]byte, error) {
				// The answer as the handler sends it: with absolute image URLs.
				if m, ok := result.(media.Referrer); ok {
					media.Resolve(ctx, m)
				}
				return render(result)
			},
			// The answer is the response as sent: a success that committed
			// its answer with its effect keeps it; anything else below 500
			// is recorded.
			Answer: func(any, error) (int, []byte, bool) { return rec.code(), rec.body.Bytes(), rec.code() < 500 },
		}
		_, stored, _, err := Do(ctx, m.Store, call, func(ctx context.Context) (any, error) {
			rec = &recordingWriter{ResponseWriter: w}
			r := r.WithContext(ctx)
			if err := h(rec, r); err != nil {
				httpx.WriteError(rec, r, err)
			}
			return nil, nil
		})
		switch {
		case rec == nil && err != nil: // the key could not be claimed
			return err
		case err != nil:
			msg := "record idempotent response"
			if rec.code() >= 500 {
				msg = "abandon idempotency key"
			}
			m.Logger.ErrorContext(ctx, msg, "err", err, "request_id", httpx.RequestID(ctx))
		case stored != nil:
			w.Header().Set("Idempotent-Replayed", "true")
			if len(stored.Body) == 0 {
				w.WriteHeader(stored.Status)
				return nil
			}
			httpx.WriteJSONBytes(w, stored.Status, stored.Body)
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
