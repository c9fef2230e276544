// Command partitions is the data side of bench/sklearn.sh: it writes the
// random train/test partitions of a dataset exactly as `kerneltune compare`
// draws them (dataio.Partitions from the seed) and normalises them (z-score
// fitted on each training part), one CSV line per row:
//
//	partition,part,label,x1,...,xd      (part: train or test)
//
// so that another library can be timed on the very partitions kerneltune
// tunes on.
//
//	partitions [-data builtin:heart] [-k 30] [-train 100] [-test 100] [-seed 1] > parts.csv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

func main() {
	data := flag.String("data", "builtin:heart", "dataset")
	k := flag.Int("k", 30, "partitions")
	train := flag.Int("train", 100, "training rows per partition")
	test := flag.Int("test", 100, "test rows per partition")
	seed := flag.Uint64("seed", 1, "seed (compare's --seed)")
	flag.Parse()
	if err := write(*data, *k, *train, *test, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "partitions:", err)
		os.Exit(1)
	}
}

func write(path string, k, trainSize, testSize int, seed uint64) error {
	d, err := dataio.Load(path, dataio.ReadOptions{})
	if err != nil {
		return err
	}
	splits, err := dataio.Partitions(d.Y, dataio.PartitionOptions{K: k, TrainSize: trainSize, TestSize: testSize}, seed)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(os.Stdout)
	for p, sp := range splits {
		train, test := d.Subset(sp.Train), d.Subset(sp.Test)
		norm, err := dataio.FitNormalizer("zscore", train.X)
		if err != nil {
			return fmt.Errorf("partition %d: %w", p, err)
		}
		for _, part := range []struct {
			name string
			d    *dataio.Dataset
		}{{"train", norm.ApplyDataset(train)}, {"test", norm.ApplyDataset(test)}} {
			for i := 0; i < part.d.Len(); i++ {
				fmt.Fprintf(w, "%d,%s,%g", p, part.name, part.d.Y[i])
				for _, v := range part.d.X.RawRowView(i) {
					w.WriteByte(',')
					w.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
				}
				w.WriteByte('\n')
			}
		}
	}
	return w.Flush()
}
