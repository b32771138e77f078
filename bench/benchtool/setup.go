package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// State is what setup learnt and created on one server: the ids the target
// files need, and the credentials of the benchmark's users.
type State struct {
	Base          string         `json:"base"`
	Locales       []string       `json:"locales"`
	Countries     []string       `json:"countries"`
	Specialty     string         `json:"specialty"`
	Experts       []Expert       `json:"experts"`
	Packages      []Package      `json:"packages"`
	Users         []User         `json:"users"`
	Conversations []Conversation `json:"conversations"`
	// The property API's side (quotebook): a developer's live key (the
	// server runs with PROPERTY_RATE_LIMIT out of the way) and the room
	// types it can quote.
	PropertyKey string `json:"propertyKey,omitempty"`
	Rooms       []Room `json:"rooms,omitempty"`
}

// Room is a room type of a live, active sample property.
type Room struct {
	PropertyID string `json:"propertyId"`
	RoomTypeID string `json:"roomTypeId"`
}

// Expert is a verified expert of the catalogue.
type Expert struct {
	ID     string `json:"id"`
	Handle string `json:"handle"`
}

// Package is an active package of the catalogue.
type Package struct {
	ID              string `json:"id"`
	CountryCode     string `json:"countryCode"`
	MaxParticipants int    `json:"maxParticipants"`
}

// User is a traveller registered for the benchmark, with its token and
// API keys (scopes bookings:read and bookings:write).
type User struct {
	Email string   `json:"email"`
	Token string   `json:"token"`
	Keys  []string `json:"keys"`
}

// Conversation is one of a user's conversations with an expert.
type Conversation struct {
	ID    string `json:"id"`
	Token string `json:"token"`
}

var client = &http.Client{Timeout: 30 * time.Second}

// call sends a JSON request and decodes a JSON answer into out (when not
// nil). It returns the status and the raw body.
func call(method, u, token string, in, out any) (int, []byte, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, u, body)
	if err != nil {
		return 0, nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key, ok := strings.CutPrefix(token, "key:"); ok {
		req.Header.Set("X-API-KEY", key)
	} else if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, raw, fmt.Errorf("%s %s: %w", method, u, err)
		}
	}
	return resp.StatusCode, raw, nil
}

// want turns an answer other than 2xx into an error.
func want(status int, raw []byte, err error) error {
	if err != nil {
		return err
	}
	if status < 200 || status > 299 {
		return fmt.Errorf("status %d: %.300s", status, raw)
	}
	return nil
}

