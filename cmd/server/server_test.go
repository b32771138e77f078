package main_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	_ "modernc.org/sqlite"
)

// process is the real server binary running on loopback ports.
type process struct {
	t    *testing.T
	bin  string
	dir  string
	base string
	// metrics is the address of the /metrics listener (METRICS_ADDR).
	metrics string
	env     []string
	cmd     *exec.Cmd
	out     syncBuffer
}

// syncBuffer is the process's output, written by exec's copying goroutine
// and read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// The server binary, built once for the package's tests (they run it
// side by side, each on its own ports and files).
var serverBinary struct {
	once sync.Once
	path string
	err  error
}

func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	serverBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "server-test-")
		if err != nil {
			serverBinary.err = err
			return
		}
		serverBinary.path = filepath.Join(dir, "server")
		if out, err := exec.Command("go", "build", "-o", serverBinary.path, ".").CombinedOutput(); err != nil {
			serverBinary.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if serverBinary.err != nil {
		t.Fatal(serverBinary.err)
	}
	return serverBinary.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if serverBinary.path != "" {
		os.RemoveAll(filepath.Dir(serverBinary.path))
	}
	os.Exit(code)
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func newProcess(t *testing.T, bin string) *process {
	dir := t.TempDir()
	guide, property, metrics := freePort(t), freePort(t), freePort(t)
	return &process{t: t, bin: bin, dir: dir, base: "http://" + guide, metrics: metrics, env: append(os.Environ(),
		"GUIDE_ADDR="+guide, "PROPERTY_ADDR="+property, "METRICS_ADDR="+metrics,
		"GUIDE_DATABASE_URL="+filepath.Join(dir, "guide.db"), "PROPERTY_DATABASE_URL="+filepath.Join(dir, "property.db"),
		"AVATAR_DIR="+filepath.Join(dir, "avatars"), "DEMO_PASSWORD=demo-password-1",
		"JWT_SECRET=crash-test-secret-crash-test-secret!", "GUIDE_PUBLIC_RATE_LIMIT=100000", "GUIDE_AUTH_RATE_LIMIT=100000",
		"LOG_LEVEL=warn", "REDIS_URL=", "SHUTDOWN_DRAIN=0s")}
}

func (p *process) start() { p.t.Helper(); p.startUntil("/readyz") }

// startUntil starts the binary and waits until path answers 200.
func (p *process) startUntil(path string) {
	p.t.Helper()
	p.launch()
	p.waitFor(path)
}

// launch starts the binary without waiting for it.
func (p *process) launch() {
	p.t.Helper()
	p.out.Reset()
	p.cmd = exec.Command(p.bin)
	p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = p.env, &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	// A test that does not stop the server itself must not leave it
	// running after the test (TestAvatarUploadMemory did).
	cmd := p.cmd
	p.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
}

// waitFor waits until path answers 200.
func (p *process) waitFor(path string) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(p.base + path); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("server not ready:\n%s", p.out.String())
}

