package guidehttp_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// floodPNG is a PNG that declares w×h RGBA pixels and holds none: a
// decompression bomb, were its pixels allocated.
func floodPNG(w, h uint32) []byte {
	chunk := func(typ string, data []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		out = append(append(out, typ...), data...)
		return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	out := append([]byte("\x89PNG\r\n\x1a\n"), chunk("IHDR", ihdr)...)
	out = append(out, chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, chunk("IEND", nil)...)
}

// TestPackageImages: the package's expert (or an admin) uploads images
// through the avatar sanitiser; each is stored under the package as a
// path, shown on the public URL, served, in the catalogue at once, and
// recorded as a package.updated event. Others are refused as PATCH
// refuses them, hostile files before anything is stored, and an eleventh
// image with 409. PATCH keeps, moves or drops uploads (a dropped one's
// file is removed by a job) but never adds one.
func TestPackageImages(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			b := newBookingEnv(t, engine)
			id := b.packageID
			images := func() []string {
				t.Helper()
				var raw string
				if err := b.db.QueryRow(`SELECT images FROM packages WHERE id = $1`, id).Scan(&raw); err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, f := range strings.Split(strings.Trim(raw, "[]"), ",") {
					if f = strings.Trim(f, `" `); f != "" {
						out = append(out, f)
					}
				}
				return out
			}
			events := func() int {
				return b.count(t, `SELECT COUNT(*) FROM events WHERE type = 'package.updated' AND data LIKE $1`, "%"+id+"%")
			}
			post := func(cred string, data []byte) *apitest.Response {
				ct, body := upload(t, "file", "photo.png", data)
				return b.Do("POST", "/api/v1/packages/"+id+"/images", body, append(bearer(cred), "Content-Type", ct)...)
			}
			start := images()
			var before struct{ Data guide.PackageDetail }
			b.Get("/api/v1/packages/" + id).Expect(200).Decode(&before) // now cached

			var res struct{ Data guide.ExpertPackage }
			up := post(b.expert.token, pngBytes(t, 64, 48)).Expect(201)
			up.Decode(&res)
			loc := up.Header.Get("Location")
			u, err := url.Parse(loc)
			if err != nil || !strings.HasPrefix(loc, publicURL+"/media/packages/"+id+"/") || !strings.HasSuffix(loc, ".jpg") {
				t.Fatalf("Location %q", loc)
			}
			if res.Data.ID != id || len(res.Data.Images) != len(start)+1 || res.Data.Images[len(start)] != loc {
				t.Fatalf("answer images %q, want %q last", res.Data.Images, loc)
			}
			stored := images()
			if len(stored) != len(start)+1 || stored[len(start)] != u.Path {
				t.Fatalf("stored %q, want the path %q last", stored, u.Path)
			}
			if n := events(); n != 1 {
				t.Fatalf("%d package.updated events", n)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM events WHERE type = 'package.updated' AND data LIKE $1`, "%"+loc+"%"); n != 1 {
				t.Fatal("the event does not show the image on the public URL")
			}
			served := b.Get(u.Path).Expect(200)
			if served.Header.Get("Content-Type") != "image/jpeg" || served.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("served as %q", served.Header.Get("Content-Type"))
			}
			if cfg, _, err := image.DecodeConfig(bytes.NewReader(served.Body)); err != nil || cfg.Width != 64 || cfg.Height != 48 {
				t.Errorf("served image %+v %v", cfg, err)
			}
			var after struct{ Data guide.PackageDetail }
			b.Get("/api/v1/packages/" + id).Expect(200).Decode(&after)
			if !slices.Contains(after.Data.Images, loc) {
				t.Fatalf("the catalogue (cached before) shows %q", after.Data.Images)
			}

			// Others, keys and unknown packages are refused as PATCH
			// refuses them; an admin may upload.
			post(b.stranger.token, pngBytes(t, 8, 8)).Expect(403)
			post(b.tourist.token, pngBytes(t, 8, 8)).Expect(403)
			post(b.apiKey(t, b.expert, "profile:write", "bookings:write"), pngBytes(t, 8, 8)).Expect(403)
			ct, body := upload(t, "file", "a.png", pngBytes(t, 8, 8))
			b.Do("POST", "/api/v1/packages/0193a4f2-7b1c-7d3e-8a4f-5b6c7d8e9f01/images", body, append(bearer(b.expert.token), "Content-Type", ct)...).Expect(404)
			if got := images(); len(got) != len(stored) {
				t.Fatalf("refused uploads changed the images: %q", got)
			}
			post(b.admin.token, pngBytes(t, 20, 20)).Expect(201)

			// Hostile and wrong files: nothing stored, no event.
			for _, c := range []struct {
				name   string
				data   []byte
				status int
			}{
				{"not an image", []byte("<html><body>hi</body></html>"), 415},
				{"decompression bomb", floodPNG(100000, 100000), 400},
				{"over 5 MB", bytes.Repeat([]byte{0}, 6<<20), 413},
			} {
				if res := post(b.expert.token, c.data); res.Status != c.status {
					t.Errorf("%s: %d %s, want %d", c.name, res.Status, res.Body, c.status)
				}
			}
			b.Do("POST", "/api/v1/packages/"+id+"/images", `{"file":"x"}`, bearer(b.expert.token)...).Expect(415)
			full := images()
			if len(full) != len(start)+2 || events() != 2 {
				t.Fatalf("after refusals: %q, %d events", full, events())
			}

			// Up to ten images, then 409 before the file is read.
			for len(images()) < guide.MaxPackageImages {
				post(b.expert.token, pngBytes(t, 10+len(images()), 10)).Expect(201)
			}
			if res := post(b.expert.token, pngBytes(t, 9, 9)).Expect(409); res.ErrorCode() != "CONFLICT" {
				t.Fatalf("eleventh image: %s", res.Body)
			} else {
				// The REST door names its own route where the service says
				// "drop one first".
				var e struct{ Error struct{ Message string } }
				res.Decode(&e)
				want := "The package has 10 images, the most it may have: drop one with PATCH /api/v1/packages/{id} first."
				if diff := cmp.Diff(want, e.Error.Message); diff != "" {
					t.Errorf("eleventh image message (-want +got):\n%s", diff)
				}
			}
			full = images()
			if len(full) != guide.MaxPackageImages {
				t.Fatalf("%d images", len(full))
			}

			// PATCH drops the first upload and moves the second first; the
			// dropped file's removal is queued with the change.
			dropped, kept := full[len(start)], full[len(start)+1]
			var list []string
			list = append(list, publicURL+kept)
			for _, img := range full {
				if img != dropped && img != kept {
					list = append(list, publicURL+img)
				}
			}
			b.Do("PATCH", "/api/v1/packages/"+id, map[string]any{"images": list}, bearer(b.expert.token)...).Expect(200)
			if got := images(); len(got) != guide.MaxPackageImages-1 || got[0] != kept || slices.Contains(got, dropped) {
				t.Fatalf("after PATCH: %q", got)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'blob.delete' AND CAST(payload AS TEXT) LIKE $1`, "%"+strings.TrimPrefix(dropped, "/media/")+"%"); n != 1 {
				t.Fatalf("%d removal jobs for the dropped image", n)
			}
			if n := b.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'blob.delete'`); n != 1 {
				t.Fatalf("%d removal jobs in all", n)
			}
			// Neither the dropped upload nor another package's comes back by
			// PATCH, whatever the spelling of its path.
			other := b.otherPkg + "/x.jpg"
			for _, img := range []string{dropped, "/media/packages/" + other, "/media/./packages/" + other, "/media//packages/" + other,
				"/media/packages/./" + other, "/media/%2e/packages/" + other, "/media/sample/../packages/" + other} {
				res := b.Do("PATCH", "/api/v1/packages/"+id, map[string]any{"images": append(slices.Clone(list), publicURL+img)}, bearer(b.expert.token)...).Expect(400)
				if img == dropped {
					want := map[string]any{"images": "an uploaded image that is not this package's; add one with POST /api/v1/packages/{id}/images"}
					if diff := cmp.Diff(want, res.ErrorDetails()); diff != "" {
						t.Errorf("dropped upload details (-want +got):\n%s", diff)
					}
				}
				// Not this package's ("images"), or not a clean path ("images[9]").
				if d := res.ErrorDetails(); d["images"] == nil && d["images["+strconv.Itoa(len(list))+"]"] == nil {
					t.Errorf("%s: %s", img, res.Body)
				}
			}
			if got := images(); len(got) != guide.MaxPackageImages-1 || slices.ContainsFunc(got, func(img string) bool { return strings.Contains(img, b.otherPkg) }) {
				t.Fatalf("after the refused PATCHes: %q", got)
			}
			// A new package cannot start with an upload either.
			if res := b.Do("POST", "/api/v1/packages", map[string]any{
				"title": map[string]any{"en": "Borrowed"}, "description": map[string]any{"en": "Images of another."}, "category": "city_tour",
				"basePrice": 1, "currency": "JPY", "duration": 1, "maxParticipants": 1, "images": []string{publicURL + kept},
			}, bearer(b.expert.token)...).Expect(400); res.ErrorDetails()["images"] == nil {
				t.Errorf("create with an upload: %s", res.Body)
			}
		})
	}
}

// TestPackageImageUploadLimit: each user has a budget of package image
// uploads an hour, spent by every attempt and refused with 429 before the
// body is read.
func TestPackageImageUploadLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{imageLimit: 2})
	expert := e.tokenFor(t, "expert@example.com")
	var id string
	if err := e.db.QueryRow(`SELECT p.id FROM packages p JOIN experts x ON x.id = p.expert_id WHERE x.user_id = $1 ORDER BY p.id LIMIT 1`, expert.id).Scan(&id); err != nil {
		t.Fatal(err)
	}
	post := func(data []byte) *apitest.Response {
		ct, body := upload(t, "file", "a.png", data)
		return e.Do("POST", "/api/v1/packages/"+id+"/images", body, append(bearer(expert.token), "Content-Type", ct)...)
	}
	post(pngBytes(t, 16, 16)).Expect(201)
	post([]byte("GIF89a")).Expect(415) // a refused upload counts too
	res := post(pngBytes(t, 16, 16)).Expect(429)
	if res.ErrorCode() != "RATE_LIMITED" || res.Header.Get("Retry-After") == "" || res.Header.Get("X-RateLimit-Limit") != "2" {
		t.Fatalf("429: %v %s", res.Header, res.Body)
	}
	e.clock.Advance(time.Hour)
	post(pngBytes(t, 16, 16)).Expect(201)
}
