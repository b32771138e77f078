package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// WebP samples made with cwebp: a 1×1 lossless opaque pixel (10,200,30), a
// 3×2 lossless image with transparent pixels, and a 1×1 lossy image.
var (
	webpLossless1x1 = []byte{
		0x52, 0x49, 0x46, 0x46, 0x1e, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50,
		0x56, 0x50, 0x38, 0x4c, 0x11, 0x00, 0x00, 0x00, 0x2f, 0x00, 0x00, 0x00,
		0x00, 0x07, 0x50, 0xe4, 0x2a, 0xd4, 0xa3, 0xff, 0x81, 0x88, 0xe8, 0x7f,
		0x00, 0x00,
	}
	webpLosslessAlpha3x2 = []byte{
		0x52, 0x49, 0x46, 0x46, 0x40, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50,
		0x56, 0x50, 0x38, 0x4c, 0x34, 0x00, 0x00, 0x00, 0x2f, 0x02, 0x40, 0x00,
		0x10, 0x2f, 0x20, 0x10, 0x48, 0xda, 0x1f, 0x7a, 0x0d, 0x01, 0x41, 0x91,
		0xff, 0xa3, 0x09, 0x08, 0x8a, 0xfc, 0x1f, 0x8d, 0x20, 0xdb, 0xa6, 0xfe,
		0x44, 0x53, 0x38, 0xd5, 0x03, 0xec, 0x43, 0x6b, 0xbb, 0x82, 0x42, 0xb6,
		0x11, 0xe0, 0xd4, 0xee, 0x21, 0x3a, 0x93, 0x8b, 0xe8, 0x7f, 0x9c, 0x15,
	}
	webpLossy1x1 = []byte{
		0x52, 0x49, 0x46, 0x46, 0x3a, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50,
		0x56, 0x50, 0x38, 0x20, 0x2e, 0x00, 0x00, 0x00, 0x10, 0x02, 0x00, 0x9d,
		0x01, 0x2a, 0x01, 0x00, 0x01, 0x00, 0x01, 0x40, 0x26, 0x25, 0xa0, 0x02,
		0x74, 0xba, 0x01, 0xf8, 0x01, 0xf8, 0x00, 0x03, 0xc8, 0x00, 0xfe, 0xcb,
		0xb7, 0xff, 0xd3, 0x45, 0x18, 0x53, 0x1f, 0x72, 0x6f, 0xfe, 0xef, 0x36,
		0x00, 0xc2, 0x5f, 0xf0, 0x80, 0x00,
	}
)

const fiveMB = 5 << 20

var (
	red  = color.RGBA{220, 20, 20, 255}
	blue = color.RGBA{20, 20, 220, 255}
)

// halves is an opaque w×h image, red on the left half and blue on the right.
func halves(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if x < w/2 {
				m.SetRGBA(x, y, red)
			} else {
				m.SetRGBA(x, y, blue)
			}
		}
	}
	return m
}

func encodeJPEG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodePNG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pngChunk(typ string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// floodPNG is a PNG that declares w×h RGBA pixels and holds none.
func floodPNG(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8-bit RGBA, deflate, no interlace
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, pngChunk("IEND", nil)...)
}

// floodJPEG is a JPEG whose frame header declares w×h pixels.
func floodJPEG(w, h uint16) []byte {
	sof := []byte{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 8}
	sof = binary.BigEndian.AppendUint16(sof, h)
	sof = binary.BigEndian.AppendUint16(sof, w)
	return append(sof, 1, 1, 0x11, 0, 0xFF, 0xD9)
}

// floodWebP is an extended WebP whose canvas is w×h pixels.
func floodWebP(w, h uint32) []byte {
	vp8x := []byte{0, 0, 0, 0, byte(w - 1), byte((w - 1) >> 8), byte((w - 1) >> 16), byte(h - 1), byte((h - 1) >> 8), byte((h - 1) >> 16)}
	out := []byte("RIFF")
	out = binary.LittleEndian.AppendUint32(out, uint32(4+8+len(vp8x)))
	out = append(out, "WEBPVP8X"...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(vp8x)))
	return append(out, vp8x...)
}

