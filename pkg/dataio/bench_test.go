package dataio

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func BenchmarkReadLIBSVM(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(td, "libsvm/a1a"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseLIBSVM(data, "a1a", ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCSV(b *testing.B) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, Weston(2000, 20, rand.New(rand.NewPCG(1, 1)))); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseCSV(data, "weston.csv", ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadIDA(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadIDA(filepath.Join(td, "ida/banana"), ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDescribe(b *testing.B) {
	d, err := Load(filepath.Join(td, "libsvm/a1a"), ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Describe(d)
	}
}

// BenchmarkFitNormalizer fits each normaliser on a1a's 1,605 × 119 rows:
// the row-major statistics of a *mat.Dense against the column loop that
// other matrices take.
func BenchmarkFitNormalizer(b *testing.B) {
	d, err := Load(filepath.Join(td, "libsvm/a1a"), ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range []string{NoScale, ZScore} {
		for name, X := range map[string]mat.Matrix{"dense": d.X, "columns": notDense{d.X}} {
			b.Run(kind+"/"+name, func(b *testing.B) {
				for b.Loop() {
					if _, err := FitNormalizer(kind, X); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
