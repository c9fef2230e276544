package dataio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every file in testdata/bad must give an error naming the file and the
// right line (0: a problem of the whole file), with the right sentinel, and
// never panic.
func TestBadFiles(t *testing.T) {
	cases := []struct {
		file      string // under testdata/bad; an IDA set by prefix
		errFile   string // the file the error must name, if not file
		line, col int
		want      error // nil: any error
	}{
		{"ragged.csv", "", 4, 0, ErrRagged},
		{"ragged.tsv", "", 3, 0, ErrRagged},
		{"ragged_space.dat", "", 3, 0, ErrRagged},
		{"text_in_numeric.csv", "", 2, 2, ErrNotNumber},
		{"text_semicolon.csv", "", 4, 2, ErrNotNumber},
		{"nan.csv", "", 2, 2, ErrNotFinite},
		{"inf.csv", "", 4, 1, ErrNotFinite},
		{"overflow.csv", "", 2, 2, ErrNotFinite},
		{"one_class.csv", "", 0, 0, ErrOneClass},
		{"empty.csv", "", 0, 0, ErrEmpty},
		{"blank_lines_only.csv", "", 0, 0, ErrEmpty},
		{"header_only.csv", "", 1, 0, ErrEmpty},
		{"missing_question.csv", "", 2, 2, ErrMissing},
		{"missing_empty.csv", "", 3, 2, ErrMissing},
		{"missing_na.csv", "", 2, 3, ErrMissing},
		{"unterminated_quote.csv", "", 3, 0, nil},
		{"crlf_text.csv", "", 4, 1, ErrNotNumber},
		{"numeric_header.csv", "", 1, 1, ErrNotNumber},
		{"unsorted.libsvm", "", 2, 4, ErrIndex},
		{"duplicate_index.libsvm", "", 2, 3, ErrIndex},
		{"zero_index.libsvm", "", 2, 2, ErrIndex},
		{"negative_index.libsvm", "", 2, 2, ErrIndex},
		{"bad_token.libsvm", "", 2, 3, ErrIndex},
		{"bad_value.libsvm", "", 2, 2, ErrNotNumber},
		{"nan_value.libsvm", "", 2, 2, ErrNotFinite},
		{"inf_value.libsvm", "", 2, 3, ErrNotFinite},
		{"nan_label.libsvm", "", 2, 1, ErrNotFinite},
		{"text_label.libsvm", "", 3, 1, ErrNotNumber},
		{"huge_index.libsvm", "", 2, 2, ErrIndex},
		{"one_class.libsvm", "", 0, 0, ErrOneClass},
		{"comments_only.libsvm", "", 0, 0, ErrEmpty},
		{"crlf_unsorted.libsvm", "", 3, 3, ErrIndex},
		{"no_features.libsvm", "", 0, 0, nil},
		{"idabad", "idabad_test_index.asc", 2, 2, nil},
		{"idarange_labels.asc", "idarange_data.asc", 3, 0, ErrRagged},
		{"arff_no_data.arff", "", 0, 0, ErrEmpty},
		{"arff_bad_type.arff", "", 3, 0, nil},
		{"arff_string_feature.arff", "", 2, 0, nil},
		{"arff_nominal_feature.arff", "", 2, 0, ErrNominal},
		{"arff_ragged.arff", "", 7, 0, ErrRagged},
		{"arff_sparse_order.arff", "", 7, 0, nil},
		{"arff_sparse_range.arff", "", 7, 0, nil},
		{"arff_unterminated_quote.arff", "", 6, 0, nil},
		{"arff_missing.arff", "", 7, 2, ErrMissing},
		{"arff_not_number.arff", "", 7, 2, ErrNotNumber},
		{"arff_undeclared_class.arff", "", 6, 2, nil},
		{"nominal_letters.csv", "", 1, 1, ErrNominal},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(td, "bad", c.file)
			errFile := path
			if c.errFile != "" {
				errFile = filepath.Join(td, "bad", c.errFile)
			}
			covered[filepath.Base(errFile)] = true
			covered[filepath.Base(path)] = true
			d, err := loadNoPanic(path)
			if err == nil {
				t.Fatalf("no error; read %d×%d", d.Len(), d.Dim())
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%v: not a *ParseError", err)
			}
			if pe.File != errFile || pe.Line != c.line || pe.Col != c.col {
				t.Errorf("error at %s:%d:%d, want %s:%d:%d (%v)", pe.File, pe.Line, pe.Col, errFile, c.line, c.col, err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("%v is not %v", err, c.want)
			}
			prefix := errFile + ":"
			if c.line > 0 {
				prefix = fmt.Sprintf("%s:%d:", errFile, c.line)
			}
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("message %q does not start with %q", err, prefix)
			}
			t.Log(err)
		})
	}
	// The table covers the whole corpus.
	ents, err := os.ReadDir(filepath.Join(td, "bad"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) < 20 {
		t.Errorf("only %d bad files", len(ents))
	}
	for _, e := range ents {
		name := e.Name()
		if p, ok := IDAPrefix(name); ok && (covered[filepath.Base(p)] || covered[p+"_data.asc"] || covered[p+"_labels.asc"]) {
			continue
		}
		if !covered[name] {
			t.Errorf("testdata/bad/%s is not in the table", name)
		}
	}
}

func loadNoPanic(path string) (d *Dataset, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
			d = nil
		}
	}()
	return Load(path, ReadOptions{})
}

// CRLF, a byte-order mark, quoted header names, tabs, semicolons and comment
// lines read the same as the plain files.
func TestGoodVariants(t *testing.T) {
	cases := []struct{ variant, orig string }{
		{"good/heart_scale_crlf", "libsvm/heart_scale"},
		{"good/bupa_header_crlf.csv", "uci/bupa.data"},
		{"good/heart_tab.tsv", "uci/heart.dat"},
		{"good/heart_semicolon.txt", "uci/heart.dat"},
	}
	for _, c := range cases {
		a, err := Load(filepath.Join(td, c.variant), ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.variant, err)
		}
		b, err := Load(filepath.Join(td, c.orig), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !equalData(a, b) {
			t.Errorf("%s reads differently from %s", c.variant, c.orig)
		}
	}
	d, _ := Load(filepath.Join(td, "good/bupa_header_crlf.csv"), ReadOptions{LabelCol: "selector", Positive: "1"})
	if d == nil || d.FeatureNames[0] != "mcv" || d.FeatureNames[5] != "drinks" || d.Labels != (LabelMap{Positive: "1", Negative: "2"}) {
		t.Errorf("header names / label by name: %+v", d)
	}
}

func equalData(a, b *Dataset) bool {
	if a.Len() != b.Len() || a.Dim() != b.Dim() || a.Labels != b.Labels || a.Labeled() != b.Labeled() ||
		!slices.Equal(a.ClassLabels, b.ClassLabels) || !slices.Equal(a.Class, b.Class) {
		return false
	}
	for i := 0; i < a.Len(); i++ {
		if a.Y != nil && a.Y[i] != b.Y[i] {
			return false
		}
		for j := 0; j < a.Dim(); j++ {
			if a.X.At(i, j) != b.X.At(i, j) {
				return false
			}
		}
	}
	return true
}
