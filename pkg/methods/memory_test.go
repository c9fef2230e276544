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
	got := SVMSettings{Common: Common{Workers: 2}}.PeakBytes(5000, 123)
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
	small := SVMSettings{Common: Common{Workers: 2, CacheMB: 10}}.PeakBytes(5000, 123)
	if want := int64(rt + D + 2*(gram+te+10<<20) + data); small != want {
		t.Errorf("svm with --cache-mb 10: %d bytes, want %d", small, want)
	}
}

// TestMaxRows: MaxRows is the boundary of PeakBytes ≤ limit for every
// method, and every method's estimate counts at least one n×n matrix.
func TestMaxRows(t *testing.T) {
	c := Common{Workers: 2}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			s, err := New(name, "", "")
			if err != nil {
				t.Fatal(err)
			}
			s = s.WithBase(c)
			// Up to denseCVRows every method holds at least one n×n
			// float64 matrix, random and bo one of the GridRows rows they
			// cross-validate on; at 20,000 rows none holds an n×n matrix
			// (the searches' bounded-memory route, the five methods'
			// subset of KernelRows rows), but each one of the 5,000 rows
			// of its subset, and less than a 20,000² matrix.
			k := int64(denseCVRows)
			if name == "random" || name == "bo" {
				k = defaultGridRows
			}
			if a := PeakBytes(s, denseCVRows, 20); a < 8*k*k {
				t.Errorf("peak %d at n = %d: less than one %d×%d matrix", a, denseCVRows, k, k)
			}
			if a := PeakBytes(s, 20000, 20); a < 8*defaultGridRows*defaultGridRows || a >= 8*20000*20000 {
				t.Errorf("peak %d at n = 20,000: want at least a 5,000² and less than a 20,000² matrix", a)
			}
			for _, limit := range []int64{33 << 20, 300 << 20, 4 << 30} {
				n := MaxRows(s, 20, limit)
				if n < 1 {
					t.Fatalf("limit %d: n = %d", limit, n)
				}
				at, above := PeakBytes(s, n, 20), PeakBytes(s, n+1, 20)
				if at > limit || above <= limit {
					t.Errorf("limit %d: MaxRows %d, peak %d there and %d at n+1", limit, n, at, above)
				}
			}
		})
	}
	if n := MaxRows(SVMSettings{Common: c}, 20, 10<<20); n != 0 {
		t.Errorf("10 MB: MaxRows %d, want 0 (the runtime alone needs 32 MB)", n)
	}
}

func TestCheckMemory(t *testing.T) {
	c := Common{Workers: 2}
	svm, rcsc := SVMSettings{Common: c}, RCSCSettings{Common: c}
	if err := CheckMemory(svm, 5000, 123, 0); err != nil {
		t.Errorf("no bound: %v", err)
	}
	if err := CheckMemory(svm, 5000, 123, 2<<30); err != nil {
		t.Errorf("2 GB for svm at 5,000: %v", err)
	}
	err := CheckMemory(rcsc, 5000, 123, 500<<20)
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("rcsc at 5,000 in 500 MB: %v, want a MemoryError", err)
	}
	want := MaxRows(rcsc, 123, 500<<20)
	if me.MaxN != want || me.N != 5000 || me.Method != "rcsc" || me.Need != PeakBytes(rcsc, 5000, 123) || me.Need != withHeadroom(rcsc.PeakBytes(5000, 123)) || me.Need <= me.Max || !strings.Contains(err.Error(), "at most") {
		t.Errorf("%+v: %v", me, err)
	}
}

