// Package media holds the images both APIs take and show, from upload to
// address: it reads an upload (ReadImageUpload) and turns the untrusted
// picture into a clean one (Sanitize), keeps it in a Store (Local or S3)
// and serves it (Serve), draws the sample data's pictures (SampleImages),
// and checks and resolves the image references the APIs store and answer
// with (CheckRefs, Resolve).
//
// Sanitize reads a bounded number of bytes, recognises JPEG, PNG and WebP
// by their content alone, refuses pixel floods before any pixel buffer
// exists, and re-encodes the decoded pixels so that nothing else of the
// upload (EXIF and GPS tags, ICC profiles, comments, trailing bytes,
// polyglot payloads) survives.
package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"github.com/wayfarer-asia/platform/internal/platform/admission"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// Limits Sanitize applies.
const (
	// MaxSide is the largest width or height accepted, in pixels.
	MaxSide = 4096
	// MaxPixels is the largest width×height accepted (16 megapixels). It
	// bounds the memory a decode takes: at most 128 MB for a 16-bit RGBA
	// PNG, 64 MB for the usual 8-bit images.
	MaxPixels = 16_000_000
	// OutputSide is the longest side of the output: larger images are
	// scaled down to it, keeping their aspect ratio.
	OutputSide = 1024
	// JPEGQuality is the quality opaque images are encoded with.
	JPEGQuality = 85
	// MaxJPEGScans is the most scans (SOS markers) a JPEG may hold.
	MaxJPEGScans = 100
)

// Field is the request field named in the details of the validation errors
// Sanitize returns.
const Field = "file"

// Content types of the output.
const (
	JPEG = "image/jpeg"
	PNG  = "image/png"
)

// ErrRead wraps a failure of the reader passed to Sanitize (a client that
// went away, a body over an outer limit, a malformed multipart stream). The
// HTTP layer tells it apart from a bad image with errors.Is and can unwrap
// the cause (for example an *http.MaxBytesError) with errors.As.
var ErrRead = errors.New("imaging: reading the upload failed")

// Image is a sanitised picture: freshly encoded pixels and nothing else.
type Image struct {
	Data          []byte // the encoded image
	ContentType   string // JPEG or PNG
	Width, Height int    // of the output, after orientation and scaling
}

// Ext is the file name extension that matches the content type: ".jpg" or
// ".png".
func (im *Image) Ext() string {
	if im.ContentType == PNG {
		return ".png"
	}
	return ".jpg"
}

// Key is a content-addressed storage key for the image: prefix, a slash,
// the first 32 hex digits of the SHA-256 of the data and the extension,
// e.g. "avatars/u123/9f86d081884c7d659a2feaa0c55ad015.jpg". Include the
// owner in prefix, so that two users uploading the same picture get two
// objects and deleting one leaves the other.
func (im *Image) Key(prefix string) string {
	sum := sha256.Sum256(im.Data)
	name := hex.EncodeToString(sum[:16]) + im.Ext()
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}

// limits are the bounds Sanitize applies; tests and the fuzz target use
// smaller ones to stay fast.
type limits struct {
	maxSide, maxPixels, outputSide int
}

var defaultLimits = limits{maxSide: MaxSide, maxPixels: MaxPixels, outputSide: OutputSide}

// Sanitize reads one image from r, which should be the file part of the
// upload, and returns it re-encoded. It never holds more than maxBytes+1
// bytes of the input. Its failures are *apperr.Error values, except read
// failures of r, which wrap ErrRead:
//
//   - more than maxBytes bytes: PAYLOAD_TOO_LARGE (413);
//   - empty, or not a JPEG, PNG or WebP judged by the leading bytes (the
//     file name and declared content type are never consulted), or a
//     variant of these formats the decoder does not support:
//     UNSUPPORTED_MEDIA_TYPE (415);
//   - dimensions over MaxSide×MaxSide or MaxPixels, as declared by the
//     header and checked before decoding: VALIDATION_ERROR (400) with
//     details.file (it is the picture, not the byte count, that is too big,
//     and the caller can fix it by resizing);
//   - a header or pixel stream that is damaged or truncated, or a JPEG with
//     more than MaxJPEGScans scans: VALIDATION_ERROR (400) with
//     details.file.
//
// Decoding, scaling and encoding run under admission.Do, weighed by the
// memory the decoded pixels take: further calls wait for room, as long as
// ctx allows (then SERVICE_UNAVAILABLE, 503, retriable).
//
// The output is the decoded pixels with the JPEG EXIF orientation applied,
// scaled down to at most OutputSide pixels on the long side (Catmull-Rom),
// and encoded as JPEG (quality JPEGQuality) when every pixel is opaque,
// else as PNG. Colour profiles are dropped, so the pixels are taken as sRGB.
func Sanitize(ctx context.Context, r io.Reader, maxBytes int64) (*Image, error) {
	return sanitize(ctx, r, maxBytes, defaultLimits)
}