const (
	gpsSecret   = "GPS-SECRET-48.8584N-2.2945E"
	commentText = "COMMENT-SECRET-by-camera"
	trailing    = "<?php system($_GET['c']); ?>TRAILING-JUNK"
)

// exifSegment is an APP1 Exif segment, big-endian TIFF, with an IFD0 that
// holds the orientation and a pointer to a GPS IFD with a latitude and a
// processing-method string.
func exifSegment(orientation uint16) []byte {
	be := binary.BigEndian
	var t []byte
	t = append(t, "MM\x00*"...)
	t = be.AppendUint32(t, 8) // IFD0 at 8
	// IFD0: 2 entries, 2+24+4 = 30 bytes, ends at 38.
	t = be.AppendUint16(t, 2)
	t = append(t, 0x01, 0x12, 0, 3, 0, 0, 0, 1)
	t = be.AppendUint16(t, orientation)
	t = append(t, 0, 0)
	t = append(t, 0x88, 0x25, 0, 4, 0, 0, 0, 1)
	t = be.AppendUint32(t, 38) // GPS IFD at 38
	t = be.AppendUint32(t, 0)  // no IFD1
	// GPS IFD: 3 entries, 2+36+4 = 42 bytes, ends at 80.
	t = be.AppendUint16(t, 3)
	t = append(t, 0, 1, 0, 2, 0, 0, 0, 2, 'N', 0, 0, 0) // GPSLatitudeRef
	t = append(t, 0, 2, 0, 5, 0, 0, 0, 3)               // GPSLatitude, 3 rationals
	t = be.AppendUint32(t, 80)
	t = append(t, 0, 0x1B, 0, 7) // GPSProcessingMethod, UNDEFINED
	t = be.AppendUint32(t, uint32(len(gpsSecret)))
	t = be.AppendUint32(t, 104)
	t = be.AppendUint32(t, 0)
	for _, v := range []uint32{48, 1, 51, 1, 3030, 100} { // 48° 51' 30.30"
		t = be.AppendUint32(t, v)
	}
	t = append(t, gpsSecret...)

	seg := []byte{0xFF, 0xE1}
	seg = be.AppendUint16(seg, uint16(2+6+len(t)))
	seg = append(seg, "Exif\x00\x00"...)
	return append(seg, t...)
}

// withMetadata inserts after SOI an Exif segment, an ICC profile segment
// and a comment, and appends junk after EOI.
func withMetadata(jpg []byte, orientation uint16) []byte {
	icc := append([]byte("ICC_PROFILE\x00\x01\x01"), bytes.Repeat([]byte("ICCDATA"), 10)...)
	var out []byte
	out = append(out, jpg[:2]...)
	out = append(out, exifSegment(orientation)...)
	out = append(out, 0xFF, 0xE2)
	out = binary.BigEndian.AppendUint16(out, uint16(2+len(icc)))
	out = append(out, icc...)
	out = append(out, 0xFF, 0xFE)
	out = binary.BigEndian.AppendUint16(out, uint16(2+len(commentText)))
	out = append(out, commentText...)
	out = append(out, jpg[2:]...)
	return append(out, trailing...)
}

func mustSanitize(t *testing.T, data []byte) *Image {
	t.Helper()
	im, err := Sanitize(t.Context(), bytes.NewReader(data), fiveMB)
	if err != nil {
		t.Fatalf("Sanitize: %v", err)
	}
	return im
}

// decodeOutput decodes the output with the decoder of its declared type.
func decodeOutput(t *testing.T, im *Image) image.Image {
	t.Helper()
	var m image.Image
	var err error
	switch im.ContentType {
	case JPEG:
		if !bytes.HasPrefix(im.Data, []byte{0xFF, 0xD8, 0xFF}) {
			t.Fatalf("content type %s but data starts % x", im.ContentType, im.Data[:4])
		}
		m, err = jpeg.Decode(bytes.NewReader(im.Data))
	case PNG:
		m, err = png.Decode(bytes.NewReader(im.Data))
	default:
		t.Fatalf("content type %q", im.ContentType)
	}
	if err != nil {
		t.Fatalf("output does not decode: %v", err)
	}
	if b := m.Bounds(); b.Dx() != im.Width || b.Dy() != im.Height {
		t.Fatalf("output is %v, Image says %d×%d", b, im.Width, im.Height)
	}
	return m
}

