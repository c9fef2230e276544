// Command svmbench is the kerneltune side of bench/libsvm.sh: it writes the
// synthetic benchmark files and times the solver on a LIBSVM file exactly as
// svm-train is run (C-SVC, Gaussian kernel, same C, γ, eps, cache size and
// shrinking), printing one line with the wall time, #iter, obj, ρ and nSV.
//
//	svmbench gen -n 5000 -d 20 -seed 1 -o FILE
//	svmbench train -c 1 -g 0.0625 -e 1e-3 -m 200 [-workers 1] FILE
//
// It reads the file with its own minimal parser so that the benchmark does not
// depend on the train command or the dataio package.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: svmbench gen|train [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "train":
		err = train(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "svmbench:", err)
		os.Exit(1)
	}
}

// gen writes n points of the two-Gaussian mixture used by BenchmarkSolve:
// label ±1 with probability ½, x = y·(sep/2)/√d·1 + N(0, I).
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	n := fs.Int("n", 5000, "points")
	d := fs.Int("d", 20, "dimension")
	sep := fs.Float64("sep", 2, "distance between the class means")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("o", "", "output file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *n < 1 || *d < 1 {
		return fmt.Errorf("gen: want -o FILE, -n ≥ 1 and -d ≥ 1 (got %q, %d, %d)", *out, *n, *d)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close() // after a write error; the Close below reports the normal case
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(*seed, 7))
	for range *n {
		y := 1.0
		if rng.IntN(2) == 0 {
			y = -1
		}
		fmt.Fprintf(w, "%+g", y)
		for k := range *d {
			v := y**sep/2/math.Sqrt(float64(*d)) + rng.NormFloat64()
			fmt.Fprintf(w, " %d:%s", k+1, strconv.FormatFloat(v, 'g', 17, 64))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func train(args []string) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	c := fs.Float64("c", 1, "C")
	g := fs.Float64("g", 0, "LIBSVM's γ (0: 1/d)")
	eps := fs.Float64("e", 1e-3, "stopping tolerance")
	cacheMB := fs.Int("m", 200, "cache size in MB")
	shrink := fs.Int("h", 1, "shrinking (0/1)")
	workers := fs.Int("workers", 0, "goroutines of the solve (solver.Settings.Workers; 1 = serial, 0 = default)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the solve to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("train: want one data file")
	}
	start := time.Now()
	X, y, err := read(fs.Arg(0))
	if err != nil {
		return err
	}
	_, d := X.Dims()
	if *g == 0 {
		*g = 1 / float64(d)
	}
	k, err := kernel.NewGaussianIso(*g)
	if err != nil {
		return err
	}
	if *cpuprofile != "" {
		pf, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	t0 := time.Now()
	r, err := solver.TrainSVC(context.Background(), k.Rows(X), y, solver.SVCParams{C: *c},
		solver.Settings{Eps: *eps, CacheBytes: *cacheMB << 20, NoShrinking: *shrink == 0, Workers: *workers}, nil)
	if err != nil {
		return err
	}
	solve := time.Since(t0)
	fmt.Printf("wall %.3f s  solve %.3f s  #iter %d  obj %.10g  rho %.10g  nSV %d  nBSV %d\n",
		time.Since(start).Seconds(), solve.Seconds(), r.Iter, r.Obj, r.Rho, r.NSV, r.NBSV)
	return nil
}

// read parses a LIBSVM file of two classes into a dense matrix and ±1 labels:
// the first label seen is +1, except that -1 seen first and +1 second keep
// their signs (svm-train's svm_group_classes), so ρ has svm-train's sign.
func read(path string) (*mat.Dense, []float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	type entry struct {
		k int
		v float64
	}
	var rows [][]entry
	var labels []float64
	d := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		lab, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: label %q", path, line, fields[0])
		}
		var r []entry
		for _, s := range fields[1:] {
			ks, vs, ok := strings.Cut(s, ":")
			k, err1 := strconv.Atoi(ks)
			v, err2 := strconv.ParseFloat(vs, 64)
			if !ok || err1 != nil || err2 != nil || k < 1 {
				return nil, nil, fmt.Errorf("%s:%d: feature %q", path, line, s)
			}
			r = append(r, entry{k, v})
			d = max(d, k)
		}
		rows = append(rows, r)
		labels = append(labels, lab)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("%s: no data", path)
	}
	X := mat.NewDense(len(rows), max(d, 1), nil)
	y := make([]float64, len(rows))
	classes := []float64{labels[0]}
	for _, l := range labels {
		if l != classes[0] {
			if len(classes) == 1 {
				classes = append(classes, l)
			} else if l != classes[1] {
				return nil, nil, fmt.Errorf("%s: labels %g, %g and %g: want two classes", path, classes[0], classes[1], l)
			}
		}
	}
	if len(classes) == 1 {
		return nil, nil, fmt.Errorf("%s: only label %g: want two classes", path, classes[0])
	}
	pos := classes[0]
	if classes[0] == -1 && classes[1] == 1 {
		pos = 1
	}
	for i, r := range rows {
		for _, e := range r {
			X.Set(i, e.k-1, e.v)
		}
		y[i] = -1
		if labels[i] == pos {
			y[i] = 1
		}
	}
	return X, y, nil
}