// setup registers the benchmark's users on a freshly started server with
// sample data, creates their API keys and conversations, and writes
// state.json. With -capture it also records the server's answer to every
// request the read workloads make (the ceiling replays them) and the
// catalogue the peer loads (peer-seed.json).
func setup(args []string) error {
	fs := flag.NewFlagSet("setup", flag.ExitOnError)
	base := fs.String("base", "http://127.0.0.1:18080", "guide API address")
	out := fs.String("out", "", "folder for state.json (and the captured bodies)")
	users := fs.Int("users", 50, "users to register")
	keysPer := fs.Int("keys-per-user", 4, "API keys per user")
	convsPer := fs.Int("convs-per-user", 2, "conversations per user, each with another expert")
	keyLimit := fs.Int("key-rate-limit", 1000, "rateLimit of each API key (requests per minute, the API's maximum is 1000)")
	propertyBase := fs.String("property", "", "property API address: also sign up a developer, create its live keys and list the room types (quotebook)")
	capture := fs.Bool("capture", false, "record the answers the ceiling replays and the peer's seed")
	tag := fs.String("tag", strconv.FormatInt(time.Now().Unix(), 36), "distinguishes this run's e-mail addresses")
	fs.Parse(args)
	if *out == "" {
		return errors.New("setup: -out is required")
	}
	if err := os.MkdirAll(*out, 0o750); err != nil {
		return err
	}
	st := &State{Base: *base, Locales: []string{"en", "zh", "zh-TW", "ja", "ko"},
		Countries: []string{"CN", "JP", "KR", "TW", "HK"}, Specialty: "food"}

	// The catalogue, in English: the ids the targets need, and what the
	// peer loads.
	var experts struct {
		Data []map[string]any `json:"data"`
	}
	if err := want(call("GET", *base+"/api/v1/experts?pageSize=100", "", nil, &experts)); err != nil {
		return fmt.Errorf("list experts: %w", err)
	}
	for _, x := range experts.Data {
		st.Experts = append(st.Experts, Expert{ID: str(x["id"]), Handle: str(x["handle"])})
	}
	var packages []map[string]any
	for page := 1; ; page++ {
		var p struct {
			Data []map[string]any `json:"data"`
			Meta struct {
				HasMore bool `json:"hasMore"`
			} `json:"meta"`
		}
		if err := want(call("GET", *base+"/api/v1/packages?pageSize=100&page="+strconv.Itoa(page), "", nil, &p)); err != nil {
			return fmt.Errorf("list packages: %w", err)
		}
		packages = append(packages, p.Data...)
		if !p.Meta.HasMore {
			break
		}
	}
	for _, p := range packages {
		st.Packages = append(st.Packages, Package{ID: str(p["id"]), CountryCode: str(p["countryCode"]), MaxParticipants: int(num(p["maxParticipants"]))})
	}
	if len(st.Experts) == 0 || len(st.Packages) == 0 {
		return errors.New("setup: the catalogue is empty; start the server with SAMPLE_DATA=on on a fresh database")
	}

	// Users, keys and conversations. Registration hashes a password
	// (argon2id), so this is the slow part of the setup.
	start := time.Now()
	handles := make([]string, len(st.Experts))
	for i, x := range st.Experts {
		handles[i] = x.Handle
	}
	next := 0 // the next expert to open a conversation with
	for i := range *users {
		email := fmt.Sprintf("bench-%s-%03d@example.com", *tag, i)
		var tok struct {
			Token string `json:"token"`
		}
		err := want(call("POST", *base+"/api/v1/auth/register", "", map[string]any{
			"email": email, "password": "bench-password-" + *tag, "name": fmt.Sprintf("Bench Traveller %d", i), "role": "TOURIST",
		}, &tok))
		if err != nil {
			return fmt.Errorf("register %s: %w", email, err)
		}
		u := User{Email: email, Token: tok.Token}
		for k := range *keysPer {
			var key struct {
				Data struct {
					Key string `json:"key"`
				} `json:"data"`
			}
			err := want(call("POST", *base+"/api/v1/auth/api-keys", u.Token, map[string]any{
				"name": fmt.Sprintf("bench %d", k), "scopes": []string{"bookings:read", "bookings:write"}, "rateLimit": *keyLimit,
			}, &key))
			if err != nil {
				return fmt.Errorf("create API key: %w", err)
			}
			u.Keys = append(u.Keys, key.Data.Key)
		}
		for opened, tries := 0, 0; opened < *convsPer && tries < len(handles); tries++ {
			h := handles[next%len(handles)]
			next++
			var conv struct {
				Data struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			status, raw, err := call("POST", *base+"/api/v1/conversations", u.Token, map[string]any{"expertHandle": h}, &conv)
			if err != nil {
				return err
			}
			if status == http.StatusUnprocessableEntity { // messaging disabled
				continue
			}
			if err := want(status, raw, nil); err != nil {
				return fmt.Errorf("open conversation with %s: %w", h, err)
			}
			st.Conversations = append(st.Conversations, Conversation{ID: conv.Data.ID, Token: u.Token})
			opened++
		}
		st.Users = append(st.Users, u)
	}
	fmt.Fprintf(os.Stderr, "setup: %d users, %d API keys, %d conversations in %s\n",
		len(st.Users), len(st.Users)**keysPer, len(st.Conversations), time.Since(start).Round(time.Millisecond))
	if *propertyBase != "" {
		if err := setupProperty(st, *propertyBase, *tag); err != nil {
			return err
		}
	}
	if err := writeJSON(filepath.Join(*out, "state.json"), st); err != nil {
		return err
	}
	if !*capture {
		return nil
	}
	if err := writeJSON(filepath.Join(*out, "peer-seed.json"), map[string]any{"experts": experts.Data, "packages": packages}); err != nil {
		return err
	}
	return captureBodies(st, filepath.Join(*out, "bodies"))
}

// setupProperty signs up a developer on the property API, creates its
// live key and lists the room types of every property it sees.
func setupProperty(st *State, base, tag string) error {
	var dev struct {
		Token string `json:"token"`
	}
	if err := want(call("POST", base+"/portal/api/signup", "", map[string]any{
		"email": "bench-dev-" + tag + "@example.com", "password": "bench-password-" + tag, "name": "Bench Developer",
	}, &dev)); err != nil {
		return fmt.Errorf("property signup: %w", err)
	}
	var key struct {
		Key string `json:"key"`
	}
	if err := want(call("POST", base+"/portal/api/keys", dev.Token, map[string]any{"name": "bench", "mode": "live"}, &key)); err != nil {
		return fmt.Errorf("property key: %w", err)
	}
	st.PropertyKey = key.Key
	cred := "key:" + key.Key
	for page := 1; ; page++ {
		var list struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			Meta struct {
				HasMore bool `json:"hasMore"`
			} `json:"meta"`
		}
		if err := want(call("GET", base+"/api/v1/properties?pageSize=100&page="+strconv.Itoa(page), cred, nil, &list)); err != nil {
			return fmt.Errorf("list properties: %w", err)
		}
		for _, p := range list.Data {
			var detail struct {
				RoomTypes []struct {
					ID string `json:"id"`
				} `json:"roomTypes"`
			}
			if err := want(call("GET", base+"/api/v1/properties/"+p.ID, cred, nil, &detail)); err != nil {
				return fmt.Errorf("property %s: %w", p.ID, err)
			}
			for _, rt := range detail.RoomTypes {
				st.Rooms = append(st.Rooms, Room{PropertyID: p.ID, RoomTypeID: rt.ID})
			}
		}
		if !list.Meta.HasMore {
			break
		}
	}
	if len(st.Rooms) == 0 {
		return errors.New("setup: no room types on the property API; start the server with SAMPLE_DATA=on")
	}
	fmt.Fprintf(os.Stderr, "setup: property API: %d room types\n", len(st.Rooms))
	return nil
}