// TestPeakBytesEveryMethod: each settings type's PeakBytes gives, to the
// byte, the estimate PeakBytes(method, n, d, opts) gave before the
// estimates moved onto the settings types (issue 20: moved, not changed),
// for the settings the estimates depend on (workers, cache, spd's cv start,
// gi's C: by the grid search, given, or none for the hard margin).
func TestPeakBytesEveryMethod(t *testing.T) {
	for _, c := range []struct {
		n, d int
		s    Spec
		want int64
	}{
		{1000, 20, SVMSettings{Common: Common{Workers: 2}}, 65074432},
		{1000, 20, SPDSettings{Common: Common{Workers: 2}}, 82034432},
		{1000, 20, SPDSettings{Common: Common{Workers: 2}, Init: "cv"}, 82034432},
		{1000, 20, GISettings{Common: Common{Workers: 2}}, 82034432},
		{1000, 20, GISettings{Common: Common{Workers: 2, C: 1}}, 82034432},
		{1000, 20, GISettings{Common: Common{Workers: 2}, Margin: "hard"}, 82034432},
		{1000, 20, LCCPSettings{Common: Common{Workers: 2}}, 74034432},
		{1000, 20, RCSCSettings{Common: Common{Workers: 2}}, 74034432},
		{1000, 20, TwoLevelSettings{Common: Common{Workers: 2}}, 64233568},
		{5000, 123, SVMSettings{Common: Common{Workers: 2}}, 824314432},
		{5000, 123, SPDSettings{Common: Common{Workers: 2}}, 1248314432},
		{5000, 123, SPDSettings{Common: Common{Workers: 2}, Init: "cv"}, 1248314432},
		{5000, 123, GISettings{Common: Common{Workers: 2}}, 1248314432},
		{5000, 123, GISettings{Common: Common{Workers: 2, C: 1}}, 1248314432},
		{5000, 123, GISettings{Common: Common{Workers: 2}, Margin: "hard"}, 1248314432},
		{5000, 123, LCCPSettings{Common: Common{Workers: 2}}, 1048314432},
		{5000, 123, RCSCSettings{Common: Common{Workers: 2}}, 824314432},
		{5000, 123, TwoLevelSettings{Common: Common{Workers: 2}}, 803812216},
		// Above denseCVRows (issue 32): the full grid's dense matrices on
		// the 5,000-row subset (5,000² distances, two fold jobs of a
		// 4,000² Gram, 1,000 × 4,000 test matrix and 128 MB cache), not
		// the 20,000² ones (8782584832 before).
		{20000, 20, SVMSettings{Common: Common{Workers: 2}}, 819154432},
		{20000, 20, SPDSettings{Common: Common{Workers: 2}}, 16252869632},
		{20000, 20, SPDSettings{Common: Common{Workers: 2}, Init: "cv"}, 16252869632},
		{20000, 20, GISettings{Common: Common{Workers: 2}}, 13262584832},
		{20000, 20, GISettings{Common: Common{Workers: 2, C: 1}}, 13262584832},
		{20000, 20, GISettings{Common: Common{Workers: 2}, Margin: "hard"}, 13262584832},
		{20000, 20, LCCPSettings{Common: Common{Workers: 2}}, 10062584832},
		{20000, 20, RCSCSettings{Common: Common{Workers: 2}}, 9659154432},
		{20000, 20, TwoLevelSettings{Common: Common{Workers: 2}}, 11985936304},
		{5000, 123, SVMSettings{Common: Common{Workers: 2, CacheMB: 10}}, 589285952},
		{5000, 123, SPDSettings{Common: Common{Workers: 2, CacheMB: 10}}, 1058800192},
		{5000, 123, SPDSettings{Common: Common{Workers: 2, CacheMB: 10}, Init: "cv"}, 1058800192},
		{5000, 123, GISettings{Common: Common{Workers: 2, CacheMB: 10}}, 869285952},
		{5000, 123, GISettings{Common: Common{Workers: 2, CacheMB: 10, C: 1}}, 869285952},
		{5000, 123, GISettings{Common: Common{Workers: 2, CacheMB: 10}, Margin: "hard"}, 869285952},
		{5000, 123, LCCPSettings{Common: Common{Workers: 2, CacheMB: 10}}, 669285952},
		{5000, 123, RCSCSettings{Common: Common{Workers: 2, CacheMB: 10}}, 664314432},
		{5000, 123, TwoLevelSettings{Common: Common{Workers: 2, CacheMB: 10}}, 792066864},
		{1000, 20, SVMSettings{Common: Common{Workers: 16}}, 226354432},
		{1000, 20, SPDSettings{Common: Common{Workers: 16}}, 82034432},
		{1000, 20, SPDSettings{Common: Common{Workers: 16}, Init: "cv"}, 226354432},
		{1000, 20, GISettings{Common: Common{Workers: 16}}, 226354432},
		{1000, 20, GISettings{Common: Common{Workers: 16, C: 1}}, 82034432},
		{1000, 20, GISettings{Common: Common{Workers: 16}, Margin: "hard"}, 82034432},
		{1000, 20, LCCPSettings{Common: Common{Workers: 16}}, 99634432},
		{1000, 20, RCSCSettings{Common: Common{Workers: 16}}, 99634432},
		{1000, 20, TwoLevelSettings{Common: Common{Workers: 16}}, 64233568},
		{5000, 123, SVMSettings{Common: Common{Workers: 16}}, 4856314432},
		{5000, 123, SPDSettings{Common: Common{Workers: 16}}, 1248314432},
		{5000, 123, SPDSettings{Common: Common{Workers: 16}, Init: "cv"}, 4856314432},
		{5000, 123, GISettings{Common: Common{Workers: 16}}, 4856314432},
		{5000, 123, GISettings{Common: Common{Workers: 16, C: 1}}, 1248314432},
		{5000, 123, GISettings{Common: Common{Workers: 16}, Margin: "hard"}, 1248314432},
		{5000, 123, LCCPSettings{Common: Common{Workers: 16}}, 1688314432},
		{5000, 123, RCSCSettings{Common: Common{Workers: 16}}, 1688314432},
		{5000, 123, TwoLevelSettings{Common: Common{Workers: 16}}, 803812216},
	} {
		if got := c.s.PeakBytes(c.n, c.d); got != c.want {
			t.Errorf("%s%+v at %d × %d: %d bytes, want %d", c.s.Name(), c.s, c.n, c.d, got, c.want)
		}
	}
}

