package media

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

const (
	testAccessKey = "wayfarer-test"
	testSecretKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	testRegion    = "ap-southeast-1"
	testBucket    = "wayfarer-media"
	// testDomain is the base domain of virtual-hosted addressing: the
	// bucket's host is wayfarer-media.s3.test.
	testDomain = "s3.test"
)

// s3Server is a real S3-compatible server, versitygw, serving a fresh
// folder (its posix backend: one folder per bucket, one file per object).
type s3Server struct {
	addr string // 127.0.0.1:port
	root string
}

// startS3 starts the versitygw binary named by TEST_VERSITYGW with one
// empty bucket, testBucket, and stops it when the test ends. The test is
// skipped when TEST_VERSITYGW is unset; .ci/run builds versitygw and sets
// it, so CI never skips these tests.
func startS3(t *testing.T) *s3Server {
	t.Helper()
	bin := os.Getenv("TEST_VERSITYGW")
	if bin == "" {
		t.Skip("no S3-compatible server: set TEST_VERSITYGW to a versitygw binary (README)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	srv := &s3Server{addr: addr, root: t.TempDir()}
	logPath := filepath.Join(t.TempDir(), "versitygw.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(bin, "--port", addr, "--region", testRegion, "--virtual-domain", testDomain, "--quiet", "posix", srv.root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+testAccessKey, "ROOT_SECRET_KEY="+testSecretKey)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(15 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(logPath)
			t.Fatalf("versitygw did not listen on %s: %v\n%s", addr, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The bucket is made through the S3 API, as an operator would.
	admin, err := minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(testAccessKey, testSecretKey, ""),
		Region: testRegion, BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.MakeBucket(t.Context(), testBucket, minio.MakeBucketOptions{Region: testRegion}); err != nil {
		t.Fatalf("make bucket: %v", err)
	}
	return srv
}

// config is the configuration of the store of testBucket, path style.
func (srv *s3Server) config() S3Config {
	return S3Config{Endpoint: "http://" + srv.addr, Region: testRegion, Bucket: testBucket,
		AccessKey: testAccessKey, SecretKey: testSecretKey, PathStyle: true}
}

func newS3(t *testing.T, c S3Config) *S3 {
	t.Helper()
	s, err := NewS3(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// storedFile reads what the server wrote for key in testBucket.
func (srv *s3Server) storedFile(key string) ([]byte, error) {
	return os.ReadFile(filepath.Join(srv.root, testBucket, filepath.FromSlash(key)))
}

func TestS3PathStyle(t *testing.T) {
	srv := startS3(t)
	testStore(t, newS3(t, srv.config()))
	if data, err := srv.storedFile("avatars/u1/def.png"); err != nil || string(data) != "png bytes" {
		t.Errorf("stored object: %q, %v", data, err)
	}
	if _, err := srv.storedFile("avatars/u1/abc.jpg"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deleted object still stored: %v", err)
	}
}

// hostRecorder sends every request to one address, as DNS would send
// wayfarer-media.s3.test to the server, and records the Host asked for.
type hostRecorder struct {
	http.RoundTripper
	mu    sync.Mutex
	hosts []string
	paths []string
}

func (h *hostRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.hosts = append(h.hosts, r.URL.Host)
	h.paths = append(h.paths, r.URL.Path)
	h.mu.Unlock()
	return h.RoundTripper.RoundTrip(r)
}

func TestS3VirtualHosted(t *testing.T) {
	srv := startS3(t)
	var d net.Dialer
	rec := &hostRecorder{RoundTripper: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, srv.addr)
		},
	}}
	_, port, _ := net.SplitHostPort(srv.addr)
	c := srv.config()
	c.Endpoint, c.PathStyle, c.Transport = "http://"+testDomain+":"+port, false, rec
	s := newS3(t, c)
	ctx := t.Context()
	if err := s.Put(ctx, "a/b.jpg", []byte("hello"), "image/jpeg"); err != nil {
		t.Fatal(err)
	}
	if data, ct := readAll(t, s, "a/b.jpg"); string(data) != "hello" || ct != "image/jpeg" {
		t.Errorf("Get = %q %q", data, ct)
	}
	if data, err := srv.storedFile("a/b.jpg"); err != nil || string(data) != "hello" {
		t.Errorf("stored object: %q, %v", data, err)
	}
	want := testBucket + "." + testDomain + ":" + port
	for i, h := range rec.hosts {
		if h != want || rec.paths[i] != "/a/b.jpg" {
			t.Errorf("request %d to %s%s, want %s/a/b.jpg", i, h, rec.paths[i], want)
		}
	}
}

func TestS3Errors(t *testing.T) {
	srv := startS3(t)
	ctx := t.Context()
	good := srv.config()

	wrongSecret := good
	wrongSecret.SecretKey = "not-the-secret"
	s := newS3(t, wrongSecret)
	var se minio.ErrorResponse
	if err := s.Put(ctx, "a.jpg", []byte("x"), "image/jpeg"); !errors.As(err, &se) || se.StatusCode != 403 || se.Code != "SignatureDoesNotMatch" {
		t.Errorf("wrong secret Put: %v", err)
	}
	if _, _, err := s.Get(ctx, "a.jpg"); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("wrong secret Get: %v, want an error other than ErrNotFound", err)
	}
	if _, err := srv.storedFile("a.jpg"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused Put stored the object: %v", err)
	}

	noBucket := good
	noBucket.Bucket = "other"
	s = newS3(t, noBucket)
	if _, _, err := s.Get(ctx, "a.jpg"); !errors.As(err, &se) || se.Code != "NoSuchBucket" {
		t.Errorf("missing bucket Get: %v, want NoSuchBucket, not ErrNotFound", err)
	}
	if err := s.Delete(ctx, "a.jpg"); err == nil {
		t.Error("missing bucket Delete succeeded")
	}

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := newS3(t, good).Put(canceled, "a.jpg", []byte("x"), ""); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled Put: %v", err)
	}
}

func TestNewS3Config(t *testing.T) {
	good := S3Config{Endpoint: "https://s3.example.com", Region: "r", Bucket: "b", AccessKey: "a", SecretKey: "s"}
	if _, err := NewS3(good); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []S3Config{
		{Endpoint: "ftp://x", Region: "r", Bucket: "b", AccessKey: "a", SecretKey: "s"},
		{Endpoint: "localhost:9000", Region: "r", Bucket: "b", AccessKey: "a", SecretKey: "s"},
		{Endpoint: "http://localhost:9000/prefix", Region: "r", Bucket: "b", AccessKey: "a", SecretKey: "s"},
		{Endpoint: "http://localhost:9000", Region: "r", AccessKey: "a", SecretKey: "s"},
		{Endpoint: "http://localhost:9000", Bucket: "b", AccessKey: "a", SecretKey: "s"},
		{Endpoint: "http://localhost:9000", Region: "r", Bucket: "b", AccessKey: "a"},
	} {
		if _, err := NewS3(bad); err == nil {
			t.Errorf("NewS3(%+v) succeeded", bad)
		}
	}
}

// TestS3Timeout holds the bound on each operation, the reading of a Get's
// body included, against a server that stops answering.
func TestS3Timeout(t *testing.T) {
	release := make(chan struct{})
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "image/jpeg")
			w.Header().Set("Content-Length", "100")
			w.Header().Set("ETag", `"0123"`)
			w.Header().Set("Last-Modified", time.Now().UTC().Format(http.TimeFormat))
			w.Write([]byte("the first bytes"))
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		case <-time.After(5 * time.Second): // so that a broken bound fails the test instead of hanging it
		}
	}))
	defer stalled.Close()
	defer close(release)
	s := newS3(t, S3Config{Endpoint: stalled.URL, Region: testRegion, Bucket: testBucket,
		AccessKey: testAccessKey, SecretKey: testSecretKey, PathStyle: true, Timeout: 200 * time.Millisecond})
	ctx := t.Context()

	start := time.Now()
	if err := s.Put(ctx, "a.jpg", []byte("x"), "image/jpeg"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Put: %v, want the deadline", err)
	}
	body, ct, err := s.Get(ctx, "a.jpg")
	if err != nil || ct != "image/jpeg" {
		t.Fatalf("Get: %q, %v", ct, err)
	}
	defer body.Close()
	if _, err := io.ReadAll(body); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("reading a stalled body: %v, want the deadline", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v with a 200 ms timeout per operation", d)
	}
}
