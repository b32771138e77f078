package media

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// PDF is the content type of a PDF document.
const PDF = "application/pdf"

// Document is an uploaded document, such as a guide's proof of
// qualification: a sanitised image (see Sanitize) or a PDF judged by its
// bytes. Documents are kept private: they are never served under /media/.
type Document struct {
	Data        []byte
	ContentType string // JPEG, PNG or PDF
	Ext         string // ".jpg", ".png" or ".pdf"
}

// pdfActive are the PDF names that make a document act when opened: a
// script, a launched program, an embedded file. A compressed object
// stream can hide them, so refusing the ones in sight is only a first
// filter; documents are served as attachments, to admins only.
var pdfActive = [][]byte{[]byte("/JavaScript"), []byte("/JS"), []byte("/Launch"), []byte("/EmbeddedFile"), []byte("/RichMedia")}

// CheckDocument judges data, at most maxBytes bytes already read, by its
// bytes (never a file name or declared type): a JPEG, PNG or WebP image is
// sanitised as Sanitize does (and answered as JPEG or PNG); a PDF must
// start with its signature, end with its end-of-file marker and name no
// active content. Anything else is UNSUPPORTED_MEDIA_TYPE (415); a damaged
// or active PDF is VALIDATION_ERROR (400) with details.file.
func CheckDocument(ctx context.Context, data []byte, maxBytes int64) (*Document, error) {
	if int64(len(data)) > maxBytes {
		return nil, &apperr.Error{Code: apperr.TooLarge, Message: fmt.Sprintf("The document is larger than %s.", byteSize(maxBytes)),
			Details: map[string]any{Field: fmt.Sprintf("must be at most %d bytes", maxBytes)}}
	}
	if bytes.HasPrefix(data, []byte("%PDF-")) {
		tail := data[max(0, len(data)-1024):]
		if !bytes.Contains(tail, []byte("%%EOF")) {
			return nil, apperr.Field(Field, "is a PDF that is damaged or cut short (no end-of-file marker)")
		}
		for _, name := range pdfActive {
			if bytes.Contains(data, name) {
				return nil, apperr.Field(Field, fmt.Sprintf("is a PDF with active content (%s): print it to a plain PDF first", name))
			}
		}
		return &Document{Data: data, ContentType: PDF, Ext: ".pdf"}, nil
	}
	if sniff(data) == "" {
		return nil, &apperr.Error{Code: apperr.MediaType, Message: "The document must be a PDF or a JPEG, PNG or WebP image.",
			Details: map[string]any{"accepted": []string{PDF, JPEG, PNG, "image/webp"}}}
	}
	img, err := Sanitize(ctx, bytes.NewReader(data), maxBytes)
	if err != nil {
		return nil, err
	}
	return &Document{Data: img.Data, ContentType: img.ContentType, Ext: img.Ext()}, nil
}

// ReadDocumentUpload reads the document of a multipart/form-data upload
// (the first part named "file") under the bounds and failures of
// ReadImageUpload, and judges it with CheckDocument.
func ReadDocumentUpload(w http.ResponseWriter, r *http.Request, maxBytes int64) (*Document, error) {
	var doc *Document
	err := readUpload(w, r, maxBytes, "a PDF or a JPEG, PNG or WebP image", func(ctx context.Context, part io.Reader) error {
		data, err := readAtMost(part, maxBytes)
		if err != nil {
			return err
		}
		doc, err = CheckDocument(ctx, data, maxBytes)
		return err
	})
	return doc, err
}
