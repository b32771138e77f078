package blob

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testAccessKey = "AKIDEXAMPLE"
	testSecretKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	testRegion    = "ap-southeast-1"
	testBucket    = "wayfarer-media"
)

// fakeS3 is an in-memory S3 that checks the SigV4 signature of every
// request, computed here independently of signV4.
type fakeS3 struct {
	t      *testing.T
	bucket string
	mu     sync.Mutex
	objs   map[string]fakeObject
	// verified counts requests whose signature was checked and matched.
	verified int
	// hosts records the Host of each request.
	hosts []string
}

type fakeObject struct {
	data []byte
	ct   string
}

func newFakeS3(t *testing.T, bucket string) *fakeS3 {
	return &fakeS3{t: t, bucket: bucket, objs: map[string]fakeObject{}}
}

func s3Fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, msg)
}

// expectedSignature recomputes the signature of r from the known secret,
// following the AWS documentation step by step.
func expectedSignature(r *http.Request, body []byte, signedHeaders, amzDate, scope string) string {
	var canon strings.Builder
	canon.WriteString(r.Method + "\n")
	canon.WriteString(r.URL.EscapedPath() + "\n")
	canon.WriteString(r.URL.RawQuery + "\n") // the client never sends a query
	for _, h := range strings.Split(signedHeaders, ";") {
		v := r.Header.Get(h)
		if h == "host" {
			v = r.Host
		}
		canon.WriteString(h + ":" + strings.TrimSpace(v) + "\n")
	}
	canon.WriteString("\n" + signedHeaders + "\n")
	sum := sha256.Sum256(body)
	canon.WriteString(hex.EncodeToString(sum[:]))

	creq := sha256.Sum256([]byte(canon.String()))
	sts := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(creq[:])
	mac := func(key []byte, s string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(s))
		return h.Sum(nil)
	}
	parts := strings.Split(scope, "/")
	k := mac([]byte("AWS4"+testSecretKey), parts[0])
	for _, p := range parts[1:] {
		k = mac(k, p)
	}
	return hex.EncodeToString(mac(k, sts))
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s3Fail(w, 400, "IncompleteBody", err.Error())
		return
	}
	auth := r.Header.Get("Authorization")
	var cred, signed, sig string
	if _, err := fmt.Sscanf(strings.ReplaceAll(auth, ",", ""), "AWS4-HMAC-SHA256 Credential=%s SignedHeaders=%s Signature=%s", &cred, &signed, &sig); err != nil {
		s3Fail(w, 403, "AccessDenied", "malformed Authorization: "+auth)
		return
	}
	accessKey, scope, _ := strings.Cut(cred, "/")
	amzDate := r.Header.Get("X-Amz-Date")
	ts, err := time.Parse("20060102T150405Z", amzDate)
	switch {
	case accessKey != testAccessKey:
		s3Fail(w, 403, "InvalidAccessKeyId", accessKey)
		return
	case err != nil || time.Since(ts).Abs() > 15*time.Minute:
		s3Fail(w, 403, "RequestTimeTooSkewed", amzDate)
		return
	case scope != ts.Format("20060102")+"/"+testRegion+"/s3/aws4_request":
		s3Fail(w, 403, "AuthorizationHeaderMalformed", scope)
		return
	case !slices.Contains(strings.Split(signed, ";"), "host") || !slices.Contains(strings.Split(signed, ";"), "x-amz-content-sha256"):
		s3Fail(w, 403, "AccessDenied", "host and x-amz-content-sha256 must be signed: "+signed)
		return
	}
	sum := sha256.Sum256(body)
	if r.Header.Get("X-Amz-Content-Sha256") != hex.EncodeToString(sum[:]) {
		s3Fail(w, 400, "XAmzContentSHA256Mismatch", "payload hash")
		return
	}
	if want := expectedSignature(r, body, signed, amzDate, scope); !hmac.Equal([]byte(sig), []byte(want)) {
		s3Fail(w, 403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		return
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	f.verified++
	f.hosts = append(f.hosts, r.Host)

	// Path style: /bucket/key; virtual-hosted: Host bucket.…, path /key.
	p := strings.TrimPrefix(r.URL.Path, "/")
	bucket := strings.SplitN(r.Host, ".", 2)[0]
	if bucket != f.bucket {
		bucket, p, _ = strings.Cut(p, "/")
	}
	if bucket != f.bucket {
		s3Fail(w, 404, "NoSuchBucket", "The specified bucket does not exist")
		return
	}
	switch r.Method {
	case http.MethodPut:
		f.objs[p] = fakeObject{data: body, ct: r.Header.Get("Content-Type")}
		w.Header().Set("ETag", `"x"`)
	case http.MethodGet:
		o, ok := f.objs[p]
		if !ok {
			s3Fail(w, 404, "NoSuchKey", "The specified key does not exist.")
			return
		}
		w.Header().Set("Content-Type", o.ct)
		w.Write(o.data)
	case http.MethodDelete:
		delete(f.objs, p)
		w.WriteHeader(http.StatusNoContent)
	default:
		s3Fail(w, 405, "MethodNotAllowed", r.Method)
	}
}

func TestS3PathStyle(t *testing.T) {
	fake := newFakeS3(t, testBucket)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	s := S3{Endpoint: srv.URL, Region: testRegion, Bucket: testBucket, AccessKey: testAccessKey, SecretKey: testSecretKey, PathStyle: true, Client: srv.Client()}
	testStore(t, s)
	if fake.verified < 10 {
		t.Errorf("only %d requests reached the fake with a valid signature", fake.verified)
	}
	if _, ok := fake.objs["avatars/u1/def.png"]; !ok {
		t.Errorf("objects %v", fake.objs)
	}
}

func TestS3VirtualHosted(t *testing.T) {
	fake := newFakeS3(t, testBucket)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	// Resolve every host to the test server, as DNS would bucket.s3.test.
	var d net.Dialer
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, srv.Listener.Addr().String())
		},
	}}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	s := S3{Endpoint: "http://s3.test:" + port, Region: testRegion, Bucket: testBucket, AccessKey: testAccessKey, SecretKey: testSecretKey, Client: client}
	ctx := context.Background()
	if err := s.Put(ctx, "a/b.jpg", []byte("hello"), "image/jpeg"); err != nil {
		t.Fatal(err)
	}
	if data, ct := readAll(t, s, "a/b.jpg"); string(data) != "hello" || ct != "image/jpeg" {
		t.Errorf("Get = %q %q", data, ct)
	}
	if want := testBucket + ".s3.test:" + port; fake.hosts[0] != want {
		t.Errorf("Host %q, want %q", fake.hosts[0], want)
	}
}

