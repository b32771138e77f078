package guideapi_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestAvatarUploadMemory: sixteen concurrent uploads of the largest
// picture accepted, 4000×4000 pixels of 16-bit colour (128 MB decoded),
// through the real router keep the process under 400 MB resident: the
// decodes queue for the heavy-work budget instead of running at once. The
// peak is the kernel's high-water mark of resident memory (VmHWM), reset
// before the uploads; it is reported, and asserted on, not any time.
func TestAvatarUploadMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes sixteen 16-megapixel images")
	}
	e := newEnv(t, options{noSample: true})
	users := make([]user, 16)
	for i := range users {
		users[i] = e.register(t, fmt.Sprintf("memory%d@example.com", i), "TOURIST")
	}
	ct, body := upload(t, "file", "huge.png", png16(t, 4000, 4000))
	if len(body) > 5<<20 {
		t.Fatalf("the picture is %d bytes, over the 5 MB an avatar may have", len(body))
	}

	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the resident high-water mark: %v", err)
	}
	start := residentKB(t, "VmHWM")
	var wg sync.WaitGroup
	for _, u := range users {
		wg.Go(func() {
			// One body shared by all: a real client's bytes would not be in
			// this process.
			if res := e.Do("POST", "/api/v1/profile/avatar", body, append(bearer(u.token), "Content-Type", ct)...); res.Status != 200 {
				t.Errorf("upload: %d %s", res.Status, res.Body)
			}
		})
	}
	wg.Wait()
	peak := residentKB(t, "VmHWM")
	t.Logf("16 concurrent 4000×4000 16-bit PNG uploads (%d KB each): resident peak %d MB (%d MB before)", len(body)>>10, peak>>10, start>>10)
	if peak>>10 >= 400 {
		t.Errorf("resident peak %d MB, want under 400 MB", peak>>10)
	}
	if n := e.count(t, `SELECT COUNT(*) FROM users WHERE avatar_key IS NOT NULL`); n != len(users) {
		t.Errorf("%d avatars stored, want %d", n, len(users))
	}
}

// png16 encodes a w×h picture of 16-bit colour: smooth but for noise in
// its first rows, so that the file is nearly the 5 MB an avatar may have
// (each upload's bytes are held while it waits its turn).
func png16(t *testing.T, w, h int) []byte {
	t.Helper()
	m := image.NewNRGBA64(image.Rect(0, 0, w, h))
	noise := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			c := color.NRGBA64{uint16(x * 16), uint16(y * 16), 0x8000, 0xffff}
			if y < 430 {
				c.B = uint16(noise.Uint32())
			}
			m.SetNRGBA64(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// residentKB reads a line of /proc/self/status, such as VmHWM, in kB.
func residentKB(t *testing.T, field string) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				t.Fatalf("%s: %q", field, line)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}
