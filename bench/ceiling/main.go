// Command ceiling is the bare net/http server the load benchmark measures
// as the ceiling: for every request it answers with bytes recorded before
// the run, of the same size (in fact the same bytes) as the guide API's
// answer to that request. It does no work per request beyond what net/http
// itself does (parse the request, read the body, write the response), so
// its throughput on one core is the most any HTTP/1.1 server in Go could
// reach for that body size, and the benchmark publishes the guide API's
// figures as a ratio to it.
//
//	ceiling -addr 127.0.0.1:18082 -manifest bodies/manifest.json
//
// The manifest (written by benchtool setup) lists entries of
// {"method", "pattern", "uri", "status", "file"}: a route pattern of
// net/http's ServeMux ("/api/v1/experts/{handle}"), the request URI whose
// answer this is ("/api/v1/experts/kyoto-guide?locale=ja"), the status and
// the body file, relative to the manifest. A request URI that was not
// recorded gets the first answer recorded for its route (the writes: every
// booking answer has the same size).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

type entry struct {
	Method string `json:"method"`
	Path   string `json:"pattern"`
	URI    string `json:"uri"`
	Status int    `json:"status"`
	File   string `json:"file"`
}

// response is a precomputed answer: status, body and its length header.
type response struct {
	status int
	length []string
	body   []byte
}

// route holds the answers of one method and path, by request URI.
type route struct {
	byURI    map[string]*response
	fallback *response
}

var contentType = []string{"application/json; charset=utf-8"}

func (rt *route) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil {
		// The guide API reads the request body; so does the ceiling.
		io.Copy(io.Discard, r.Body)
	}
	resp := rt.byURI[r.RequestURI]
	if resp == nil {
		resp = rt.fallback
	}
	h := w.Header()
	h["Content-Type"] = contentType
	h["Content-Length"] = resp.length
	w.WriteHeader(resp.status)
	w.Write(resp.body)
}

func load(manifest string) (*http.ServeMux, int, error) {
	raw, err := os.ReadFile(filepath.Clean(manifest))
	if err != nil {
		return nil, 0, err
	}
	var entries []entry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", manifest, err)
	}
	// The bodies are read through a root at the manifest's folder: a
	// manifest cannot name a file outside it.
	root, err := os.OpenRoot(filepath.Dir(manifest))
	if err != nil {
		return nil, 0, err
	}
	defer root.Close()
	routes := map[string]*route{}
	var order []string
	for _, e := range entries {
		body, err := root.ReadFile(e.File)
		if err != nil {
			return nil, 0, err
		}
		resp := &response{status: e.Status, length: []string{strconv.Itoa(len(body))}, body: body}
		pattern := e.Method + " " + e.Path
		rt := routes[pattern]
		if rt == nil {
			rt = &route{byURI: map[string]*response{}, fallback: resp}
			routes[pattern] = rt
			order = append(order, pattern)
		}
		rt.byURI[e.URI] = resp
	}
	mux := http.NewServeMux()
	for _, p := range order {
		mux.Handle(p, routes[p])
	}
	return mux, len(entries), nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18082", "listen address")
	manifest := flag.String("manifest", "manifest.json", "manifest of the recorded responses")
	flag.Parse()
	mux, n, err := load(*manifest)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("ceiling: %d precomputed responses, listening on %s", n, *addr)
	// The same timeouts as cmd/server, so that neither side is configured
	// more cheaply than the other.
	srv := &http.Server{
		Addr:              *addr,
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	log.Fatal(srv.ListenAndServe())
}
