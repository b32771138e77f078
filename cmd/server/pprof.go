package main

import (
	"net/http"
	"net/http/pprof"
	"time"
)

// newPprofServer serves the Go runtime profiles (net/http/pprof) on a
// listener of their own, PPROF_ADDR, never on an API's: they are
// unauthenticated and reveal internals, so the address should be a
// loopback or private one.
func newPprofServer(addr string) *http.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	srv := newServer(addr, mux)
	// A CPU profile or trace streams for ?seconds= (up to a few minutes).
	srv.WriteTimeout = 5 * time.Minute
	return srv
}
