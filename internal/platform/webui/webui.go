// Package webui serves the web pages of cmd/server: the developer portal of
// the property platform (/portal/), the guide API's confirmation page
// (/confirm/) and the API reference of each API (/docs/), rendered in the browser from the server's own OpenAPI document.
//
// The pages' sources live in web/ at the root of the repository; web/build.sh
// copies them, with the reference renderer installed from the npm registry,
// into dist/ beside this file, which is committed and embedded, so that the
// server needs no Node.js to build or run and the pages need no internet:
// every script, style sheet and picture comes from the server itself, as the
// Content-Security-Policy of each page enforces.
package webui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

//go:embed dist
var dist embed.FS

// Content-Security-Policy of the pages. Everything comes from the server
// itself; no page may be framed.
const (
	// PortalCSP needs no inline style: the portal's own code styles only
	// through its style sheet and the CSSOM.
	PortalCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
	// DocsCSP lets the renderer inject its styles at run time ('unsafe-inline'
	// styles, never scripts) and load its icon font from a data: URL.
	DocsCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
		"font-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)

// Cache-Control of the responses. An asset asked for with the version the
// pages link to (?v=<hash of its content>) never changes; anything else is
// revalidated with its ETag at each use.
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// Mux is where a site's routes are registered: an *http.ServeMux or an
// *httpx.Router.
type Mux interface {
	Handle(pattern string, h http.Handler)
}

// Link is an entry of a page's navigation.
type Link struct {
	Text string
	Href string
}

// DocsConfig describes the API reference page of one server.
type DocsConfig struct {
	// Title names the API, as in its OpenAPI document's info.title.
	Title string
	// SpecURL is where the server serves its OpenAPI document;
	// /api/v1/openapi.json when empty.
	SpecURL string
	// Links are added to the page's navigation (the property server links
	// its developer portal).
	Links []Link
	// API selects the wording of the error-code pages: httpx.GuideAPI
	// (when empty) or httpx.PropertyAPI.
	API string
	// Prefix is where the reference is served: /docs when empty. A server
	// with a second API (the guide server's OCTO endpoint) serves its
	// reference under /docs too, e.g. /docs/octo; only the one at /docs
	// has the error-code pages, which describe the server's own envelope.
	Prefix string
}

// ErrorPages reports whether the reference has the error-code pages
// (/docs/errors/).
func (c DocsConfig) ErrorPages() bool { return c.Prefix == "/docs" }

// Site is one set of pages under a path prefix: its page at prefix/ and its
// assets at prefix/assets/{name}.
type Site struct {
	prefix string // "/docs", "/portal" or "/confirm"
	csp    string
	page   *file
	assets map[string]*file
	docs   *DocsConfig // the reference's: its error-code pages are registered too
}

// Portal returns the developer portal: a page that signs up, signs in and
// manages API keys through the portal API (/portal/api) of the property
// server.
func Portal() *Site {
	return newSite("/portal", PortalCSP, "portal", nil, "portal", "common")
}

// Confirm returns the guide API's confirmation page (/confirm/?action=<id>):
// the person signs in there and approves what an agent asked for with
// their API key. MCP clients open it by URL-mode elicitation.
func Confirm() *Site {
	return newSite("/confirm", PortalCSP, "confirm", nil, "confirm", "common")
}

// Products a consent page signs its people in for.
const (
	GuideProduct    = "guide"    // the guide API's accounts (POST /api/v1/auth/login)
	PropertyProduct = "property" // the portal's developers (POST /portal/api/login)
)

// ConsentConfig describes the consent page of one server.
type ConsentConfig struct {
	// Product is GuideProduct or PropertyProduct.
	Product string
}

// Consent returns the page (/oauth/consent/) where a person approves, for
// some scopes, or denies an application that asked the server's
// authorization server to act for them (internal/platform/oauth).
func Consent(cfg ConsentConfig) *Site {
	return newSite("/oauth/consent", PortalCSP, "consent", cfg, "consent", "common")
}

// ConnectedApps returns the guide API's page (/connected-apps/) where a
// person sees the applications connected through OAuth and revokes them.
func ConnectedApps() *Site {
	return newSite("/connected-apps", PortalCSP, "apps", nil, "apps", "common")
}

// Admin returns the guide API's admin console (/admin/): an admin signs
// in there and works through expert applications, reports and the
// moderation log, all through the API's admin routes.
func Admin() *Site {
	return newSite("/admin", PortalCSP, "admin", nil, "admin", "common")
}

// Docs returns the API reference of one server: its OpenAPI document
// rendered in the browser, and the error-code pages that doc_url points
// to (/docs/errors/).
func Docs(cfg DocsConfig) *Site {
	if cfg.SpecURL == "" {
		cfg.SpecURL = "/api/v1/openapi.json"
	}
	if cfg.API == "" {
		cfg.API = httpx.GuideAPI
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "/docs"
	}
	s := newSite(cfg.Prefix, DocsCSP, "docs", cfg, "docs", "common", "vendor")
	if cfg.ErrorPages() {
		s.docs = &cfg
	}
	return s
}

// Register adds the site's routes to m: GET prefix (a redirect to prefix/),
// GET prefix/ (the page) and GET prefix/assets/{name}; for the reference,
// the error-code pages GET /docs/errors/ and /docs/errors/{code} too.
func (s *Site) Register(m Mux) {
	m.Handle("GET "+s.prefix, http.RedirectHandler(s.prefix+"/", http.StatusMovedPermanently))
	m.Handle("GET "+s.prefix+"/{$}", s.Page())
	m.Handle("GET "+s.prefix+"/assets/{name}", s.Assets())
	if s.docs != nil {
		s.registerErrors(m, *s.docs)
	}
}

// Page serves the site's HTML page.
func (s *Site) Page() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", s.csp)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		serveFile(w, r, s.page, cacheRevalidate)
	})
}