func wantCode(t *testing.T, err error, code string) *apperr.Error {
	t.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *apperr.Error", err)
	}
	if e.Code != code {
		t.Fatalf("code %s (%s), want %s", e.Code, e.Message, code)
	}
	return e
}

// near reports whether c is within tol of want on every channel.
func near(c color.Color, want color.RGBA, tol int) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, b uint8) bool { return abs(int(a>>8)-int(b)) <= tol }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func TestSanitizeJPEG(t *testing.T) {
	im := mustSanitize(t, encodeJPEG(t, halves(64, 48)))
	got := map[string]any{"contentType": im.ContentType, "width": im.Width, "height": im.Height, "ext": im.Ext()}
	want := map[string]any{"contentType": JPEG, "width": 64, "height": 48, "ext": ".jpg"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("sanitized (-want +got):\n%s", diff)
	}
	m := decodeOutput(t, im)
	if !near(m.At(8, 24), red, 12) || !near(m.At(56, 24), blue, 12) {
		t.Errorf("pixels changed: %v %v", m.At(8, 24), m.At(56, 24))
	}
}

func TestSanitizePNG(t *testing.T) {
	t.Run("opaque becomes JPEG", func(t *testing.T) {
		im := mustSanitize(t, encodePNG(t, halves(30, 20)))
		if im.ContentType != JPEG {
			t.Fatalf("content type %s", im.ContentType)
		}
		decodeOutput(t, im)
	})
	t.Run("transparency stays PNG", func(t *testing.T) {
		m := image.NewNRGBA(image.Rect(0, 0, 20, 10))
		for y := range 10 {
			for x := range 20 {
				m.SetNRGBA(x, y, color.NRGBA{0, 128, 0, uint8(x * 12)})
			}
		}
		im := mustSanitize(t, encodePNG(t, m))
		if im.ContentType != PNG || im.Ext() != ".png" {
			t.Fatalf("content type %s", im.ContentType)
		}
		out := decodeOutput(t, im)
		if _, _, _, a := out.At(0, 5).RGBA(); a != 0 {
			t.Errorf("alpha at x=0 is %d, want 0", a)
		}
		if _, _, _, a := out.At(19, 5).RGBA(); a>>8 != 19*12 {
			t.Errorf("alpha at x=19 is %d, want %d", a>>8, 19*12)
		}
	})
	t.Run("paletted and 16-bit", func(t *testing.T) {
		pal := image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{red, blue})
		im := mustSanitize(t, encodePNG(t, pal))
		if im.ContentType != JPEG {
			t.Errorf("opaque paletted PNG gave %s", im.ContentType)
		}
		deep := image.NewRGBA64(image.Rect(0, 0, 4, 4))
		deep.SetRGBA64(1, 1, color.RGBA64{0x8000, 0, 0, 0x8000})
		if im := mustSanitize(t, encodePNG(t, deep)); im.ContentType != PNG {
			t.Errorf("transparent 16-bit PNG gave %s", im.ContentType)
		}
	})
}

func TestSanitizeWebP(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		ct   string
		w, h int
	}{
		{"lossless opaque", webpLossless1x1, JPEG, 1, 1},
		{"lossless alpha", webpLosslessAlpha3x2, PNG, 3, 2},
		{"lossy", webpLossy1x1, JPEG, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := mustSanitize(t, tc.data)
			if im.ContentType != tc.ct || im.Width != tc.w || im.Height != tc.h {
				t.Fatalf("got %s %d×%d, want %s %d×%d", im.ContentType, im.Width, im.Height, tc.ct, tc.w, tc.h)
			}
			decodeOutput(t, im)
		})
	}
	m := decodeOutput(t, mustSanitize(t, webpLossless1x1))
	if !near(m.At(0, 0), color.RGBA{10, 200, 30, 255}, 8) {
		t.Errorf("pixel %v, want about (10,200,30)", m.At(0, 0))
	}
}

