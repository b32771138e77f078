package httpapi

import (
	"bytes"
	"html/template"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/apperr"
)

var docsPage = template.Must(template.New("doc").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .One}}{{.One.Code}} · {{end}}API error codes</title>
<style>
body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.6rem}code{background:#f1f3f7;padding:.1rem .35rem;border-radius:4px}
.code{border:1px solid #e2e6ee;border-radius:8px;padding:.8rem 1rem;margin:.8rem 0}
.code h2{font-size:1.05rem;margin:0 0 .3rem}.meta{color:#5b6477;font-size:.9rem}a{color:#1f5fbf}
</style></head><body>
{{if .One}}<p><a href="./">All error codes</a></p>
<h1><code>{{.One.Code}}</code> — {{.One.Title}}</h1>
<p class="meta">HTTP status {{.One.Status}} · {{if .One.Retriable}}retriable{{else}}not retriable without a change{{end}}</p>
<p>{{.One.Help}}</p>
<p>Every error answers with <code>{"error": {"code", "message", "details", "doc_url", "is_retriable", "retry_after"}, "requestId"}</code>. Quote the <code>requestId</code> (also in the <code>X-Request-Id</code> header) when you report a problem.</p>
{{else}}<h1>API error codes</h1>
<p>Every error answers with a JSON body <code>{"error": {...}, "requestId": "..."}</code> whose <code>error.code</code> is one of these stable values and whose <code>error.doc_url</code> links here.</p>
{{range .All}}<div class="code" id="{{.Code}}"><h2><a href="{{.Code}}"><code>{{.Code}}</code></a> — {{.Title}}</h2>
<div class="meta">HTTP {{.Status}}{{if .Retriable}} · retriable{{end}}</div><p>{{.Help}}</p></div>{{end}}
{{end}}</body></html>`))

type docsData struct {
	One *CodeInfo
	All []CodeInfo
}

func renderDocs(w http.ResponseWriter, d docsData) error {
	var buf bytes.Buffer
	if err := docsPage.Execute(&buf, d); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(buf.Bytes())
	return nil
}

// HandleErrorIndex serves the page listing every error code.
func HandleErrorIndex(w http.ResponseWriter, r *http.Request) error {
	return renderDocs(w, docsData{All: SortedCodes()})
}

// HandleErrorDoc serves the page of one error code, the target of doc_url.
func HandleErrorDoc(w http.ResponseWriter, r *http.Request) error {
	c, ok := LookupCode(r.PathValue("code"))
	if !ok {
		return apperr.Errorf(apperr.NotFound, "No error code %q.", r.PathValue("code"))
	}
	return renderDocs(w, docsData{One: &c})
}
