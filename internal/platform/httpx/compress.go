package httpx

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// MinCompressSize is the smallest body worth compressing: below it the
// gzip framing (about 20 bytes) and the CPU cost outweigh the saving.
const MinCompressSize = 1024

// Compress gzips the JSON, HTML and other text answers of next of
// MinCompressSize bytes or more (or of unknown length) for clients whose
// Accept-Encoding allows gzip, and marks every such answer Vary:
// Accept-Encoding. An answer that carries its own Content-Encoding (a
// precompressed page or asset) passes untouched.
func Compress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &compressWriter{ResponseWriter: w, accepts: AcceptsGzip(r.Header.Get("Accept-Encoding")), head: r.Method == http.MethodHead}
		defer cw.close()
		next.ServeHTTP(cw, r)
	})
}

var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression)
	return zw
}}

type compressWriter struct {
	http.ResponseWriter
	accepts bool
	head    bool
	decided bool
	zw      *gzip.Writer // nil: the body passes as it is
}

func (w *compressWriter) WriteHeader(code int) {
	if !w.decided {
		w.decide(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

// decide looks at the headers the handler set and chooses whether the body
// is compressed.
func (w *compressWriter) decide(code int) {
	w.decided = true
	h := w.Header()
	if !compressibleType(h.Get("Content-Type")) || h.Get("Content-Encoding") != "" {
		return
	}
	VaryOn(h, "Accept-Encoding")
	if !w.accepts || code < 200 || code == http.StatusNoContent || code == http.StatusNotModified || w.head {
		return
	}
	if n, err := strconv.Atoi(h.Get("Content-Length")); err == nil && n < MinCompressSize {
		return
	}
	h.Del("Content-Length")
	h.Set("Content-Encoding", "gzip")
	if etag := h.Get("ETag"); strings.HasSuffix(etag, `"`) {
		// Another representation: another entity tag.
		h.Set("ETag", strings.TrimSuffix(etag, `"`)+`-gz"`)
	}
	w.zw = gzipWriters.Get().(*gzip.Writer)
	w.zw.Reset(w.ResponseWriter)
}

func (w *compressWriter) Write(b []byte) (int, error) {
	if !w.decided {
		w.WriteHeader(http.StatusOK)
	}
	if w.zw == nil {
		return w.ResponseWriter.Write(b)
	}
	return w.zw.Write(b)
}

func (w *compressWriter) close() {
	if w.zw != nil {
		w.zw.Close()
		gzipWriters.Put(w.zw)
		w.zw = nil
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *compressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// compressibleType tells the media types worth compressing: JSON and text,
// but not an event stream, whose events must leave at each flush (gzip
// would hold them in its window).
func compressibleType(ct string) bool {
	if strings.HasPrefix(ct, "text/event-stream") {
		return false
	}
	return strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "text/") ||
		strings.HasPrefix(ct, "application/problem+json") || strings.HasPrefix(ct, "image/svg")
}

// Gzip returns b compressed at level (gzip.BestCompression for what is
// compressed once and served for long), for bodies kept compressed: cached
// pages, the OpenAPI document, the web pages' assets.
func Gzip(b []byte, level int) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, level)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// WriteJSONGzip answers with an encoded JSON body, or with gz, its gzip
// form, when gz is not nil (the caller checked that the client accepts
// gzip) and the body is large enough to be worth it.
func WriteJSONGzip(w http.ResponseWriter, status int, body, gz []byte) {
	h := w.Header()
	if len(body) < MinCompressSize {
		WriteJSONBytes(w, status, body)
		return
	}
	VaryOn(h, "Accept-Encoding")
	if gz == nil {
		WriteJSONBytes(w, status, body)
		return
	}
	h.Set("Content-Encoding", "gzip")
	WriteJSONBytes(w, status, gz)
}

// Precompressed is a JSON body served often, kept with its gzip form,
// made at the first request that asks for it.
type Precompressed struct {
	Body []byte
	once sync.Once
	gz   []byte
}

// Write answers with the body, gzipped when the client accepts it.
func (p *Precompressed) Write(w http.ResponseWriter, r *http.Request) {
	var gz []byte
	if len(p.Body) >= MinCompressSize && AcceptsGzip(r.Header.Get("Accept-Encoding")) {
		p.once.Do(func() { p.gz = Gzip(p.Body, gzip.BestCompression) })
		gz = p.gz
	}
	WriteJSONGzip(w, http.StatusOK, p.Body, gz)
}

// AcceptsGzip reports whether an Accept-Encoding header allows gzip: named
// with a non-zero q, or else allowed through "*".
func AcceptsGzip(header string) bool {
	gzipQ, starQ := -1.0, -1.0
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "gzip", "x-gzip":
			gzipQ = q
		case "*":
			starQ = q
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}

// VaryOn adds the request header name to the answer's Vary unless it is
// there already. It never replaces Vary: the CORS rules put Origin there
// before the handler runs, and a shared cache that lost it would give an
// answer allowed to one origin to another.
func VaryOn(h http.Header, name string) {
	for _, v := range h.Values("Vary") {
		for field := range strings.SplitSeq(v, ",") {
			if f := strings.TrimSpace(field); f == "*" || strings.EqualFold(f, name) {
				return
			}
		}
	}
	h.Add("Vary", name)
}
