package blob

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// S3 keeps objects in a bucket of an S3-compatible service (AWS S3, MinIO,
// Cloudflare R2, Backblaze B2, Wasabi, DigitalOcean Spaces, Ceph RGW…),
// signing each request with AWS Signature Version 4.
//
// Endpoint is the service's base URL, such as
// "https://s3.ap-southeast-1.amazonaws.com" or "http://localhost:9000".
// With PathStyle the object URL is Endpoint/Bucket/key, else the bucket is
// a sub-domain of the endpoint's host (virtual-hosted style, which AWS
// prefers and requires for new buckets). Region is the signing region
// ("us-east-1" for MinIO unless it is configured otherwise, "auto" for R2).
// Client is the HTTP client, a client with a 60 s timeout when nil.
//
// Keys follow ValidKey. The content type given to Put is stored with the
// object and returned by Get. On AWS, let the credentials list the bucket
// (s3:ListBucket), or a missing object answers 403 instead of 404 and Get
// returns an error instead of ErrNotFound.
type S3 struct {
	Endpoint  string
	Region    string
	Bucket    string
	AccessKey string
	SecretKey string
	PathStyle bool
	Client    *http.Client
}

var defaultClient = &http.Client{Timeout: 60 * time.Second}

// emptySHA256 is the hex SHA-256 of no bytes, the payload hash of GET and
// DELETE.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// Put uploads data as the object key.
func (s S3) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	resp, err := s.do(ctx, http.MethodPut, key, data, contentType)
	if err != nil {
		return err
	}
	defer drain(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return s3Error("PUT", key, resp)
	}
	return nil
}

// Get downloads the object key.
func (s S3) Get(ctx context.Context, key string) (io.ReadCloser, string, error) {
	resp, err := s.do(ctx, http.MethodGet, key, nil, "")
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode == http.StatusOK {
		return resp.Body, resp.Header.Get("Content-Type"), nil
	}
	defer drain(resp.Body)
	se := s3Error("GET", key, resp)
	if se.StatusCode == http.StatusNotFound && se.Code != "NoSuchBucket" {
		return nil, "", ErrNotFound
	}
	return nil, "", se
}

// Delete removes the object key. S3 answers 204 whether or not the object
// existed; a 404 (some S3-compatible services) is taken as success too.
func (s S3) Delete(ctx context.Context, key string) error {
	resp, err := s.do(ctx, http.MethodDelete, key, nil, "")
	if err != nil {
		return err
	}
	defer drain(resp.Body)
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	se := s3Error("DELETE", key, resp)
	if se.StatusCode == http.StatusNotFound && se.Code != "NoSuchBucket" {
		return nil
	}
	return se
}

// objectURL is the address of key.
func (s S3) objectURL(key string) (*url.URL, error) {
	u, err := url.Parse(s.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("blob: S3 endpoint %q is not an http(s) URL", s.Endpoint)
	}
	if s.Bucket == "" || s.Region == "" || s.AccessKey == "" || s.SecretKey == "" {
		return nil, errors.New("blob: S3 bucket, region, access key and secret key must all be set")
	}
	base := strings.TrimSuffix(u.Path, "/")
	if s.PathStyle {
		u.Path = base + "/" + s.Bucket + "/" + key
	} else {
		u.Host = s.Bucket + "." + u.Host
		u.Path = base + "/" + key
	}
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u, nil
}

func (s S3) do(ctx context.Context, method, key string, body []byte, contentType string) (*http.Response, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	u, err := s.objectURL(key)
	if err != nil {
		return nil, err
	}
	var rd io.Reader
	payloadHash := emptySHA256
	if body != nil {
		rd = bytes.NewReader(body)
		sum := sha256.Sum256(body)
		payloadHash = hex.EncodeToString(sum[:])
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	signV4(req, payloadHash, s.AccessKey, s.SecretKey, s.Region, "s3", time.Now())
	client := s.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("blob: S3 %s %s: %w", method, key, err)
	}
	return resp, nil
}

// signV4 signs req with AWS Signature Version 4
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html):
// it sets X-Amz-Date, X-Amz-Content-Sha256 and Authorization, signing the
// host and every header already set on req.
func signV4(req *http.Request, payloadHash, accessKey, secretKey, region, service string, now time.Time) {
	now = now.UTC()
	amzDate := now.Format("20060102T150405Z")
	day := now.Format("20060102")
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)

	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	headers := map[string]string{"host": host}
	for name, values := range req.Header {
		trimmed := make([]string, len(values))
		for i, v := range values {
			trimmed[i] = strings.Join(strings.Fields(v), " ")
		}
		headers[strings.ToLower(name)] = strings.Join(trimmed, ",")
	}
	names := make([]string, 0, len(headers))
	for name := range headers {
		names = append(names, name)
	}
	sort.Strings(names)
	var canonHeaders strings.Builder
	for _, name := range names {
		canonHeaders.WriteString(name + ":" + headers[name] + "\n")
	}
	signedHeaders := strings.Join(names, ";")

	canonical := strings.Join([]string{
		req.Method,
		uriEncode(req.URL.Path, false),
		canonicalQuery(req.URL.Query()),
		canonHeaders.String(),
		signedHeaders,
		payloadHash,
	}, "\n")
	scope := day + "/" + region + "/" + service + "/aws4_request"
	canonicalHash := sha256.Sum256([]byte(canonical))
	stringToSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(canonicalHash[:])

	key := hmacSHA256([]byte("AWS4"+secretKey), day)
	key = hmacSHA256(key, region)
	key = hmacSHA256(key, service)
	key = hmacSHA256(key, "aws4_request")
	signature := hex.EncodeToString(hmacSHA256(key, stringToSign))

	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+accessKey+"/"+scope+
		", SignedHeaders="+signedHeaders+", Signature="+signature)
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// uriEncode percent-encodes s as SigV4 asks: every byte but A-Z a-z 0-9
// - _ . ~, and '/' too when encodeSlash.
func uriEncode(s string, encodeSlash bool) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9',
			c == '-', c == '_', c == '.', c == '~', c == '/' && !encodeSlash:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func canonicalQuery(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	var pairs []string
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, uriEncode(k, true)+"="+uriEncode(v, true))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

// S3Error is a failure answered by the service.
type S3Error struct {
	Op, Key    string
	StatusCode int
	Code       string // from the XML error body, such as "AccessDenied"
	Message    string
}

func (e *S3Error) Error() string {
	msg := "blob: S3 " + e.Op + " " + e.Key + ": HTTP " + strconv.Itoa(e.StatusCode)
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

func s3Error(op, key string, resp *http.Response) *S3Error {
	e := &S3Error{Op: op, Key: key, StatusCode: resp.StatusCode}
	var body struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<10))
	if xml.Unmarshal(raw, &body) == nil {
		e.Code, e.Message = body.Code, body.Message
	}
	return e
}

// drain reads what is left of a small response so the connection can be
// reused, and closes it.
func drain(body io.ReadCloser) {
	io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	body.Close()
}
