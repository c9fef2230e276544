// Command mcprof profiles `train` on a multi-class file: the final fit
// (model.Fit: every pair's solve, then the training and test predictions)
// under pprof, to find where the per-pair time goes (issue 32).
//
//	go run ./bench/mcprof -data ../shared/data/multiclass/letter.scale -c 8 -g 0.5 -o /tmp/mc.prof
//	go tool pprof -top /tmp/mc.prof
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/model"
)

func main() {
	data := flag.String("data", "", "LIBSVM file")
	c := flag.Float64("c", 1, "C")
	g := flag.Float64("g", 0.5, "gamma")
	out := flag.String("o", "", "CPU profile file")
	flag.Parse()
	d, err := dataio.Load(*data, dataio.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	norm, err := dataio.FitNormalizer(dataio.NoScale, d.X)
	if err != nil {
		log.Fatal(err)
	}
	d, _ = dataio.InLIBSVMOrder(d, nil)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	r, err := model.Fit(context.Background(), model.FitSettings{Train: d, Norm: norm,
		Kernel: kernel.Spec{Kind: kernel.KindGaussian, Gamma: *g}, C: *c, Workers: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("fit %v, training accuracy %.4f\n", time.Since(start), r.TrainAccuracy)
}
