package media

import (
	"image"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// TestCheckDocument: a document is judged by its bytes: a plain PDF is
// kept as sent, an image is re-encoded, and anything else, a cut or
// scripted PDF, or too many bytes, is refused with the code its caller
// can act on.
func TestCheckDocument(t *testing.T) {
	pdf := []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n")
	d, err := CheckDocument(t.Context(), pdf, 1<<20)
	if err != nil {
		t.Fatalf("PDF: %v", err)
	}
	if diff := cmp.Diff(&Document{Data: pdf, ContentType: PDF, Ext: ".pdf"}, d); diff != "" {
		t.Fatalf("PDF (-want +got):\n%s", diff)
	}
	img := encodePNG(t, image.NewRGBA(image.Rect(0, 0, 8, 8)))
	if d, err := CheckDocument(t.Context(), img, 1<<20); err != nil || d.ContentType != PNG || d.Ext != ".png" {
		t.Fatalf("image: %+v, %v", d, err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		code string
	}{
		{"text", []byte("hello"), apperr.MediaType},
		{"html", []byte("<html><script>alert(1)</script>"), apperr.MediaType},
		{"empty", nil, apperr.MediaType},
		{"cut PDF", pdf[:30], apperr.Validation},
		{"script", []byte("%PDF-1.4\n<< /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>\n%%EOF"), apperr.Validation},
		{"launch", []byte("%PDF-1.4\n<< /S /Launch /F (cmd.exe) >>\n%%EOF"), apperr.Validation},
		{"too large", append(pdf, strings.Repeat(" ", 1<<20)...), apperr.TooLarge},
	} {
		if _, err := CheckDocument(t.Context(), tc.data, 1<<20); apperr.Code(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
}
