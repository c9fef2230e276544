package dataio

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// BenchmarkSparseText reads, describes and maxabs-normalises rcv1-shaped
// data (5,000 rows of 47,236 words, about 60 a row) in compressed rows:
// the O(non-zeros + features set) path must cost text data no more than
// the O(d) arrays did.
func BenchmarkSparseText(b *testing.B) {
	var buf bytes.Buffer
	if err := WriteLIBSVM(&buf, TextLike(5000, 47236, 60, rand.New(rand.NewPCG(46, 5000)))); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.ReportAllocs()
	for b.Loop() {
		ds, err := ReadLIBSVM(bytes.NewReader(data), "text", ReadOptions{})
		if err != nil || !ds.IsSparse() {
			b.Fatal(err)
		}
		_ = Describe(ds)
		if _, _, _, err := Normalize(MaxAbs, ds, nil, false); err != nil {
			b.Fatal(err)
		}
	}
}