func TestSanitizeDownscales(t *testing.T) {
	// An eighth of the real limits: the same paths, on 64× fewer pixels.
	lim := limits{maxSide: MaxSide / 8, maxPixels: MaxPixels / 64, outputSide: OutputSide / 8}
	for _, tc := range []struct{ w, h, ww, wh int }{
		{256, 128, 128, 64},
		{75, 375, 26, 128},
		{500, 250, 128, 64}, // reduced by 3×3 blocks first
		{128, 128, 128, 128},
		{512, 3, 128, 1},
	} {
		im, err := sanitize(t.Context(), bytes.NewReader(encodePNG(t, halves(tc.w, tc.h))), fiveMB, lim)
		if err != nil {
			t.Fatalf("%d×%d: %v", tc.w, tc.h, err)
		}
		if im.Width != tc.ww || im.Height != tc.wh {
			t.Errorf("%d×%d gave %d×%d, want %d×%d", tc.w, tc.h, im.Width, im.Height, tc.ww, tc.wh)
		}
		m := decodeOutput(t, im)
		if !near(m.At(0, tc.wh/2), red, 12) || !near(m.At(tc.ww-1, tc.wh/2), blue, 12) {
			t.Errorf("%d×%d: scaled pixels wrong: %v %v", tc.w, tc.h, m.At(0, tc.wh/2), m.At(tc.ww-1, tc.wh/2))
		}
	}
}

// TestBoxReduce: blocks of k×k pixels average into one, partial blocks at
// the edges over the pixels they have, in premultiplied colour.
func TestBoxReduce(t *testing.T) {
	src := image.NewNRGBA64(image.Rect(10, 20, 15, 23)) // 5×3, not at the origin
	for y := 20; y < 23; y++ {
		for x := 10; x < 15; x++ {
			c := color.NRGBA64{0xffff, 0, 0x8080, 0xffff}
			if x%2 == 1 { // every other column white
				c = color.NRGBA64{0xffff, 0xffff, 0xffff, 0xffff}
			}
			if y == 22 {
				c.A = 0 // a transparent last row
			}
			src.SetNRGBA64(x, y, c)
		}
	}
	got := boxReduce(src, 2)
	if got.Rect.Dx() != 3 || got.Rect.Dy() != 2 {
		t.Fatalf("size %v", got.Rect)
	}
	for _, c := range []struct {
		x, y int
		want color.RGBA
	}{
		{0, 0, color.RGBA{0xff, 0x7f, 0xc0, 0xff}}, // a red-violet and a white column
		{2, 0, color.RGBA{0xff, 0, 0x80, 0xff}},    // the edge block: the red-violet column alone
		{0, 1, color.RGBA{0, 0, 0, 0}},             // transparent
	} {
		if g := got.RGBAAt(c.x, c.y); g != c.want {
			t.Errorf("(%d,%d) = %v, want %v", c.x, c.y, g, c.want)
		}
	}
}