func sanitize(ctx context.Context, r io.Reader, maxBytes int64, lim limits) (*Image, error) {
	data, err := readAtMost(r, maxBytes)
	if err != nil {
		return nil, err
	}
	format := sniff(data)
	if format == "" {
		return nil, mediaTypeError(data)
	}

	cfg, err := decodeConfig(format, data)
	if err != nil {
		return nil, decodeError(format, err)
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return nil, apperr.Field(Field, fmt.Sprintf("is a %s image without pixels", format))
	}
	if cfg.Width > lim.maxSide || cfg.Height > lim.maxSide || int64(cfg.Width)*int64(cfg.Height) > int64(lim.maxPixels) {
		return nil, apperr.Field(Field, fmt.Sprintf("is %d×%d pixels; at most %d×%d and %d megapixels are accepted",
			cfg.Width, cfg.Height, lim.maxSide, lim.maxSide, lim.maxPixels/1_000_000))
	}

	// A progressive JPEG may hold any number of scans, each a pass over
	// every block: a few bytes per scan make a CPU bomb. Real encoders
	// write at most a dozen or so; counting the SOS marker bytes
	// over-counts only if metadata happens to hold them.
	if format == "JPEG" && bytes.Count(data, []byte{0xFF, 0xDA}) > MaxJPEGScans {
		return nil, apperr.Field(Field, fmt.Sprintf("is a JPEG image with more than %d scans", MaxJPEGScans))
	}

	var im *Image
	if herr := admission.Do(ctx, decodeMemory(format, cfg, lim), func() { im, err = transcode(format, data, cfg, lim) }); herr != nil {
		return nil, herr
	}
	return im, err
}

// decodeMemory is what transcoding an image of cfg holds at most: the
// decoded pixels (8 bytes each for 16-bit colour; as much for a JPEG,
// whose progressive form keeps 16-bit coefficients beside the pixels;
// else 4), and for scaling the reduced copy (see scale), the Catmull-Rom
// buffer and the output.
func decodeMemory(format string, cfg image.Config, lim limits) int64 {
	perPixel := int64(4)
	switch cfg.ColorModel {
	case color.RGBA64Model, color.NRGBA64Model, color.Gray16Model:
		perPixel = 8
	}
	if format == "JPEG" {
		perPixel = 8
	}
	w, h, side := int64(cfg.Width), int64(cfg.Height), int64(lim.outputSide)
	total := perPixel * w * h
	if k := max(w, h) / side; k >= 2 {
		w, h = (w+k-1)/k, (h+k-1)/k
		total += 4 * w * h
	}
	return total + 32*min(w, side)*h + 4*side*side
}

// transcode decodes data, applies the orientation, scales and encodes.
func transcode(format string, data []byte, cfg image.Config, lim limits) (*Image, error) {
	src, err := decode(format, data)
	if err != nil {
		return nil, decodeError(format, err)
	}
	// The decoders size the buffer from the same header DecodeConfig read;
	// this guards against one that does not.
	if b := src.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return nil, decodeError(format, errors.New("dimensions differ from the header"))
	}

	orientation := 1
	if format == "JPEG" {
		orientation = jpegOrientation(data)
	}

	opaque := isOpaque(src)
	out := orient(scale(src, lim.outputSide), orientation)
	var buf bytes.Buffer
	im := &Image{Width: out.Bounds().Dx(), Height: out.Bounds().Dy()}
	if opaque {
		im.ContentType = JPEG
		err = jpeg.Encode(&buf, out, &jpeg.Options{Quality: JPEGQuality})
	} else {
		im.ContentType = PNG
		err = png.Encode(&buf, out)
	}
	if err != nil {
		return nil, fmt.Errorf("imaging: encoding: %w", err)
	}
	im.Data = buf.Bytes()
	return im, nil
}

// readAtMost reads r to its end, refusing it once it passes maxBytes. The
// buffer doubles as it fills but never past maxBytes+1, so that a file
// near the limit holds little more than its size.
func readAtMost(r io.Reader, maxBytes int64) ([]byte, error) {
	buf := make([]byte, 0, min(maxBytes+1, 64<<10))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > maxBytes {
				break
			}
			buf = append(make([]byte, 0, min(2*int64(cap(buf)), maxBytes+1)), buf...)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRead, err)
		}
	}
	if n := int64(len(buf)); n > maxBytes {
		return nil, &apperr.Error{
			Code:    apperr.TooLarge,
			Message: fmt.Sprintf("The image is larger than %s.", byteSize(maxBytes)),
			Details: map[string]any{Field: fmt.Sprintf("must be at most %d bytes", maxBytes)},
		}
	}
	return buf, nil
}

func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// sniff names the format of data from its magic number, or returns "".
func sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return "JPEG"
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "PNG"
	case len(data) >= 16 && string(data[:4]) == "RIFF" && string(data[8:15]) == "WEBPVP8":
		return "WebP"
	}
	return ""
}

