package main_test

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image/color"
	"image/png"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAvatarUploadMemory: eight concurrent uploads of the largest
// picture accepted, 4000×4000 pixels of 16-bit colour (128 MB decoded)
// in a file of nearly 5 MB, keep the server under 400 MB resident: the
// bodies beyond the 32 MB upload budget wait unread and the decodes (1 GB
// if they all ran at once) queue for the heavy-work budget. The
// peak is the kernel's high-water mark of the server's resident memory
// (VmHWM), reset once the server is up; it is reported and asserted on,
// never a time.
func TestAvatarUploadMemory(t *testing.T) {
	t.Parallel()
	p := newProcess(t, build(t))
	p.env = append(p.env, "SAMPLE_DATA=off")
	p.start()
	pid := strconv.Itoa(p.cmd.Process.Pid)
	tokens := make([]string, 8)
	for i := range tokens {
		status, res := p.call("POST", "/api/v1/auth/register", "", map[string]string{
			"email": fmt.Sprintf("memory%d@example.com", i), "password": "correct-horse-1", "name": "Memory", "role": "TOURIST"})
		if status != 201 {
			t.Fatalf("register: %d %v", status, res)
		}
		tokens[i] = res["token"].(string)
	}
	picture := hugePNG(t)
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "huge.png")
	fw.Write(picture)
	mw.Close()

	if err := os.WriteFile("/proc/"+pid+"/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the server's resident high-water mark: %v", err)
	}
	start := statusKB(t, pid, "VmHWM")
	var wg sync.WaitGroup
	for _, token := range tokens {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", p.base+"/api/v1/profile/avatar", bytes.NewReader(form.Bytes()))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Errorf("upload: %d", res.StatusCode)
			}
		})
	}
	wg.Wait()
	peak := statusKB(t, pid, "VmHWM")
	t.Logf("%d concurrent uploads of a %d KB 4000×4000 16-bit PNG: server resident peak %d MB (%d MB before)", len(tokens), len(picture)>>10, peak>>10, start>>10)
	if peak>>10 >= 400 {
		t.Errorf("resident peak %d MB, want under 400 MB", peak>>10)
	}
}

// hugePNG writes a 4000×4000 RGB PNG of 16-bit samples by hand: 190 rows
// of noise in stored (uncompressed) deflate blocks, which make the file
// nearly 5 MB, then one constant row compressed once and repeated. The
// image encoder would take minutes under the race detector.
func hugePNG(t *testing.T) []byte {
	t.Helper()
	const w, h, noisy = 4000, 4000, 190
	row := make([]byte, 1+6*w) // filter byte 0, then R, G, B as 16-bit big-endian
	sum := adler32.New()
	var z bytes.Buffer
	z.Write([]byte{0x78, 0x01})
	rng := rand.New(rand.NewPCG(1, 2))
	for range noisy {
		for i := 1; i < len(row); i++ {
			row[i] = byte(rng.Uint32())
		}
		sum.Write(row)
		for chunk := row; len(chunk) > 0; { // stored blocks of at most 65535 bytes
			n := min(len(chunk), 65535)
			z.WriteByte(0) // not final, stored
			z.Write(binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(nil, uint16(n)), ^uint16(n)))
			z.Write(chunk[:n])
			chunk = chunk[n:]
		}
	}
	for i := 1; i < len(row); i += 2 {
		row[i], row[i+1] = 0x80, 0x40
	}
	var block bytes.Buffer // one row, compressed without history and flushed to a byte boundary
	fw, _ := flate.NewWriter(&block, flate.BestSpeed)
	fw.Write(row)
	fw.Flush()
	for range h - noisy {
		z.Write(block.Bytes())
		sum.Write(row)
	}
	z.Write([]byte{1, 0, 0, 0xff, 0xff}) // the final, empty stored block
	z.Write(sum.Sum(nil))

	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		out.Write(binary.BigEndian.AppendUint32(nil, uint32(len(data))))
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		out.WriteString(typ)
		out.Write(data)
		out.Write(crc.Sum(nil))
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)
	chunk("IHDR", append(ihdr, 16, 2, 0, 0, 0)) // 16-bit, RGB, deflate, no filter method variant, not interlaced
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	cfg, err := png.DecodeConfig(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatalf("the picture: %v", err)
	}
	got := map[string]any{
		"width": cfg.Width, "height": cfg.Height, "rgba64": cfg.ColorModel == color.RGBA64Model, "fits": out.Len() <= 5<<20,
	}
	want := map[string]any{"width": w, "height": h, "rgba64": true, "fits": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the picture, %d bytes (-want +got):\n%s", out.Len(), diff)
	}
	return out.Bytes()
}

// statusKB reads a field of /proc/<pid>/status, such as VmHWM, in kB.
func statusKB(t *testing.T, pid, field string) int {
	t.Helper()
	status, err := os.ReadFile("/proc/" + pid + "/status")
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
	t.Fatalf("no %s in /proc/%s/status", field, pid)
	return 0
}
