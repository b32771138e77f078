package guidehttp

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// pageCache keeps the rendered bodies of public catalogue reads, so that a
// repeated read costs a map lookup instead of queries and JSON encoding.
// A catalogue write in this process (a review, an account closure, a
// profile or avatar change) invalidates everything at once by moving the
// version; writes made by other replicas show after at most ttl.
type pageCache struct {
	ttl     time.Duration
	max     int
	version atomic.Uint64
	mu      sync.RWMutex
	pages   map[string]*page
}

type page struct {
	version uint64
	at      time.Time
	etag    string
	body    []byte
	// gz is body gzipped, made at the first request that accepts gzip
	// (pages under httpx.MinCompressSize are never compressed), so that
	// a cached page costs no compression either.
	gzOnce sync.Once
	gz     []byte
}

// gzipped returns the page's gzip form.
func (p *page) gzipped() []byte {
	p.gzOnce.Do(func() { p.gz = httpx.Gzip(p.body, gzip.DefaultCompression) })
	return p.gz
}

func newPageCache(ttl time.Duration, max int) *pageCache {
	return &pageCache{ttl: ttl, max: max, pages: make(map[string]*page)}
}

// invalidate drops every cached page.
func (c *pageCache) invalidate() { c.version.Add(1) }

// cacheKey is the path with the query in a canonical order.
func cacheKey(r *http.Request) string {
	q := r.URL.Query()
	if len(q) == 0 {
		return r.URL.Path
	}
	return r.URL.Path + "?" + url.Values(q).Encode()
}

func (c *pageCache) get(key string, now time.Time) *page {
	c.mu.RLock()
	p := c.pages[key]
	c.mu.RUnlock()
	if p == nil || p.version != c.version.Load() || now.Sub(p.at) > c.ttl {
		return nil
	}
	return p
}

func (c *pageCache) put(key string, p *page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pages) >= c.max {
		// Crude but bounded: a full cache starts over. Catalogue keys are
		// few in practice; a flood of distinct queries cannot grow memory.
		c.pages = make(map[string]*page, c.max)
	}
	c.pages[key] = p
}

// cached serves h through the cache: a fresh page is answered from memory
// (304 when the client's If-None-Match matches its ETag); a miss renders h
// and keeps its body if it answered 200.
func (s *Server) cached(h httpx.HandlerFunc) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if s.cache == nil {
			return h(w, r)
		}
		key := cacheKey(r)
		now := s.svc.Clock.Now()
		if p := s.cache.get(key, now); p != nil {
			return writePage(w, r, p)
		}
		version := s.cache.version.Load()
		rec := &capture{header: w.Header()}
		if err := h(rec, r); err != nil {
			return err
		}
		if rec.status != http.StatusOK {
			w.WriteHeader(rec.status)
			w.Write(rec.body.Bytes())
			return nil
		}
		sum := sha256.Sum256(rec.body.Bytes())
		p := &page{version: version, at: now, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`, body: rec.body.Bytes()}
		s.cache.put(key, p)
		return writePage(w, r, p)
	}
}

// writePage answers with p, gzipped from the cache when the client
// accepts it. The gzip form has its own ETag (the page's, suffixed -gz);
// If-None-Match matches either, the two being the same content.
func writePage(w http.ResponseWriter, r *http.Request, p *page) error {
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=0, must-revalidate")
	httpx.VaryOn(h, "Accept-Encoding")
	var gz []byte
	etag := p.etag
	if len(p.body) >= httpx.MinCompressSize && httpx.AcceptsGzip(r.Header.Get("Accept-Encoding")) {
		gz, etag = p.gzipped(), strings.TrimSuffix(p.etag, `"`)+`-gz"`
	}
	h.Set("ETag", etag)
	if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, p.etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if gz != nil {
		h.Set("Content-Encoding", "gzip")
		httpx.WriteJSONBytes(w, http.StatusOK, gz)
		return nil
	}
	httpx.WriteJSONBytes(w, http.StatusOK, p.body)
	return nil
}

func etagMatches(header, etag string) bool {
	gz := strings.TrimSuffix(etag, `"`) + `-gz"`
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == gz || t == "*" {
			return true
		}
	}
	return false
}

// capture records what a handler writes, keeping the real headers map.
type capture struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *capture) Header() http.Header { return c.header }
func (c *capture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}
func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(b)
}
