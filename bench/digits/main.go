// Command digits writes an MNIST-like multi-class set in LIBSVM format (issue
// 44): 28×28 images of k classes (default 10), each class a few strokes
// whose end points, thickness and ink vary from row to row, values in
// [0, 1], most pixels 0 (about 80 %, as MNIST's); the six corner pixels of
// the top row are left out, so that a row has 778 features. Rows cycle
// through the classes. The data depend only on the flags.
//
//	go run ./bench/digits -n 10000 -seed 1 > /tmp/digits10k
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
)

const side = 28

type stroke struct{ x0, y0, x1, y1 float64 }

func main() {
	n := flag.Int("n", 10000, "rows")
	k := flag.Int("classes", 10, "classes")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	rng := rand.New(rand.NewPCG(*seed, 44))
	// Each class: three strokes inside the central 20×20 box.
	proto := make([][]stroke, *k)
	for c := range proto {
		for range 3 {
			proto[c] = append(proto[c], stroke{4 + 20*rng.Float64(), 4 + 20*rng.Float64(), 4 + 20*rng.Float64(), 4 + 20*rng.Float64()})
		}
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	img := make([]float64, side*side)
	for i := 0; i < *n; i++ {
		c := i % *k
		clear(img)
		dx, dy := 2*rng.NormFloat64(), 2*rng.NormFloat64() // the whole digit shifts
		thick := 1.4 + 1.0*rng.Float64()
		ink := 0.6 + 0.4*rng.Float64()
		for _, s := range proto[c] {
			j := func() float64 { return 1.5 * rng.NormFloat64() }
			draw(img, s.x0+dx+j(), s.y0+dy+j(), s.x1+dx+j(), s.y1+dy+j(), thick, ink)
		}
		for p := range img { // pixel noise, as scanning leaves
			if img[p] > 0 {
				img[p] = min(1, max(0, img[p]+0.05*rng.NormFloat64()))
			}
		}
		fmt.Fprint(w, c)
		f := 0
		for p, v := range img {
			if p < 3 || (p >= side-3 && p < side) { // six top corner pixels out
				continue
			}
			f++
			if v > 0 || f == side*side-6 { // the last always: 778 features
				w.WriteString(" " + strconv.Itoa(f) + ":" + strconv.FormatFloat(math.Round(v*1000)/1000, 'g', -1, 64))
			}
		}
		w.WriteByte('\n')
	}
}

// draw inks the segment (x0,y0)–(x1,y1) of the given half-thickness into
// img: a pixel at distance t from it gets ink·(1 − t/thick) (clipped to
// [0, 1], the maximum over strokes).
func draw(img []float64, x0, y0, x1, y1, thick, ink float64) {
	vx, vy := x1-x0, y1-y0
	l2 := vx*vx + vy*vy
	for y := 0; y < side; y++ {
		for x := 0; x < side; x++ {
			px, py := float64(x)-x0, float64(y)-y0
			t := 0.0
			if l2 > 0 {
				t = min(1, max(0, (px*vx+py*vy)/l2))
			}
			ex, ey := px-t*vx, py-t*vy
			d := math.Sqrt(ex*ex + ey*ey)
			if d < thick {
				v := ink * (1 - d/thick*0.7)
				img[y*side+x] = max(img[y*side+x], min(1, v))
			}
		}
	}
}