func (p *process) call(method, path, token string, body any) (int, map[string]any) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, p.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// TestCrashSafety kills the server with SIGKILL in the middle of a write
// load, several times; every write that was answered 2xx is there after
// the restart, and the SQLite database passes its integrity check.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	p := newProcess(t, build(t))
	p.start()
	status, login := p.call("POST", "/api/v1/auth/login", "", map[string]string{"email": "traveller@example.com", "password": "demo-password-1"})
	if status != 200 {
		t.Fatalf("login: %d %v", status, login)
	}
	token := login["token"].(string)
	_, conv := p.call("POST", "/api/v1/conversations", token, map[string]string{"expertHandle": "demo-expert"})
	convID := conv["data"].(map[string]any)["id"].(string)
	_, expert := p.call("GET", "/api/v1/experts/demo-expert", "", nil)
	expertID := expert["data"].(map[string]any)["id"].(string)

	var mu sync.Mutex
	var bookings, messages []string
	for round := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := 0; ctx.Err() == nil; i++ {
					if w%2 == 0 {
						status, b := p.call("POST", "/api/v1/bookings", token, map[string]any{"expertId": expertID,
							"scheduledDate": time.Now().Add(time.Duration(48+i) * time.Hour).UTC().Format(time.RFC3339)})
						if status == 201 {
							mu.Lock()
							bookings = append(bookings, b["data"].(map[string]any)["id"].(string))
							mu.Unlock()
						}
					} else {
						status, m := p.call("POST", "/api/v1/conversations/"+convID+"/messages", token,
							map[string]any{"content": fmt.Sprintf("round %d writer %d message %d", round, w, i)})
						if status == 201 {
							mu.Lock()
							messages = append(messages, m["data"].(map[string]any)["id"].(string))
							mu.Unlock()
						}
					}
				}
			})
		}
		time.Sleep(time.Duration(300+200*round) * time.Millisecond)
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
		cancel()
		wg.Wait()
		p.start()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bookings) == 0 || len(messages) == 0 {
		t.Fatalf("no write succeeded: %d bookings, %d messages", len(bookings), len(messages))
	}
	for _, id := range bookings {
		if status, _ := p.call("GET", "/api/v1/bookings/"+id, token, nil); status != 200 {
			t.Errorf("acknowledged booking %s lost: %d", id, status)
		}
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()

	db, err := sql.Open("sqlite", "file:"+filepath.Join(p.dir, "guide.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
	for _, id := range messages {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM messages WHERE id = ?`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("acknowledged message %s lost", id)
		}
	}
	// The unread counts kept on each conversation commit with its
	// messages, so the kills left none apart from its messages.
	var drift int
	err = db.QueryRow(`SELECT COUNT(*) FROM conversations c JOIN experts e ON e.id = c.expert_id
		WHERE c.tourist_unread <> (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id AND m.is_read = FALSE AND m.sender_id <> c.tourist_id)
		OR c.expert_unread <> (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id AND m.is_read = FALSE AND m.sender_id <> e.user_id)`).Scan(&drift)
	if err != nil || drift != 0 {
		t.Errorf("%d conversations' unread counts drifted from their messages after the kills (%v)", drift, err)
	}
	t.Logf("%d bookings and %d messages acknowledged across 3 kills; all present", len(bookings), len(messages))
}

// TestGracefulShutdown: a request in flight when SIGTERM arrives is
// finished and answered, a realtime client is told to reconnect once the
// drain is over, and the process exits 0.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	p := newProcess(t, build(t))
	p.env = append(p.env, "SHUTDOWN_DRAIN=4s")
	p.start()
	_, login := p.call("POST", "/api/v1/auth/login", "", map[string]string{"email": "traveller@example.com", "password": "demo-password-1"})
	token := login["token"].(string)

	// The metrics a deployment scrapes are all there, on their own
	// listener; the public port has none.
	if res, err := http.Get(p.base + "/metrics"); err != nil || res.StatusCode != 404 {
		t.Fatalf("public port serves /metrics: %v %v", res, err)
	}
	res, err := http.Get("http://" + p.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, name := range []string{"http_requests_total", "http_request_duration_seconds", "go_sql_open_connections", "rate_limiter_decisions_total", "jobs_pending", "process_resident_memory_bytes"} {
		if !bytes.Contains(metrics, []byte(name)) {
			t.Errorf("/metrics lacks %s", name)
		}
	}

	// A realtime client, connected over websocket.
	_, rt := p.call("GET", "/api/realtime/token", token, nil)
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(p.base, "http")+"/api/realtime/connection/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.WriteJSON(map[string]any{"id": 1, "connect": map[string]any{"token": rt["token"]}}); err != nil {
		t.Fatal(err)
	}
	if _, reply, err := ws.ReadMessage(); err != nil || !bytes.Contains(reply, []byte(`"connect"`)) {
		t.Fatalf("realtime connect: %s %v", reply, err)
	}
	wsClosed := make(chan error, 1)
	go func() {
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				wsClosed <- err
				return
			}
		}
	}()

	pr, pw := io.Pipe()
	req, _ := http.NewRequest("PUT", p.base+"/api/v1/profile", pr)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	done := make(chan *http.Response, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("in-flight request failed: %v", err)
		}
		done <- res
	}()
	pw.Write([]byte(`{"nickname":`))
	time.Sleep(200 * time.Millisecond) // the request is now being read
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Draining: readiness fails at once, so a load balancer stops sending,
	// while new connections are still served.
	deadline := time.Now().Add(3 * time.Second)
	for {
		res, err := http.Get(p.base + "/readyz")
		if err != nil {
			t.Fatalf("readyz while draining: %v", err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == 503 && bytes.Contains(body, []byte(`"status":"draining"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz after SIGTERM: %d %s", res.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if status, _ := p.call("GET", "/api/v1/experts", "", nil); status != 200 {
		t.Errorf("a new request while draining: %d", status)
	}
	// After the drain, before the in-flight request is done: reconnect
	// elsewhere (centrifuge's shutdown advice).
	select {
	case err := <-wsClosed:
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != 3001 {
			t.Errorf("realtime connection closed with %v, want 3001 shutdown", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("realtime connection still open 10 s after SIGTERM")
	}
	pw.Write([]byte(`"Still here"}`))
	pw.Close()
	res = <-done
	if res == nil || res.StatusCode != 200 {
		t.Fatalf("in-flight request: %v", res)
	}
	res.Body.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, p.out.String())
	}
	// New connections are refused once it stopped.
	if _, err := http.Get(p.base + "/healthz"); err == nil {
		t.Error("the server still accepts connections after shutdown")
	}
}

// TestStartupErrors: a setting that cannot work stops the binary before
// either server listens, and the error names the variable; a database
// URL of an unsupported scheme creates no file.
func TestStartupErrors(t *testing.T) {
	t.Parallel()
	bin := build(t)
	// A port another program holds.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct{ name, value string }{
		{"GUIDE_ADDR", "notaport"},
		{"PROPERTY_ADDR", "notaport"},
		{"GUIDE_ADDR", busy.Addr().String()},
		{"METRICS_ADDR", busy.Addr().String()},
		{"PROPERTY_DATABASE_URL", "mysql://x"},
		{"GUIDE_DATABASE_URL", "mysql://x"},
		{"GUIDE_PUBLIC_URL", "api.example.com"},
		// Reachable settings, unreachable databases.
		{"GUIDE_DATABASE_URL", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=5"},
		{"PROPERTY_DATABASE_URL", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=5"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			p := newProcess(t, bin)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, p.bin)
			cmd.Dir = p.dir
			cmd.Env = append(p.env, "LOG_LEVEL=info", tc.name+"="+tc.value)
			out, err := cmd.CombinedOutput()
			if err == nil || ctx.Err() != nil {
				t.Fatalf("exit %v (timeout: %v)\n%s", err, ctx.Err(), out)
			}
			if !bytes.Contains(out, []byte(tc.name)) {
				t.Errorf("the error does not name %s:\n%s", tc.name, out)
			}
			if bytes.Contains(out, []byte(`"msg":"listening"`)) {
				t.Errorf("a server listened before the error:\n%s", out)
			}
			entries, _ := os.ReadDir(p.dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "mysql") {
					t.Errorf("created %s", e.Name())
				}
			}
		})
	}
}

// TestLogsAreJSON: with Redis unreachable, the Redis client's own
// messages come through slog like every other line; and the links in
// responses are on GUIDE_PUBLIC_URL whatever Host the request names.
func TestLogsAreJSON(t *testing.T) {
	t.Parallel()
	p := newProcess(t, build(t))
	p.env = append(p.env, "REDIS_URL=redis://127.0.0.1:1/0", "GUIDE_PUBLIC_URL=https://guide.example.test/")
	p.startUntil("/healthz") // not ready without Redis, but serving
	req, _ := http.NewRequest("GET", p.base+"/api/v1/experts/nobody", nil)
	req.Host = "attacker.example"
	req.Header.Set("X-Forwarded-Host", "attacker.example")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Error struct {
			DocURL string `json:"doc_url"`
		} `json:"error"`
	}
	json.NewDecoder(res.Body).Decode(&body)
	res.Body.Close()
	if res.StatusCode != 404 || body.Error.DocURL != "https://guide.example.test/docs/errors/NOT_FOUND" {
		t.Errorf("%d doc_url %q", res.StatusCode, body.Error.DocURL)
	}
	// The client reports a failed dial once its retries are spent.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !strings.Contains(p.out.String(), `"redis client"`); {
		p.call("GET", "/api/v1/cities", "", nil)
		time.Sleep(100 * time.Millisecond)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
	redisLines := 0
	for line := range strings.Lines(p.out.String()) {
		var entry struct{ Msg string }
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Errorf("not a JSON log line: %q", line)
		}
		if entry.Msg == "redis client" {
			redisLines++
		}
	}
	if redisLines == 0 {
		t.Errorf("no line of the Redis client:\n%s", p.out.String())
	}
}
