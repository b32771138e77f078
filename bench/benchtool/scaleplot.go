package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// scaleName matches the name and iterations of a line of
// BenchmarkCatalogScale or BenchmarkCatalogHTTP: engine, scale, case (none
// for BenchmarkCatalogHTTP, whose line is every page through the router),
// then the metrics. go test appends "-GOMAXPROCS" to a name only when it
// is not 1, and bench/run.sh runs the benchmarks with GOMAXPROCS=1, so the
// suffix is optional. Other benchmarks of the scale output (the property
// date search) are not catalogue pages and are left out.
var scaleName = regexp.MustCompile(`^BenchmarkCatalog(?:Scale|HTTP)/(sqlite|postgres)/x(\d+)(?:/([\w-]+?))?(?:-\d+)?\s+\d+\s+(.+)$`)

// httpCase names the series of BenchmarkCatalogHTTP.
const httpCase = "http-every-page"

// scalePoint is one page case of the catalogue at one scale.
type scalePoint struct {
	engine, series  string
	scale, p50, p99 float64
}

// parseScaleLine reads one line of `go test -bench` output. Its metrics
// are value-unit pairs in the order the testing package prints them
// (ns/op, then the reported ones by name), so p50-ms and p99-ms are found
// by their unit, not by their place. The recount case measures a count,
// not a page, and is left out.
func parseScaleLine(line string) (scalePoint, bool) {
	m := scaleName.FindStringSubmatch(line)
	if m == nil || m[3] == "experts-recount" {
		return scalePoint{}, false
	}
	p := scalePoint{engine: m[1], series: m[3]}
	if p.series == "" {
		p.series = httpCase
	}
	p.scale, _ = strconv.ParseFloat(m[2], 64)
	fields := strings.Fields(m[4])
	var seen50, seen99 bool
	for i := 0; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return scalePoint{}, false
		}
		switch fields[i+1] {
		case "p50-ms":
			p.p50, seen50 = v, true
		case "p99-ms":
			p.p99, seen99 = v, true
		}
	}
	if !seen50 || !seen99 {
		return scalePoint{}, false
	}
	return p, true
}

// scalePlot draws the growth curves of the catalogue pages: the p99 of
// each page case against the catalogue scale, both axes logarithmic, one
// panel per engine, from `go test -bench` output.
//
//	benchtool scaleplot -in catalog.txt -out bench/scale.png
func scalePlot(args []string) error {
	fs := flag.NewFlagSet("scaleplot", flag.ExitOnError)
	in := fs.String("in", "", "go test -bench output")
	out := fs.String("out", "bench/scale.png", "the PNG to write")
	machine := fs.String("machine", "", "where it was measured, for the caption (none when empty)")
	fs.Parse(args)
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	type point struct{ scale, p50, p99 float64 }
	series := map[string][]point{} // engine/case
	var names, cases []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p, ok := parseScaleLine(sc.Text())
		if !ok {
			continue
		}
		key := p.engine + "/" + p.series
		if _, ok := series[key]; !ok {
			names = append(names, key)
		}
		if !slices.Contains(cases, p.series) {
			cases = append(cases, p.series)
		}
		series[key] = append(series[key], point{p.scale, p.p50, p.p99})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("%s: no benchmark lines with p50-ms and p99-ms", *in)
	}
	const width, height, panelW, left, top, plotH = 1300, 620, 560, 70, 70, 380
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	black, grey, red := color.RGBA{0, 0, 0, 255}, color.RGBA{225, 225, 225, 255}, color.RGBA{214, 39, 40, 255}
	text(img, 10, 16, black, "Uncached catalogue list pages: p99 (solid) and p50 (dots) in ms against the catalogue scale (x1 = 49 experts), log-log")
	text(img, 10, 32, black, httpCase+": every documented filter, sort and locale, pages 1-50, through the router (BenchmarkCatalogHTTP)")
	caption := "the red line is the 10 ms p99 target"
	if *machine != "" {
		caption = "measured on " + *machine + "; " + caption
	}
	text(img, 10, 48, black, caption)
	palette := []color.RGBA{{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {23, 190, 207, 255}, {127, 127, 127, 255}}
	maxScale := 1.0
	for _, pts := range series {
		for _, p := range pts {
			maxScale = math.Max(maxScale, p.scale)
		}
	}
	lo, hi := 0.1, 1000.0
	for e, engine := range []string{"sqlite", "postgres"} {
		x0 := left + e*(panelW+80)
		x := func(s float64) int {
			return x0 + int(float64(panelW)*math.Log10(s)/math.Max(1, math.Log10(maxScale)))
		}
		y := func(ms float64) int {
			ms = math.Max(lo, math.Min(hi, ms))
			return top + plotH - int(float64(plotH)*(math.Log10(ms)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo)))
		}
		text(img, x0, top-10, black, engine)
		for _, t := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
			fill(img, x0, y(t), panelW, 1, grey)
			text(img, x0-45, y(t)+4, black, trimFloat(t))
		}
		fill(img, x0, y(10), panelW, 2, red)
		for s := 1.0; s <= maxScale; s *= 10 {
			fill(img, x(s), top, 1, plotH, grey)
			text(img, x(s)-10, top+plotH+18, black, "x"+trimFloat(s))
		}
		row := 0
		for _, name := range names {
			if name[:len(engine)] != engine {
				continue
			}
			i := slices.Index(cases, name[len(engine)+1:])
			pts := slices.Clone(series[name])
			slices.SortFunc(pts, func(a, b point) int { return int(a.scale - b.scale) })
			c := palette[i%len(palette)]
			for j, p := range pts {
				fill(img, x(p.scale)-3, y(p.p99)-3, 7, 7, c)
				fill(img, x(p.scale)-1, y(p.p50)-1, 3, 3, c)
				if j > 0 {
					segment(img, x(pts[j-1].scale), y(pts[j-1].p99), x(p.scale), y(p.p99), c)
				}
			}
			lx, ly := x0+10+(row%2)*280, top+plotH+34+(row/2)*14
			fill(img, lx, ly, 10, 10, c)
			text(img, lx+16, ly+9, black, name[len(engine)+1:])
			row++
		}
	}
	w, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := png.Encode(w, img); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// segment draws a line from (x0, y0) to (x1, y1), two pixels thick.
func segment(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	n := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= n; i++ {
		fill(img, x0+(x1-x0)*i/n, y0+(y1-y0)*i/n, 2, 2, c)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