type manifestEntry struct {
	Method  string `json:"method"`
	Pattern string `json:"pattern"`
	URI     string `json:"uri"`
	Status  int    `json:"status"`
	File    string `json:"file"`
}

// captureBodies records the server's answer to every read request of the
// workloads, and one answer of each write, for the ceiling to replay.
func captureBodies(st *State, dir string) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	var manifest []manifestEntry
	add := func(method, pattern, uri string, status int, body []byte) error {
		name := fmt.Sprintf("%04d.json", len(manifest))
		manifest = append(manifest, manifestEntry{method, pattern, uri, status, name})
		return os.WriteFile(filepath.Join(dir, name), body, 0o600)
	}
	for _, w := range []string{"list", "detail", "packages"} {
		pattern := routePattern[w]
		for _, uri := range readURIs(st, w) {
			status, raw, err := call("GET", st.Base+uri, "", nil, nil)
			if err := want(status, raw, err); err != nil {
				return fmt.Errorf("GET %s: %w", uri, err)
			}
			if err := add("GET", pattern, uri, status, raw); err != nil {
				return err
			}
		}
	}
	// One answer of each write: every answer of a kind has the same size
	// but for the free text echoed back.
	u := st.Users[0]
	for _, cred := range []string{u.Token, u.Keys[0]} {
		t := bookingTarget(st, "", 0, 1<<20, cred)
		var in any
		if err := json.Unmarshal(t.Body, &in); err != nil {
			return err
		}
		status, raw, err := call("POST", st.Base+"/api/v1/bookings", cred, in, nil)
		if err := want(status, raw, err); err != nil {
			return fmt.Errorf("create booking: %w", err)
		}
		if cred == u.Token { // both answers are alike; record one
			if err := add("POST", "/api/v1/bookings", "/api/v1/bookings", status, raw); err != nil {
				return err
			}
		}
	}
	c := st.Conversations[0]
	t := messageTarget(st, "", 0, 1<<20)
	var in any
	if err := json.Unmarshal(t.Body, &in); err != nil {
		return err
	}
	uri := "/api/v1/conversations/" + c.ID + "/messages"
	status, raw, err := call("POST", st.Base+uri, c.Token, in, nil)
	if err := want(status, raw, err); err != nil {
		return fmt.Errorf("send message: %w", err)
	}
	if err := add("POST", "/api/v1/conversations/{id}/messages", uri, status, raw); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "setup: recorded %d answers for the ceiling\n", len(manifest))
	return writeJSON(filepath.Join(dir, "manifest.json"), manifest)
}

