package dataio

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

const td = "../../testdata"

// The shared data files with the numbers of PROVENANCE.md.
func TestReadSuppliedData(t *testing.T) {
	cases := []struct {
		path     string
		opts     ReadOptions
		format   string
		n, d     int
		pos, neg int
		lm       LabelMap
		splits   int
		sha      string
	}{
		{"libsvm/heart_scale", ReadOptions{}, "libsvm", 270, 13, 120, 150, LabelMap{Positive: "1", Negative: "-1"}, 0, "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9"},
		{"libsvm/breast-cancer_scale", ReadOptions{}, "libsvm", 683, 10, 239, 444, LabelMap{Positive: "1", Negative: "-1"}, 0, "7c8e5b823e6f3d2791384c69502a2cfc930a26931a9968eb57826aa5b0edeb54"},
		{"libsvm/diabetes_scale", ReadOptions{}, "libsvm", 768, 8, 500, 268, LabelMap{Positive: "1", Negative: "-1"}, 0, "0c07eb4c49e7a8ffb9c9f25095ac3022df2ca85b0dcb7d294c3ddea69f392cba"},
		{"libsvm/a1a", ReadOptions{}, "libsvm", 1605, 119, 395, 1210, LabelMap{Positive: "1", Negative: "-1"}, 0, "eb54c45f1bdb51286f803dd092eb8202b44637a858fc6c4e533a2d64a0d94b4e"},
		{"libsvm/a1a", ReadOptions{Features: 123}, "libsvm", 1605, 123, 395, 1210, LabelMap{Positive: "1", Negative: "-1"}, 0, ""},
		{"uci/bupa.data", ReadOptions{}, "csv", 345, 6, 200, 145, LabelMap{Positive: "2", Negative: "1"}, 0, "a166a3e7a6f4dc41aaaedc59a107e57d8adcaeb8821f0873d756982f1ea74c92"},
		{"uci/bupa.data", ReadOptions{LabelCol: "7", Positive: "1"}, "csv", 345, 6, 145, 200, LabelMap{Positive: "1", Negative: "2"}, 0, ""},
		{"uci/heart.dat", ReadOptions{}, "csv", 270, 13, 120, 150, LabelMap{Positive: "2", Negative: "1"}, 0, "f5f3b4204c285bafadd85cb735f38b47689f2be7047feb172dcbeab648110bf9"},
		{"ida/banana", ReadOptions{}, "ida", 5300, 2, 2376, 2924, LabelMap{Positive: "1", Negative: "-1"}, 10, ""},
		{"ida/banana_test_index.asc", ReadOptions{}, "ida", 5300, 2, 2376, 2924, LabelMap{Positive: "1", Negative: "-1"}, 10, ""},
		{"ida/breast-cancer_data.asc", ReadOptions{}, "ida", 277, 9, 81, 196, LabelMap{Positive: "1", Negative: "-1"}, 10, ""},
		{"builtin:heart", ReadOptions{}, "libsvm", 270, 13, 120, 150, LabelMap{Positive: "1", Negative: "-1"}, 0, "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9"},
		{"builtin:breast-wisconsin", ReadOptions{}, "libsvm", 683, 10, 239, 444, LabelMap{Positive: "1", Negative: "-1"}, 0, "7c8e5b823e6f3d2791384c69502a2cfc930a26931a9968eb57826aa5b0edeb54"},
		{"builtin:diabetes", ReadOptions{}, "libsvm", 768, 8, 500, 268, LabelMap{Positive: "1", Negative: "-1"}, 0, "0c07eb4c49e7a8ffb9c9f25095ac3022df2ca85b0dcb7d294c3ddea69f392cba"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			path := c.path
			if !strings.HasPrefix(path, BuiltinPrefix) {
				path = filepath.Join(td, path)
			}
			d, err := Load(path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			pos, neg := d.ClassCounts()
			if d.Format != c.format || d.Len() != c.n || d.Dim() != c.d || pos != c.pos || neg != c.neg || d.Labels != c.lm || len(d.Splits) != c.splits {
				t.Errorf("got %s %d×%d +%d/-%d %v %d splits, want %s %d×%d +%d/-%d %v %d splits",
					d.Format, d.Len(), d.Dim(), pos, neg, d.Labels, len(d.Splits), c.format, c.n, c.d, c.pos, c.neg, c.lm, c.splits)
			}
			if c.sha != "" && d.SHA256 != c.sha {
				t.Errorf("sha256 %s, want %s", d.SHA256, c.sha)
			}
			if len(d.FeatureNames) != d.Dim() {
				t.Errorf("%d feature names for %d features", len(d.FeatureNames), d.Dim())
			}
			for _, v := range d.Y {
				if v != 1 && v != -1 {
					t.Fatalf("label %v", v)
				}
			}
		})
	}
}