func TestS3Errors(t *testing.T) {
	fake := newFakeS3(t, testBucket)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ctx := context.Background()
	good := S3{Endpoint: srv.URL, Region: testRegion, Bucket: testBucket, AccessKey: testAccessKey, SecretKey: testSecretKey, PathStyle: true}

	wrongSecret := good
	wrongSecret.SecretKey = "not-the-secret"
	err := wrongSecret.Put(ctx, "a.jpg", []byte("x"), "image/jpeg")
	var se *S3Error
	if !errors.As(err, &se) || se.StatusCode != 403 || se.Code != "SignatureDoesNotMatch" {
		t.Errorf("wrong secret: %v", err)
	}
	if _, _, err := wrongSecret.Get(ctx, "a.jpg"); errors.Is(err, ErrNotFound) || err == nil {
		t.Errorf("wrong secret Get: %v", err)
	}

	noBucket := good
	noBucket.Bucket = "other"
	if _, _, err := noBucket.Get(ctx, "a.jpg"); !errors.As(err, &se) || se.Code != "NoSuchBucket" {
		t.Errorf("missing bucket Get: %v, want NoSuchBucket, not ErrNotFound", err)
	}
	if err := noBucket.Delete(ctx, "a.jpg"); err == nil {
		t.Error("missing bucket Delete succeeded")
	}

	for _, bad := range []S3{
		{Endpoint: "ftp://x", Region: "r", Bucket: "b", AccessKey: "a", SecretKey: "s"},
		{Endpoint: "localhost:9000", Region: "r", Bucket: "b", AccessKey: "a", SecretKey: "s"},
		{Endpoint: srv.URL, Region: "r", AccessKey: "a", SecretKey: "s"},
	} {
		if err := bad.Put(ctx, "a.jpg", nil, ""); err == nil {
			t.Errorf("%+v: Put succeeded", bad)
		}
	}

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := good.Put(canceled, "a.jpg", []byte("x"), ""); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled Put: %v", err)
	}
}

// TestSignV4Vectors checks signV4 against the examples of the S3 SigV4
// documentation ("Signature calculations for the Authorization header:
// transferring payload in a single chunk").
func TestSignV4Vectors(t *testing.T) {
	const (
		ak = "AKIAIOSFODNN7EXAMPLE"
		sk = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	)
	when := time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, method, url string
		headers           [][2]string
		payloadHash       string
		signedHeaders     string
		signature         string
	}{
		{
			name: "GET object", method: "GET", url: "https://examplebucket.s3.amazonaws.com/test.txt",
			headers:       [][2]string{{"Range", "bytes=0-9"}},
			payloadHash:   emptySHA256,
			signedHeaders: "host;range;x-amz-content-sha256;x-amz-date",
			signature:     "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
		},
		{
			name: "PUT object", method: "PUT", url: "https://examplebucket.s3.amazonaws.com/test$file.text",
			headers:       [][2]string{{"Date", "Fri, 24 May 2013 00:00:00 GMT"}, {"X-Amz-Storage-Class", "REDUCED_REDUNDANCY"}},
			payloadHash:   sha256Hex("Welcome to Amazon S3."),
			signedHeaders: "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
			signature:     "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
		},
		{
			name: "GET bucket lifecycle", method: "GET", url: "https://examplebucket.s3.amazonaws.com/?lifecycle",
			payloadHash:   emptySHA256,
			signedHeaders: "host;x-amz-content-sha256;x-amz-date",
			signature:     "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
		},
		{
			name: "list objects", method: "GET", url: "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J",
			payloadHash:   emptySHA256,
			signedHeaders: "host;x-amz-content-sha256;x-amz-date",
			signature:     "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := url.Parse(tc.url)
			req := &http.Request{Method: tc.method, URL: u, Header: http.Header{}, Host: u.Host}
			for _, h := range tc.headers {
				req.Header.Set(h[0], h[1])
			}
			signV4(req, tc.payloadHash, ak, sk, "us-east-1", "s3", when)
			want := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=" +
				tc.signedHeaders + ", Signature=" + tc.signature
			if got := req.Header.Get("Authorization"); got != want {
				t.Errorf("Authorization\n got %s\nwant %s", got, want)
			}
		})
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