func TestSanitizeStripsMetadata(t *testing.T) {
	in := withMetadata(encodeJPEG(t, halves(32, 32)), 1)
	// The crafted file is a valid JPEG carrying everything that must go.
	if _, err := jpeg.Decode(bytes.NewReader(in)); err != nil {
		t.Fatalf("crafted JPEG does not decode: %v", err)
	}
	for _, s := range []string{"Exif", gpsSecret, "ICC_PROFILE", commentText, trailing} {
		if !bytes.Contains(in, []byte(s)) {
			t.Fatalf("crafted JPEG lacks %q", s)
		}
	}
	im := mustSanitize(t, in)
	gpsLatitude := []byte{0, 0, 0, 48, 0, 0, 0, 1, 0, 0, 0, 51, 0, 0, 0, 1}
	for _, s := range [][]byte{[]byte("Exif"), []byte(gpsSecret), gpsLatitude, []byte("ICC_PROFILE"), []byte("ICCDATA"), []byte(commentText), []byte(trailing), []byte("<?php")} {
		if bytes.Contains(im.Data, s) {
			t.Errorf("output still contains %q", s)
		}
	}
	if !bytes.HasSuffix(im.Data, []byte{0xFF, 0xD9}) {
		t.Errorf("output does not end at EOI")
	}
	// Only the segments the encoder writes: no APPn, no COM.
	for i := 2; i+4 <= len(im.Data); {
		marker := im.Data[i+1]
		if marker == 0xDA {
			break
		}
		if marker >= 0xE0 && marker <= 0xEF || marker == 0xFE {
			t.Errorf("output has marker %#x", marker)
		}
		i += 2 + int(binary.BigEndian.Uint16(im.Data[i+2:]))
	}
	decodeOutput(t, im)

	// PNG text chunks go too.
	p := encodePNG(t, halves(8, 8))
	withText := append(append(append([]byte{}, p[:33]...), pngChunk("tEXt", []byte("Comment\x00"+commentText))...), p[33:]...)
	withText = append(withText, trailing...)
	im = mustSanitize(t, withText)
	if bytes.Contains(im.Data, []byte(commentText)) || bytes.Contains(im.Data, []byte(trailing)) {
		t.Errorf("PNG text or trailing bytes survived")
	}
}

func TestSanitizeOrientation(t *testing.T) {
	src := encodeJPEG(t, halves(40, 20)) // red left, blue right
	for _, tc := range []struct {
		orientation uint16
		w, h        int
		// colour at the first and at the second probe: top-left quarter
		// and bottom-right quarter
		first, second color.RGBA
	}{
		{1, 40, 20, red, blue},
		{2, 40, 20, blue, red},
		{3, 40, 20, blue, red},
		{4, 40, 20, red, blue},
		{5, 20, 40, red, blue},
		{6, 20, 40, red, blue}, // turned clockwise: the left edge is now the top
		{7, 20, 40, blue, red},
		{8, 20, 40, blue, red}, // turned counter-clockwise: the left edge is now the bottom
	} {
		im := mustSanitize(t, withMetadata(src, tc.orientation))
		if im.Width != tc.w || im.Height != tc.h {
			t.Errorf("orientation %d: %d×%d, want %d×%d", tc.orientation, im.Width, im.Height, tc.w, tc.h)
			continue
		}
		m := decodeOutput(t, im)
		p1, p2 := m.At(tc.w/4, tc.h/4), m.At(tc.w*3/4, tc.h*3/4)
		if !near(p1, tc.first, 16) || !near(p2, tc.second, 16) {
			t.Errorf("orientation %d: probes %v %v, want %v %v", tc.orientation, p1, p2, tc.first, tc.second)
		}
	}
}

