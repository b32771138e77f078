package webui

import (
	"bytes"
	"html/template"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// errorsPage is the page of the error codes (/docs/errors/) and of each
// code (/docs/errors/{code}, the target of doc_url): the reference's
// header and navigation, its style sheet and favicon, its CSP.
var errorsPage = template.Must(template.New("errors").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .One}}{{.One.Code}} · {{end}}Error codes · {{.Title}}</title>
<link rel="icon" type="image/svg+xml" href="{{.Favicon}}">
<link rel="stylesheet" href="{{.CSS}}">
<style>
.errors{max-width:48rem;margin:0 auto;padding:24px 20px 48px;line-height:1.6}
.errors h1{font-size:1.6rem;margin:.4rem 0 1rem}.errors code{background:#f1f3f7;padding:.1rem .35rem;border-radius:4px}
.errors .code{border:1px solid var(--border);border-radius:8px;padding:.8rem 1rem;margin:.8rem 0}
.errors .code h2{font-size:1.05rem;margin:0 0 .3rem}.errors .meta{color:var(--muted);font-size:.9rem}
.errors a{color:var(--brand)}.errors .back{margin:0}
</style>
</head>
<body>
<a class="skip" href="#errors">Skip to the error codes</a>
<header class="topbar">
  <a class="brand" href="/docs/">
    <img src="{{.Favicon}}" alt="" width="28" height="28">
    <span class="brand-name">Wayfarer</span>
    <span class="brand-product">{{.Title}}</span>
  </a>
  <nav class="topnav" aria-label="Documentation">
    <a href="/docs/">API reference</a>
    <a href="/docs/errors/"{{if not .One}} aria-current="page"{{end}}>Error codes</a>
    {{- range .Links}}
    <a href="{{.Href}}">{{.Text}}</a>
    {{- end}}
    <a href="{{.SpecURL}}">OpenAPI JSON</a>
  </nav>
</header>
<main id="errors" class="errors" tabindex="-1">
{{- if .One}}
<p class="back"><a href="./">All error codes</a></p>
<h1><code>{{.One.Code}}</code> — {{.One.Title}}</h1>
<p class="meta">HTTP status {{.One.Status}} · {{if .One.Retriable}}retriable{{else}}not retriable without a change{{end}}</p>
<p>{{.One.Help}}</p>
<p>Every error of the {{.Title}} answers with <code>{"error": {"code", "message", "details", "doc_url", "is_retriable", "retry_after"}, "requestId"}</code>. Quote the <code>requestId</code> (also in the <code>X-Request-Id</code> header) when you report a problem.</p>
{{- else}}
<h1>Error codes</h1>
<p>Every error of the {{.Title}} answers with a JSON body <code>{"error": {...}, "requestId": "..."}</code> whose <code>error.code</code> is one of these stable values and whose <code>error.doc_url</code> links here.</p>
{{- range .All}}
<div class="code" id="{{.Code}}"><h2><a href="{{.Code}}"><code>{{.Code}}</code></a> — {{.Title}}</h2>
<div class="meta">HTTP {{.Status}}{{if .Retriable}} · retriable{{end}}</div><p>{{.Help}}</p></div>
{{- end}}
{{- end}}
</main>
</body>
</html>
`))

type errorsData struct {
	DocsConfig
	Favicon, CSS string
	One          *httpx.CodeInfo
	All          []httpx.CodeInfo
}

// registerErrors adds the error-code pages of the API cfg describes.
func (s *Site) registerErrors(m Mux, cfg DocsConfig) {
	codes := httpx.ErrorCodes(cfg.API)
	base := errorsData{DocsConfig: cfg, Favicon: s.AssetURL("favicon.svg"), CSS: s.AssetURL("docs.css")}
	render := func(w http.ResponseWriter, r *http.Request, d errorsData) {
		var buf bytes.Buffer
		if err := errorsPage.Execute(&buf, d); err != nil {
			httpx.WriteError(w, r, err)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", s.csp)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=3600")
		w.Write(buf.Bytes())
	}
	m.Handle("GET /docs/errors/{$}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := base
		d.All = codes
		render(w, r, d)
	}))
	m.Handle("GET /docs/errors/{code}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, c := range codes {
			if c.Code == r.PathValue("code") {
				d := base
				d.One = &c
				render(w, r, d)
				return
			}
		}
		httpx.WriteError(w, r, apperr.Errorf(apperr.NotFound, "No error code %q.", r.PathValue("code")))
	}))
}