// heart.dat is heart_scale before min-max scaling to [-1, 1] (PROVENANCE.md):
// minmax11 on the raw file must give heart_scale to its 6 significant digits.
func TestHeartDatIsHeartScale(t *testing.T) {
	raw, err := Load(filepath.Join(td, "uci/heart.dat"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Load("builtin:heart", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nz, err := FitNormalizer(MinMax11, raw.X)
	if err != nil {
		t.Fatal(err)
	}
	z := nz.Apply(raw.X)
	worst := 0.0
	for i := 0; i < raw.Len(); i++ {
		if raw.Y[i] != sc.Y[i] {
			t.Fatalf("row %d: label %v vs %v", i+1, raw.Y[i], sc.Y[i])
		}
		for j := 0; j < raw.Dim(); j++ {
			worst = max(worst, math.Abs(z.At(i, j)-sc.X.At(i, j)))
		}
	}
	if worst > 1e-5 {
		t.Errorf("max |minmax11(heart.dat) - heart_scale| = %g, want ≤ 1e-5", worst)
	}
}

func TestIDASplits(t *testing.T) {
	d, err := Load(filepath.Join(td, "ida/banana"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, s := range d.Splits {
		if len(s.Train) != 400 || len(s.Test) != 4900 {
			t.Fatalf("realisation %d: %d/%d, want 400/4900", k+1, len(s.Train), len(s.Test))
		}
		seen := make([]bool, d.Len())
		for _, i := range append(append([]int(nil), s.Train...), s.Test...) {
			if seen[i] {
				t.Fatalf("realisation %d: row %d twice", k+1, i+1)
			}
			seen[i] = true
		}
	}
	// Realisation 1 is rows 1..400 in order (PROVENANCE: data = train 1 then test 1).
	for i, r := range d.Splits[0].Train {
		if r != i {
			t.Fatalf("realisation 1 train[%d] = %d, want %d", i, r, i)
		}
	}
	// First row of banana_data.asc.
	if d.X.At(0, 0) != 6.5890573e-01 || d.X.At(0, 1) != -9.8507109e-01 {
		t.Errorf("row 1 = %v %v", d.X.At(0, 0), d.X.At(0, 1))
	}
}

func TestLabelErrors(t *testing.T) {
	cases := []struct {
		name, in string
		opts     ReadOptions
		want     error
		msg      string
	}{
		{"one class", "1,2,0\n3,4,0\n", ReadOptions{}, ErrOneClass, `only one class: "0" (2 rows)`},
		{"multiclass unknown", "1,2,a\n3,4,b\n5,6,c\n7,8,a\n", ReadOptions{Multiclass: "ova"}, nil, `unknown multiclass setting "ova" (want ovo or ovr)`},
		{"test class unknown", "1,2,a\n3,4,d\n", ReadOptions{ClassLabels: []string{"a", "b", "c"}}, ErrUnknownLabel, `x.csv:2: label "d" is not one of the training classes "a", "b", "c"`},
		{"positive missing", "1,2,a\n3,4,b\n", ReadOptions{Positive: "z"}, nil, `positive class "z" is not one of the labels "a" and "b"`},
		{"fixed map unknown", "1,2,3\n3,4,1\n", ReadOptions{Labels: &LabelMap{Positive: "2", Negative: "1"}}, ErrUnknownLabel, `x.csv:1: label "3" is neither`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(c.in), "x.csv", c.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("error %v is not %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not contain %q", err, c.msg)
			}
		})
	}
}

func TestLabelMapping(t *testing.T) {
	cases := []struct {
		in   string
		opts ReadOptions
		lm   LabelMap
		y0   float64
	}{
		{"1,2\n3,1\n", ReadOptions{}, LabelMap{Positive: "2", Negative: "1"}, 1},
		{"1,2\n3,1\n", ReadOptions{Positive: "1"}, LabelMap{Positive: "1", Negative: "2"}, -1},
		{"1,2.0\n3,1\n", ReadOptions{Positive: "2"}, LabelMap{Positive: "2", Negative: "1"}, 1},
		{"1,+1\n3,-1\n4,1.0\n", ReadOptions{}, LabelMap{Positive: "1", Negative: "-1"}, 1},
		{"1,no\n3,yes\n", ReadOptions{}, LabelMap{Positive: "yes", Negative: "no"}, -1},
		{"1,B\n3,M\n", ReadOptions{Positive: "B"}, LabelMap{Positive: "B", Negative: "M"}, 1},
		// A test file with one class is fine under a fixed mapping.
		{"1,2\n3,2\n", ReadOptions{Labels: &LabelMap{Positive: "2", Negative: "1"}}, LabelMap{Positive: "2", Negative: "1"}, 1},
	}
	for _, c := range cases {
		d, err := ReadCSV(strings.NewReader(c.in), "x.csv", c.opts)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if d.Labels != c.lm || d.Y[0] != c.y0 {
			t.Errorf("%q %+v: mapping %v y0 %v, want %v %v", c.in, c.opts, d.Labels, d.Y[0], c.lm, c.y0)
		}
	}
}
