package methods

import (
	"errors"
	"strings"
	"testing"
)

// TestPeakBytesSVM: the svm estimate at the size of issue 11 is the sum the
// doc comments give: the 5,000² distances, and per worker a fold's 4,000²
// Gram, its 1,000 × 4,000 test matrix and a full cache (the 128 MB matrix
// fits the 200 MB default), plus three copies of the data and 32 MB for the
// runtime.
func TestPeakBytesSVM(t *testing.T) {
	got, err := PeakBytes("svm", 5000, 123, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	const (
		D    = 8 * 5000 * 5000
		gram = 8 * 4000 * 4000
		te   = 8 * 1000 * 4000
		data = 3 * 8 * 5000 * 123
		rt   = 32 << 20
	)
	if want := int64(rt + D + 2*(gram+te+gram) + data); got != want {
		t.Errorf("svm at 5,000 × 123, 2 workers: %d bytes, want %d", got, want)
	}
	// A 10 MB cache bounds the solver's share.
	small, _ := PeakBytes("svm", 5000, 123, Options{Workers: 2, CacheMB: 10})
	if want := int64(rt + D + 2*(gram+te+10<<20) + data); small != want {
		t.Errorf("svm with --cache-mb 10: %d bytes, want %d", small, want)
	}
}

// TestMaxRows: MaxRows is the boundary of PeakBytes ≤ limit for every
// method, and every method's estimate counts at least one n×n matrix.
func TestMaxRows(t *testing.T) {
	opts := Options{Workers: 2}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			// Every method holds at least one n×n float64 matrix.
			a, err := PeakBytes(name, 20000, 20, opts)
			if err != nil {
				t.Fatal(err)
			}
			if a < 8*20000*20000 {
				t.Errorf("peak %d at n = 20,000: less than one n×n matrix", a)
			}
			for _, limit := range []int64{33 << 20, 300 << 20, 4 << 30} {
				n, err := MaxRows(name, 20, opts, limit)
				if err != nil || n < 1 {
					t.Fatalf("limit %d: n = %d, %v", limit, n, err)
				}
				at, _ := PeakBytes(name, n, 20, opts)
				above, _ := PeakBytes(name, n+1, 20, opts)
				if at > limit || above <= limit {
					t.Errorf("limit %d: MaxRows %d, peak %d there and %d at n+1", limit, n, at, above)
				}
			}
		})
	}
	if _, err := PeakBytes("nosuch", 10, 2, opts); err == nil {
		t.Error("unknown method: want an error")
	}
	if n, _ := MaxRows("svm", 20, opts, 10<<20); n != 0 {
		t.Errorf("10 MB: MaxRows %d, want 0 (the runtime alone needs 32 MB)", n)
	}
}

func TestCheckMemory(t *testing.T) {
	opts := Options{Workers: 2}
	if err := CheckMemory("svm", 5000, 123, opts, 0); err != nil {
		t.Errorf("no bound: %v", err)
	}
	if err := CheckMemory("svm", 5000, 123, opts, 2<<30); err != nil {
		t.Errorf("2 GB for svm at 5,000: %v", err)
	}
	err := CheckMemory("rcsc", 5000, 123, opts, 500<<20)
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("rcsc at 5,000 in 500 MB: %v, want a MemoryError", err)
	}
	want, _ := MaxRows("rcsc", 123, opts, 500<<20)
	if me.MaxN != want || me.N != 5000 || me.Need <= me.Max || !strings.Contains(err.Error(), "at most") {
		t.Errorf("%+v: %v", me, err)
	}
}
