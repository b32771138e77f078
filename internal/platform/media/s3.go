package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config locates a bucket of an S3-compatible service (AWS S3, MinIO,
// Cloudflare R2, Backblaze B2, Wasabi, DigitalOcean Spaces, Ceph RGW…).
//
// Endpoint is the service's base URL with no path, such as
// "https://s3.ap-southeast-1.amazonaws.com" or "http://localhost:9000".
// With PathStyle the object URL is Endpoint/Bucket/key, else the bucket is
// a sub-domain of the endpoint's host (virtual-hosted style, which AWS
// prefers and requires for new buckets). Region is the signing region
// ("us-east-1" for MinIO unless it is configured otherwise, "auto" for R2).
type S3Config struct {
	Endpoint  string
	Region    string
	Bucket    string
	AccessKey string
	SecretKey string
	PathStyle bool
	// Timeout bounds each operation, retries and the reading of a Get's
	// body included; 60 s when zero.
	Timeout time.Duration
	// Transport carries the requests; minio-go's default when nil.
	Transport http.RoundTripper
}

// S3 keeps objects in a bucket of an S3-compatible service, through
// minio-go (which signs each request with AWS Signature Version 4).
//
// Keys follow ValidKey. The content type given to Put is stored with the
// object and returned by Get. On AWS, let the credentials list the bucket
// (s3:ListBucket), or a missing object answers 403 instead of 404 and Get
// returns an error instead of ErrNotFound.
type S3 struct {
	client  *minio.Core
	bucket  string
	timeout time.Duration
}

// s3Retries is how many times minio-go tries a request that failed in a
// way worth retrying (a 5xx, SlowDown, a broken connection): a person waits
// on Put, and the job runner retries a failed Delete itself.
const s3Retries = 3

// NewS3 returns the store of the bucket c names. It sends no request.
func NewS3(c S3Config) (*S3, error) {
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("media: S3 endpoint %q is not an http(s) URL with no path", c.Endpoint)
	}
	if c.Bucket == "" || c.Region == "" || c.AccessKey == "" || c.SecretKey == "" {
		return nil, errors.New("media: S3 bucket, region, access key and secret key must all be set")
	}
	lookup := minio.BucketLookupDNS
	if c.PathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.NewCore(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(c.AccessKey, c.SecretKey, ""),
		Secure:       u.Scheme == "https",
		Transport:    c.Transport,
		Region:       c.Region, // known: no bucket-location request
		BucketLookup: lookup,
		MaxRetries:   s3Retries,
	})
	if err != nil {
		return nil, fmt.Errorf("media: S3 client: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	return &S3{client: client, bucket: c.Bucket, timeout: timeout}, nil
}

// Put uploads data as the object key.
func (s *S3) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	_, err := s.client.PutObject(ctx, s.bucket, key, bytes.NewReader(data), int64(len(data)), "", "",
		minio.PutObjectOptions{ContentType: contentType})
	if err != nil {
		return fmt.Errorf("media: S3 PUT %s: %w", key, err)
	}
	return nil
}

// Get downloads the object key.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, string, error) {
	if err := checkKey(key); err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	body, info, _, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		cancel()
		if noSuchKey(err) {
			return nil, "", ErrNotFound
		}
		return nil, "", fmt.Errorf("media: S3 GET %s: %w", key, err)
	}
	return cancelOnClose{body, cancel}, info.ContentType, nil
}

// Delete removes the object key. S3 answers 204 whether or not the object
// existed; a 404 (some S3-compatible services) is taken as success too.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil && !noSuchKey(err) {
		return fmt.Errorf("media: S3 DELETE %s: %w", key, err)
	}
	return nil
}

// noSuchKey reports whether err is the service's "no such object": a 404,
// but not for a missing bucket, which is a misconfiguration to report.
func noSuchKey(err error) bool {
	var e minio.ErrorResponse
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound && e.Code != minio.NoSuchBucket
}

// cancelOnClose ends the operation's timeout when the caller is done with
// the body, so the timeout bounds the whole download.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