// routePattern is the ServeMux pattern of each read workload's route.
var routePattern = map[string]string{
	"list":     "/api/v1/experts",
	"detail":   "/api/v1/experts/{handle}",
	"packages": "/api/v1/packages",
}

// readURIs returns the request URIs a read workload cycles through.
func readURIs(st *State, workload string) []string {
	var out []string
	switch workload {
	case "list": // 20 verified experts with the specialty, in each locale
		for _, l := range st.Locales {
			out = append(out, "/api/v1/experts?specialty="+url.QueryEscape(st.Specialty)+"&locale="+l)
		}
	case "detail": // every verified expert in each locale
		for _, x := range st.Experts {
			for _, l := range st.Locales {
				out = append(out, "/api/v1/experts/"+x.Handle+"?locale="+l)
			}
		}
	case "packages": // the first 20 active packages of each market, in each locale
		for _, c := range st.Countries {
			for _, l := range st.Locales {
				out = append(out, "/api/v1/packages?country="+c+"&locale="+l)
			}
		}
	}
	return out
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

// printProc prints a figure of a running process read from /proc: its
// peak RSS, or the CPU time it (and others) spent between two snapshots.
func printProc(args []string, what string) error {
	fs := flag.NewFlagSet(what, flag.ExitOnError)
	pid := fs.Int("pid", 0, "process id")
	core := fs.Int("core", 0, "with cpu: the core whose busy and total ticks are read")
	extra := fs.String("extra", "", "with cpu: comma-separated processes whose CPU time counts with pid's (PostgreSQL backends)")
	save := fs.String("save", "", "with cpu: write a snapshot of the processes' and the core's ticks to this file")
	since := fs.String("since", "", "with cpu: print the ticks spent since this snapshot: processes (those alive at both), core busy, core total")
	fs.Parse(args)
	if what == "rss" {
		kb, err := peakRSS(*pid)
		if err != nil {
			return err
		}
		fmt.Println(kb)
		return nil
	}
	snap := snapshot{Procs: map[int]int64{}}
	for _, p := range append([]string{strconv.Itoa(*pid)}, strings.Split(*extra, ",")...) {
		if n, err := strconv.Atoi(strings.TrimSpace(p)); err == nil {
			if t, err := cpuTicks(n); err == nil {
				snap.Procs[n] = t
			} else if n == *pid {
				return err
			}
		}
	}
	var err error
	if snap.Busy, snap.Total, err = coreTicks(*core); err != nil {
		return err
	}
	if *save != "" {
		return writeJSON(*save, snap)
	}
	if *since == "" {
		return errors.New("cpu: -save or -since is required")
	}
	var before snapshot
	if err := readJSON(*since, &before); err != nil {
		return err
	}
	var procs int64
	for p, t := range snap.Procs {
		if t0, ok := before.Procs[p]; ok {
			procs += t - t0
		}
	}
	fmt.Println(procs, snap.Busy-before.Busy, snap.Total-before.Total)
	return nil
}

type snapshot struct {
	Procs       map[int]int64 `json:"procs"`
	Busy, Total int64
}

// peakRSS returns VmHWM (the peak resident set size) of pid, in KiB.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// coreTicks returns the busy and total clock ticks of one core from
// /proc/stat (busy: everything but idle and iowait), whoever ran there.
func coreTicks(cpu int) (busy, total int64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	name := "cpu" + strconv.Itoa(cpu)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] != name {
			continue
		}
		for i, v := range f[1:] {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, 0, err
			}
			total += n
			if i != 3 && i != 4 { // idle, iowait
				busy += n
			}
		}
		return busy, total, nil
	}
	return 0, 0, fmt.Errorf("no %s in /proc/stat", name)
}

// cpuTicks returns utime+stime of pid, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	// The command name (field 2) is in parentheses and may hold spaces.
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return utime + stime, nil
}