// TestCheckMemoryMultiClassMaxN: a multi-class refusal's "at most N rows"
// is the boundary of the multi-class estimate in the data's class
// proportions (ten classes of 700 rows, 778 features, one-vs-one), not the
// binary problem's: at N rows the estimate fits the bound and ten rows more
// do not; before, the refusal named the binary problem's MaxRows (for svm
// 2,462 rows at the bound of issue 44's 7,000-row run).
func TestCheckMemoryMultiClassMaxN(t *testing.T) {
	c := Common{Workers: 2}
	sizes := []int{700, 700, 700, 700, 700, 700, 700, 700, 700, 700}
	for _, s := range []Spec{SVMSettings{Common: c}, RCSCSettings{Common: c}} {
		need := PeakBytesMultiClass(s, sizes, 778, "ovo")
		for _, limit := range []int64{need / 2, need * 3 / 4} {
			err := CheckMemoryMultiClass(s, sizes, 778, "ovo", limit)
			var me *MemoryError
			if !errors.As(err, &me) {
				t.Fatalf("%s at 7,000 × 778 in %d MB: %v, want a MemoryError", s.Name(), limit>>20, err)
			}
			n := me.MaxN
			at := PeakBytesMultiClass(s, scaledSizes(sizes, 7000, n), 778, "ovo")
			above := PeakBytesMultiClass(s, scaledSizes(sizes, 7000, n+10), 778, "ovo")
			if n < 10 || at > limit || above <= limit {
				t.Errorf("%s, %d MB: MaxN %d, estimate there %d and %d at ten rows more (bound %d)", s.Name(), limit>>20, n, at, above, limit)
			}
			if s.Name() == "svm" && n == MaxRows(s, 778, limit) {
				t.Errorf("%s, %d MB: MaxN %d is the binary problem's", s.Name(), limit>>20, n)
			}
		}
	}
}
