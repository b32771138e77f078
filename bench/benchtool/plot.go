package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// plotLatency draws, for every workload, the p50 (light) and p99 (dark)
// latency at half the maximum rate of each system, on a logarithmic axis
// with the 10 ms target marked.
func plotLatency(path string, aggs map[string]*Agg) error {
	type series struct {
		label  string
		system string
		db     string
		col    color.RGBA
	}
	systems := []series{
		{"ours SQLite", "ours", "sqlite", color.RGBA{31, 119, 180, 255}},
		{"ours PostgreSQL", "ours", "postgres", color.RGBA{44, 160, 44, 255}},
		{"ceiling", "ceiling", "", color.RGBA{127, 127, 127, 255}},
		{"PocketBase", "peer", "sqlite", color.RGBA{214, 39, 40, 255}},
	}
	const (
		width, left, right, top = 1300, 230, 230, 60
		barH, barGap, groupGap  = 10, 3, 16
	)
	rows := len(ourWorkloads) * len(systems)
	height := top + len(ourWorkloads)*(groupGap) + rows*(barH+barGap) + 70
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)

	// Axis: 0.05 ms to the next power of ten above the largest p99 (at least 100 ms).
	lo, hi := 0.05, 100.0
	for _, a := range aggs {
		if a.Phase == "fixed" && a.P99 > hi {
			hi = math.Pow(10, math.Ceil(math.Log10(a.P99)))
		}
	}
	plotW := float64(width - left - right)
	x := func(ms float64) int {
		ms = math.Max(lo, math.Min(hi, ms))
		return left + int(plotW*(math.Log10(ms)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo)))
	}
	black := color.RGBA{0, 0, 0, 255}
	grey := color.RGBA{220, 220, 220, 255}
	text(img, 10, 20, black, "Latency at half the measured maximum rate: p50 (light) and p99 (dark), milliseconds, log scale")
	text(img, 10, 38, black, "median of the runs; one core of server time (taskset -c 0, GOMAXPROCS=1); the red line is the 10 ms p99 target")
	bottom := height - 50
	for _, tick := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000} {
		if tick < lo || tick > hi {
			continue
		}
		tx := x(tick)
		fill(img, tx, top-5, 1, bottom-top+5, grey)
		text(img, tx-8, bottom+16, black, trimFloat(tick))
	}
	fill(img, x(10), top-5, 2, bottom-top+5, color.RGBA{214, 39, 40, 255})

	y := top
	for _, w := range ourWorkloads {
		text(img, 10, y+barH+2, black, w)
		for _, s := range systems {
			wl := w
			switch s.system {
			case "ceiling":
				wl = ceilingOf(w)
			case "peer":
				wl = peerOf[w]
			}
			a := aggs[key(s.system, s.db, wl, "fixed")]
			text(img, 110, y+barH, s.col, s.label)
			if a != nil {
				light := color.RGBA{uint8((int(s.col.R) + 2*255) / 3), uint8((int(s.col.G) + 2*255) / 3), uint8((int(s.col.B) + 2*255) / 3), 255}
				fill(img, left, y, x(a.P99)-left, barH, s.col)
				fill(img, left, y, x(a.P50)-left, barH, light)
				text(img, x(a.P99)+4, y+barH, black, fmt.Sprintf("%.2f / %.2f ms at %.0f/s", a.P50, a.P99, a.TargetRate))
			} else {
				text(img, left+4, y+barH, grey, "not measured")
			}
			y += barH + barGap
		}
		y += groupGap
	}
	fill(img, left, top-5, 1, bottom-top+5, black)
	text(img, left, bottom+34, black, "ms")

	f, err := os.Create(filepath.Clean(path))
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fill(img *image.RGBA, x, y, w, h int, c color.Color) {
	if w <= 0 {
		w = 1
	}
	draw.Draw(img, image.Rect(x, y, x+w, y+h), image.NewUniform(c), image.Point{}, draw.Src)
}

func text(img *image.RGBA, x, y int, c color.Color, s string) {
	d := &font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func trimFloat(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%g", f)
}