func TestSanitizeRefusesOtherTypes(t *testing.T) {
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, halves(8, 8), nil); err != nil {
		t.Fatal(err)
	}
	bmp := append([]byte("BM"), make([]byte, 60)...)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"GIF", gifBuf.Bytes()},
		{"SVG", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>`)},
		{"HTML named avatar.jpg", []byte("<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>")},
		{"HTML with BOM and space", []byte("\xEF\xBB\xBF  \n<html><img src=x onerror=alert(1)></html>")},
		{"BMP", bmp},
		{"HEIC", append([]byte{0, 0, 0, 0x18}, "ftypheic\x00\x00\x00\x00mif1heic"...)},
		{"text", []byte("just some text")},
		{"JPEG magic too short", []byte{0xFF, 0xD8}},
		{"RIFF but not WebP", append([]byte("RIFF\x10\x00\x00\x00WAVEfmt "), make([]byte, 8)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Sanitize(t.Context(), bytes.NewReader(tc.data), fiveMB)
			e := wantCode(t, err, apperr.MediaType)
			if !strings.Contains(e.Message, "JPEG, PNG or WebP") {
				t.Errorf("message %q does not name the accepted types", e.Message)
			}
		})
	}
}

func TestSanitizeDimensionLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"PNG 100000×100000", floodPNG(100000, 100000)},
		{"PNG 4097×1", floodPNG(MaxSide+1, 1)},
		{"PNG 4000×4001 (over 16 MP)", floodPNG(4000, 4001)},
		{"PNG 2^31-1 square", floodPNG(1<<31-1, 1<<31-1)},
		{"JPEG 65535×65535", floodJPEG(65535, 65535)},
		{"WebP 16384×16384", floodWebP(16384, 16384)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Sanitize(t.Context(), bytes.NewReader(tc.data), fiveMB)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("accepted")
			}
			if code := apperr.Code(err); code != apperr.Validation && code != apperr.MediaType {
				t.Fatalf("code %s: %v", code, err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
				t.Errorf("refusing it allocated %d bytes", alloc)
			}
			if elapsed > time.Second {
				t.Errorf("refusing it took %v", elapsed)
			}
		})
	}
	// The declared size is what is refused, with a message saying so.
	_, err := Sanitize(t.Context(), bytes.NewReader(floodPNG(100000, 100000)), fiveMB)
	e := wantCode(t, err, apperr.Validation)
	if msg, _ := e.Details[Field].(string); !strings.Contains(msg, "100000×100000") {
		t.Errorf("details.file = %q", msg)
	}
	allocs := testing.AllocsPerRun(20, func() {
		Sanitize(t.Context(), bytes.NewReader(floodPNG(100000, 100000)), fiveMB)
	})
	if allocs > 100 {
		t.Errorf("%v allocations to refuse a pixel flood", allocs)
	}
	// At the limit is fine.
	if im := mustSanitize(t, encodePNG(t, image.NewGray(image.Rect(0, 0, MaxSide, 1)))); im.Width != OutputSide {
		t.Errorf("4096×1 gave width %d", im.Width)
	}
}

type countingReader struct {
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 0xFF
	}
	c.n += int64(len(p))
	return len(p), nil
}

func TestSanitizeTooLarge(t *testing.T) {
	jpg := encodeJPEG(t, halves(16, 16))
	if _, err := Sanitize(t.Context(), bytes.NewReader(jpg), int64(len(jpg))); err != nil {
		t.Fatalf("exactly maxBytes refused: %v", err)
	}
	_, err := Sanitize(t.Context(), bytes.NewReader(jpg), int64(len(jpg)-1))
	wantCode(t, err, apperr.TooLarge)

	// An endless body is read only up to the limit plus one byte.
	r := &countingReader{}
	_, err = Sanitize(t.Context(), r, 1<<20)
	e := wantCode(t, err, apperr.TooLarge)
	if r.n > 1<<20+1 {
		t.Errorf("read %d bytes of an endless body with a limit of %d", r.n, 1<<20)
	}
	if !strings.Contains(e.Message, "1 MB") {
		t.Errorf("message %q", e.Message)
	}
}

func TestSanitizeDamaged(t *testing.T) {
	jpg := encodeJPEG(t, halves(64, 64))
	p := encodePNG(t, halves(64, 64))
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"JPEG cut in half", jpg[:len(jpg)/2]},
		{"JPEG cut in the header", jpg[:40]},
		{"PNG cut in half", p[:len(p)/2]},
		{"PNG with a bad CRC", append(append(append([]byte{}, p[:29]...), p[29]^0xFF), p[30:]...)},
		{"WebP cut", webpLosslessAlpha3x2[:50]},
		{"PNG 0×0", floodPNG(0, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Sanitize(t.Context(), bytes.NewReader(tc.data), fiveMB)
			e := wantCode(t, err, apperr.Validation)
			if _, ok := e.Details[Field]; !ok {
				t.Errorf("details %v do not name %q", e.Details, Field)
			}
		})
	}
}

func TestSanitizeTooManyScans(t *testing.T) {
	jpg := encodeJPEG(t, halves(16, 16))
	com := bytes.Repeat([]byte{0xFF, 0xDA}, MaxJPEGScans)
	in := append([]byte{0xFF, 0xD8, 0xFF, 0xFE}, binary.BigEndian.AppendUint16(nil, uint16(2+len(com)))...)
	in = append(append(in, com...), jpg[2:]...)
	_, err := Sanitize(t.Context(), bytes.NewReader(in), fiveMB)
	e := wantCode(t, err, apperr.Validation)
	if msg, _ := e.Details[Field].(string); !strings.Contains(msg, "scans") {
		t.Errorf("details.file = %q", msg)
	}
}

func TestSanitizeConcurrent(t *testing.T) {
	jpg := encodeJPEG(t, halves(300, 200))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := Sanitize(t.Context(), bytes.NewReader(jpg), fiveMB); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestSanitizeReadError(t *testing.T) {
	_, err := Sanitize(t.Context(), io.MultiReader(bytes.NewReader([]byte{0xFF, 0xD8}), failingReader{}), fiveMB)
	if !errors.Is(err, ErrRead) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error %v, want ErrRead wrapping the cause", err)
	}
}

func TestKey(t *testing.T) {
	a := &Image{Data: []byte("a"), ContentType: JPEG}
	b := &Image{Data: []byte("b"), ContentType: PNG}
	ka, kb := a.Key("avatars/u1"), b.Key("")
	if !strings.HasPrefix(ka, "avatars/u1/") || !strings.HasSuffix(ka, ".jpg") || len(ka) != len("avatars/u1/")+32+4 {
		t.Errorf("key %q", ka)
	}
	if !strings.HasSuffix(kb, ".png") || strings.Contains(kb, "/") {
		t.Errorf("key %q", kb)
	}
	if a.Key("x") != (&Image{Data: []byte("a"), ContentType: JPEG}).Key("x") {
		t.Error("key is not stable")
	}
}

func TestJPEGOrientationParserIsDefensive(t *testing.T) {
	seg := exifSegment(6)
	jpg := append([]byte{0xFF, 0xD8}, seg...)
	if o := jpegOrientation(jpg); o != 6 {
		t.Fatalf("orientation %d, want 6", o)
	}
	// Every truncation and a corrupted count must not panic.
	for i := range len(jpg) {
		jpegOrientation(jpg[:i])
	}
	bad := append([]byte{}, jpg...)
	bad[2+4+6+8] = 0xFF // IFD0 entry count
	bad[2+4+6+9] = 0xFF
	jpegOrientation(bad)
}

func FuzzSanitize(f *testing.F) {
	var gifBuf bytes.Buffer
	gif.Encode(&gifBuf, halves(4, 4), nil)
	jpg := encodeJPEG(f, halves(16, 8))
	transparent := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for _, seed := range [][]byte{
		jpg,
		withMetadata(jpg, 6),
		jpg[:len(jpg)/2],
		encodePNG(f, halves(8, 4)),
		encodePNG(f, transparent),
		webpLossless1x1,
		webpLosslessAlpha3x2,
		webpLossy1x1,
		gifBuf.Bytes(),
		[]byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`),
		[]byte("<html><body>not a jpeg</body></html>"),
		floodPNG(100000, 100000),
		floodJPEG(65535, 65535),
		floodWebP(16384, 16384),
		nil,
	} {
		f.Add(seed)
	}
	// Small limits keep each run fast; the code paths are the same.
	lim := limits{maxSide: 256, maxPixels: 256 * 256, outputSide: 64}
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := sanitize(t.Context(), bytes.NewReader(data), 1<<20, lim)
		if err != nil {
			if apperr.Code(err) == apperr.Internal {
				t.Fatalf("not an apperr: %v", err)
			}
			return
		}
		inRange := func(side int) bool { return side >= 1 && side <= 64 }
		if diff := cmp.Diff([2]bool{true, true}, [2]bool{inRange(im.Width), inRange(im.Height)}); diff != "" {
			t.Fatalf("output %d×%d, width and height within 1..64 (-want +got):\n%s", im.Width, im.Height, diff)
		}
		var cfg image.Config
		if im.ContentType == JPEG {
			cfg, err = jpeg.DecodeConfig(bytes.NewReader(im.Data))
		} else {
			cfg, err = png.DecodeConfig(bytes.NewReader(im.Data))
		}
		if err != nil || cfg.Width != im.Width || cfg.Height != im.Height {
			t.Fatalf("output does not decode as %s %d×%d: %v %+v", im.ContentType, im.Width, im.Height, err, cfg)
		}
	})
}