// decodeConfig and decode call the decoder of the sniffed format directly,
// not image.Decode, so that a format registered elsewhere in the program
// (GIF, BMP…) can never slip through.
func decodeConfig(format string, data []byte) (image.Config, error) {
	r := bytes.NewReader(data)
	switch format {
	case "JPEG":
		return jpeg.DecodeConfig(r)
	case "PNG":
		return png.DecodeConfig(r)
	default:
		return webp.DecodeConfig(r)
	}
}

func decode(format string, data []byte) (image.Image, error) {
	r := bytes.NewReader(data)
	switch format {
	case "JPEG":
		return jpeg.Decode(r)
	case "PNG":
		return png.Decode(r)
	default:
		return webp.Decode(r)
	}
}

const accepted = "JPEG, PNG or WebP"

func mediaTypeError(data []byte) error {
	what := describe(data)
	return &apperr.Error{
		Code:    apperr.MediaType,
		Message: fmt.Sprintf("The file must be a %s image; this one is %s.", accepted, what),
		Details: map[string]any{Field: "must be a " + accepted + " image", "accepted": []string{JPEG, PNG, "image/webp"}},
	}
}

func decodeError(format string, err error) error {
	var ju jpeg.UnsupportedError
	var pu png.UnsupportedError
	if errors.As(err, &ju) || errors.As(err, &pu) {
		return &apperr.Error{
			Code:    apperr.MediaType,
			Message: fmt.Sprintf("This kind of %s image is not supported; send a baseline or progressive JPEG, a PNG or a still WebP image.", format),
			Details: map[string]any{Field: "uses an unsupported " + format + " feature"},
		}
	}
	return apperr.Field(Field, fmt.Sprintf("is not a readable %s image: it is damaged or truncated", format))
}

// describe names what data looks like, for the error message.
func describe(data []byte) string {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), " \t\r\n")
	switch {
	case len(data) == 0:
		return "empty"
	case bytes.HasPrefix(data, []byte("GIF8")):
		return "a GIF image"
	case bytes.HasPrefix(data, []byte("BM")):
		return "a BMP image or an unknown file"
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return "a TIFF image"
	case len(data) >= 12 && string(data[4:8]) == "ftyp":
		switch string(data[8:12]) {
		case "avif", "avis":
			return "an AVIF image"
		case "heic", "heix", "hevc", "hevx", "mif1", "msf1":
			return "a HEIC image"
		}
		return "a video or ISO media file"
	case bytes.HasPrefix(data, []byte("%PDF")):
		return "a PDF document"
	case bytes.HasPrefix(trimmed, []byte("<")):
		return "text markup (SVG, XML or HTML)"
	}
	return "of an unrecognised type"
}

// scale returns src as an *image.RGBA whose long side is at most side.
// An image at least twice as large is first reduced by averaging blocks
// of k×k pixels (k = long/side), so that the Catmull-Rom scaler, whose
// buffer holds 32 bytes per output column and input row, works on fewer
// rows, and the decoded image can be let go before that buffer exists.
func scale(src image.Image, side int) *image.RGBA {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if k := max(w, h) / side; k >= 2 {
		src = boxReduce(src, k)
		b = src.Bounds()
	}
	if long := max(w, h); long > side {
		w = max(1, (w*side+long/2)/long)
		h = max(1, (h*side+long/2)/long)
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, b, xdraw.Src, nil)
		return dst
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Src)
	return dst
}

// boxReduce returns src with each block of k×k pixels (fewer at the right
// and bottom edges) averaged into one.
func boxReduce(src image.Image, k int) *image.RGBA {
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, (b.Dx()+k-1)/k, (b.Dy()+k-1)/k))
	at := func(x, y int) color.RGBA64 {
		r, g, bl, a := src.At(x, y).RGBA()
		return color.RGBA64{uint16(r), uint16(g), uint16(bl), uint16(a)}
	}
	if fast, ok := src.(image.RGBA64Image); ok {
		at = fast.RGBA64At // no allocation per pixel
	}
	sums := make([][4]uint64, dst.Rect.Dx())
	for dy := range dst.Rect.Dy() {
		clear(sums)
		y0, y1 := b.Min.Y+dy*k, min(b.Min.Y+(dy+1)*k, b.Max.Y)
		for y := y0; y < y1; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c, s := at(x, y), &sums[(x-b.Min.X)/k]
				s[0] += uint64(c.R)
				s[1] += uint64(c.G)
				s[2] += uint64(c.B)
				s[3] += uint64(c.A)
			}
		}
		for dx, s := range sums {
			n := uint64(y1-y0) * uint64(min(b.Min.X+(dx+1)*k, b.Max.X)-(b.Min.X+dx*k))
			i := dst.PixOffset(dx, dy)
			for j := range 4 {
				dst.Pix[i+j] = uint8(s[j] / n >> 8)
			}
		}
	}
	return dst
}

// isOpaque reports whether every pixel of m is fully opaque. It is judged
// on the source: scaling can round an opaque alpha down by one.
func isOpaque(m image.Image) bool {
	if o, ok := m.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	b := m.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := m.At(x, y).RGBA(); a != 0xffff {
				return false
			}
		}
	}
	return true
}
