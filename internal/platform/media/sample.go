package media

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"hash/fnv"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"regexp"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/wayfarer-asia/platform/internal/platform/admission"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

var sampleName = regexp.MustCompile(`^[a-z0-9-]{1,100}\.jpg$`)

// Size is the width and height of a picture.
type Size struct{ Width, Height int }

// maxSampleImages bounds the pictures SampleImages keeps. The sample data
// names a fixed set (about 800 on the guide API, 256 on the property
// API); made-up names are drawn too, but can only take an arbitrary
// picture's place, never grow the cache.
const maxSampleImages = 1024

// SampleImages serves the pictures sample data links to, at
// /media/sample/{kind}/{name}.jpg: a soft two-colour gradient derived from
// the name, so every sample image URL shows a distinct, stable picture
// without shipping image files. sizes names the kinds served.
//
// Each picture is drawn once (under admission.Do; concurrent first requests
// share the drawing) and kept in memory, at most maxSampleImages of them.
// It is served with a strong ETag, a digest of its bytes, and answered
// 304 on a matching If-None-Match; Cache-Control lets clients keep it a
// day. Mount it behind the API's per-client rate limit.
func SampleImages(sizes map[string]Size) httpx.HandlerFunc {
	c := &sampleCache{images: map[string]*sampleImage{}}
	return func(w http.ResponseWriter, r *http.Request) error {
		kind, name := r.PathValue("kind"), r.PathValue("name")
		size, ok := sizes[kind]
		if !ok || !sampleName.MatchString(name) {
			return apperr.Errorf(apperr.NotFound, "No sample image %s/%s.", kind, name)
		}
		img, err := c.get(r, kind+"/"+name, size)
		if err != nil {
			return err
		}
		h := w.Header()
		h.Set("Content-Type", "image/jpeg")
		h.Set("Cache-Control", "public, max-age=86400")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("ETag", img.etag)
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(img.data))
		return nil
	}
}

type sampleImage struct {
	data []byte
	etag string // strong: a digest of data
}

type sampleCache struct {
	mu      sync.Mutex
	images  map[string]*sampleImage
	drawing singleflight.Group
}

func (c *sampleCache) get(r *http.Request, key string, size Size) (*sampleImage, error) {
	c.mu.Lock()
	img := c.images[key]
	c.mu.Unlock()
	if img != nil {
		return img, nil
	}
	v, err, _ := c.drawing.Do(key, func() (any, error) {
		var data []byte
		var err error
		if herr := admission.Do(r.Context(), 4*int64(size.Width)*int64(size.Height), func() { data, err = drawSample(key, size) }); herr != nil {
			return nil, herr
		}
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		img := &sampleImage{data: data, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`}
		c.mu.Lock()
		if len(c.images) >= maxSampleImages {
			for k := range c.images { // an arbitrary one
				delete(c.images, k)
				break
			}
		}
		c.images[key] = img
		c.mu.Unlock()
		return img, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*sampleImage), nil
}

// drawSample draws the gradient of the picture named key ("kind/name").
func drawSample(key string, size Size) ([]byte, error) {
	h := fnv.New64a()
	h.Write([]byte(key))
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
		return nil, err
	}
	return buf.Bytes(), nil
}

func pastel(r, g, b uint8) color.RGBA {
	return color.RGBA{128 + r/2, 128 + g/2, 128 + b/2, 255}
}

func mix(a, b uint8, t float64) uint8 { return uint8(float64(a)*(1-t) + float64(b)*t) }