// Assets serves the site's scripts, style sheets and pictures by the {name}
// path value.
func (s *Site) Assets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		f, ok := s.assets[name]
		if !ok {
			httpx.WriteError(w, r, apperr.Errorf(apperr.NotFound, "No file %q here.", name))
			return
		}
		cache := cacheRevalidate
		if v := r.URL.Query().Get("v"); v != "" && v == f.version {
			cache = cacheImmutable
		}
		if strings.HasPrefix(f.contentType, "image/svg") {
			// An SVG opened on its own is a document: it may run nothing.
			w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		}
		serveFile(w, r, f, cache)
	})
}

// AssetURL is the address the site's page links name with: versioned by
// its content, so that it may be cached for good. Empty when the site has
// no such asset.
func (s *Site) AssetURL(name string) string {
	f, ok := s.assets[name]
	if !ok {
		return ""
	}
	return s.prefix + "/assets/" + name + "?v=" + f.version
}

// newSite loads the page dir/index.html, rendered with data, and every
// other file of the dirs as an asset.
func newSite(prefix, csp, dir string, data any, assetDirs ...string) *Site {
	s := &Site{prefix: prefix, csp: csp, assets: map[string]*file{}}
	for _, d := range assetDirs {
		entries, err := dist.ReadDir(path.Join("dist", d))
		if err != nil {
			panic(fmt.Sprintf("webui: %v (run web/build.sh)", err))
		}
		for _, e := range entries {
			if e.IsDir() || (d == dir && e.Name() == "index.html") {
				continue
			}
			if _, dup := s.assets[e.Name()]; dup {
				panic("webui: two assets named " + e.Name())
			}
			s.assets[e.Name()] = embedded(path.Join("dist", d, e.Name()))
		}
	}
	tmpl, err := template.New("index.html").Funcs(template.FuncMap{
		"asset": func(name string) (string, error) {
			if u := s.AssetURL(name); u != "" {
				return u, nil
			}
			return "", fmt.Errorf("no asset %q", name)
		},
	}).Parse(string(mustRead(path.Join("dist", dir, "index.html"))))
	if err != nil {
		panic("webui: " + err.Error())
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		panic("webui: " + err.Error())
	}
	s.page = newFile("index.html", buf.Bytes())
	return s
}

// loaded holds the embedded files already hashed, shared by every Site
// (tests make many servers), so that each is hashed and compressed once.
var loaded sync.Map // dist path → *file

func embedded(name string) *file {
	if f, ok := loaded.Load(name); ok {
		return f.(*file)
	}
	f, _ := loaded.LoadOrStore(name, newFile(name, mustRead(name)))
	return f.(*file)
}

func mustRead(name string) []byte {
	b, err := fs.ReadFile(dist, name)
	if err != nil {
		panic(fmt.Sprintf("webui: %v (run web/build.sh)", err))
	}
	return b
}

// file is an embedded file ready to serve.
type file struct {
	body        []byte
	contentType string
	version     string // a hash of the content
	etag        string

	gzipOnce sync.Once
	gzipped  []byte
}

func newFile(name string, body []byte) *file {
	sum := sha256.Sum256(body)
	v := hex.EncodeToString(sum[:8])
	return &file{body: body, contentType: contentType(name), version: v, etag: `"` + v + `"`}
}

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".txt":  "text/plain; charset=utf-8",
	".json": "application/json; charset=utf-8",
}

// contentType is fixed per extension, independent of the machine's MIME
// tables.
func contentType(name string) string {
	if t, ok := contentTypes[path.Ext(name)]; ok {
		return t
	}
	return "application/octet-stream"
}

// compressible tells whether f is worth sending gzipped: text of 1 KiB or
// more.
func (f *file) compressible() bool {
	return len(f.body) >= httpx.MinCompressSize &&
		(strings.HasPrefix(f.contentType, "text/") || strings.Contains(f.contentType, "svg") || strings.Contains(f.contentType, "json"))
}

// gzip returns f compressed, made at the first request that accepts it.
func (f *file) gzip() []byte {
	f.gzipOnce.Do(func() { f.gzipped = httpx.Gzip(f.body, gzip.BestCompression) })
	return f.gzipped
}

// serveFile answers with f: 304 when the client holds it already, gzipped
// when the client accepts it.
func serveFile(w http.ResponseWriter, r *http.Request, f *file, cache string) {
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", cache)
	body, etag := f.body, f.etag
	if f.compressible() {
		httpx.VaryOn(h, "Accept-Encoding")
		if httpx.AcceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, etag = f.gzip(), `"`+f.version+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	if etagMatch(r.Header.Get("If-None-Match"), etag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// etagMatch reports whether an If-None-Match header names etag (weakly
// compared, as RFC 9110 asks for If-None-Match).
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	for part := range strings.SplitSeq(header, ",") {
		t := strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
