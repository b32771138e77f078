package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/admission"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// MultipartOverhead is the room a multipart upload gets on top of its file
// for the boundaries, the part headers and any small other fields.
const MultipartOverhead = 64 << 10

// ReadImageUpload reads the image of a multipart/form-data upload and
// returns it sanitised by Sanitize (type judged from the bytes,
// dimensions bounded, re-encoded without metadata).
//
// The whole body is capped at maxBytes+MultipartOverhead with
// http.MaxBytesReader (past it: PAYLOAD_TOO_LARGE, 413; a Content-Length
// over it is refused before anything is read), and the file part at
// maxBytes (413 too). Parts are streamed with r.MultipartReader: nothing
// is buffered to disk and only the file part is held in memory.
//
// The image is the first part named "file"; its file name and declared
// Content-Type are ignored. Other fields are skipped unread (their bytes
// count against the overhead allowance), and parts after the file are not
// read at all. Failures:
//
//   - Content-Type not multipart/form-data: UNSUPPORTED_MEDIA_TYPE (415);
//   - no boundary, a malformed or truncated multipart body:
//     VALIDATION_ERROR (400) with details.body;
//   - no part named "file": VALIDATION_ERROR (400) with details.file;
//   - the image refused: the error of Sanitize (415, 413 or 400
//     with details.file);
//   - the request ended while it waited for its turn (see uploads and
//     admission.Default): admission.ErrBusy (503, retriable).
func ReadImageUpload(w http.ResponseWriter, r *http.Request, maxBytes int64) (*Image, error) {
	var img *Image
	err := readUpload(w, r, maxBytes, "a JPEG, PNG or WebP image", func(ctx context.Context, part io.Reader) (err error) {
		img, err = Sanitize(ctx, part, maxBytes)
		return err
	})
	return img, err
}

// readUpload reads the part named "file" of a multipart/form-data upload
// with read, under the bounds and failures ReadImageUpload describes;
// what names the files accepted, in the error of a missing file part.
func readUpload(w http.ResponseWriter, r *http.Request, maxBytes int64, what string, read func(context.Context, io.Reader) error) error {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return &apperr.Error{
			Code:    apperr.MediaType,
			Message: "Send the file as multipart/form-data, in a field named file.",
			Details: map[string]any{"accepted": []string{"multipart/form-data"}},
		}
	}
	if params["boundary"] == "" {
		return bodyError("the Content-Type has no multipart boundary")
	}
	limit := maxBytes + MultipartOverhead
	if r.ContentLength > limit {
		return bodyTooLarge(limit)
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mr, err := r.MultipartReader()
	if err != nil {
		return bodyError("the body is not a multipart form")
	}
	share := limit
	if r.ContentLength > 0 {
		share = r.ContentLength
	}
	if herr := uploads.Do(r.Context(), share, func() {
		// The wait for a turn does not count against the time the client
		// has to send the body: the server's read timeout started with
		// the request, and a queued upload would fail as a cut body.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(UploadReadTimeout))
		err = readFilePart(r.Context(), mr, maxBytes, limit, what, read)
	}); herr != nil {
		return herr
	}
	return err
}

// UploadReadTimeout is how long an upload's body may take to arrive once
// its turn has come.
const UploadReadTimeout = 30 * time.Second

// uploads bounds the uploaded bytes read and held at once: 32 MB, and at
// most four uploads a core. An upload waits for its share (its
// Content-Length, or the most it may send when it gives none) before its
// body is read, for as long as its request allows; the decoding inside
// waits again, for admission.Default.
var uploads = admission.New(4*runtime.GOMAXPROCS(0), 32<<20)

// readFilePart reads the parts of mr up to the one named "file" and
// hands it to read.
func readFilePart(ctx context.Context, mr *multipart.Reader, maxBytes, limit int64, what string, read func(context.Context, io.Reader) error) error {
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return apperr.Field(Field, fmt.Sprintf("is required: %s of at most %s", what, sizeText(maxBytes)))
		}
		if err != nil {
			return multipartError(err, limit)
		}
		if part.FormName() != Field {
			part.Close()
			continue
		}
		err = read(ctx, part)
		part.Close()
		if errors.Is(err, ErrRead) {
			return multipartError(err, limit)
		}
		return err
	}
}

func multipartError(err error, limit int64) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return bodyTooLarge(limit)
	}
	return bodyError("the multipart body is malformed or ends early")
}

func bodyError(msg string) error { return apperr.Field("body", msg) }

func bodyTooLarge(limit int64) error {
	return apperr.Errorf(apperr.TooLarge, "The body is larger than %d bytes.", limit)
}

func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// servedTypes are the content types Serve passes on; anything else is
// served as application/octet-stream.
var servedTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/webp": true}

// Serve answers with the object key of store: its content type (an
// image type, else application/octet-stream), X-Content-Type-Options:
// nosniff and Content-Security-Policy: default-src 'none' (so that even a
// file a browser would take for a document could run nothing), and
// Cache-Control: public, max-age=31536000, immutable, since keys are
// content-addressed and an object never changes. The key doubles as ETag,
// so a revalidation is answered 304; HEAD gets the headers only. A missing
// object, or a key outside ValidKey (such as one with ".."), is
// NOT_FOUND (404). The error is returned only before anything is written:
// a copy that fails half-way (the client went away) is logged, not
// returned.
func Serve(w http.ResponseWriter, r *http.Request, store Store, key string) error {
	rc, ct, err := store.Get(r.Context(), key)
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalidKey) {
		return apperr.Errorf(apperr.NotFound, "No image at this address.")
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	if !servedTypes[ct] {
		ct = "application/octet-stream"
	}
	etag := `"` + key + `"`
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'")
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", etag)
	if etagMatch(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", ct)
	if st, ok := rc.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil {
			h.Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
		}
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	if _, err := io.Copy(w, rc); err != nil {
		slog.WarnContext(r.Context(), "serving an image failed", "key", key, "err", err)
	}
	return nil
}

// etagMatch reports whether an If-None-Match header matches etag (weak
// comparison, as RFC 9110 asks for If-None-Match).
func etagMatch(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}
