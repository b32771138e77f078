package httpapi

import (
	"bytes"
	"hash/fnv"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"regexp"

	"github.com/wayfarer-asia/platform/internal/apperr"
)

var sampleName = regexp.MustCompile(`^[a-z0-9-]{1,100}\.jpg$`)

// Size is the width and height of a picture.
type Size struct{ Width, Height int }

// SampleImages serves the pictures sample data links to, at
// /media/sample/{kind}/{name}.jpg: a soft two-colour gradient derived from
// the name, so every sample image URL shows a distinct, stable picture
// without shipping image files. sizes names the kinds served.
func SampleImages(sizes map[string]Size) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		kind, name := r.PathValue("kind"), r.PathValue("name")
		size, ok := sizes[kind]
		if !ok || !sampleName.MatchString(name) {
			return apperr.Errorf(apperr.NotFound, "No sample image %s/%s.", kind, name)
		}
		h := fnv.New64a()
		h.Write([]byte(kind + "/" + name))
		sum := h.Sum64()
		from := pastel(uint8(sum), uint8(sum>>8), uint8(sum>>16))
		to := pastel(uint8(sum>>24), uint8(sum>>32), uint8(sum>>40))
		img := image.NewRGBA(image.Rect(0, 0, size.Width, size.Height))
		for y := range size.Height {
			for x := range size.Width {
				t := float64(x+y) / float64(size.Width+size.Height)
				img.SetRGBA(x, y, color.RGBA{mix(from.R, to.R, t), mix(from.G, to.G, t), mix(from.B, to.B, t), 255})
			}
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "image/jpeg")
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(buf.Bytes())
		return nil
	}
}

func pastel(r, g, b uint8) color.RGBA {
	return color.RGBA{128 + r/2, 128 + g/2, 128 + b/2, 255}
}

func mix(a, b uint8, t float64) uint8 { return uint8(float64(a)*(1-t) + float64(b)*t) }
