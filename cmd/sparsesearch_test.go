package cmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// TestTuneSparseEveryMethod runs `tune` with every method and
// parameterisation of the registry (methods.All, so that a new one cannot
// slip through) on a text-like file held in compressed rows (300 × 2,000):
// each either learns, with a real held-out accuracy (the searches and rcsc
// iso give 95.6-97.8% on its 90 test rows, svm-train -g 1 -c 10 gives
// 97.3% by 5-fold CV on the 2,000-row text file), or exits 1 before any
// work with the one refusal of methods.SparseError: the method, the
// feature count, the storage rule's limit, why, the methods that run, and
// --storage dense. Before issue 46 stage 4 every one of them panicked on
// the nil dense rows (or said the training part was empty).
func TestTuneSparseEveryMethod(t *testing.T) {
	runs := map[string]bool{"svm iso": true, "random iso": true, "halving iso": true, "bo iso": true, "rcsc iso": true}
	for _, in := range methods.All {
		for _, p := range in.Params {
			name := in.Name + " " + p
			t.Run(in.Name+"/"+p, func(t *testing.T) {
				args := []string{"tune", textSparse, "--method", in.Name, "--param", p, "--test-fraction", "0.3", "--format", "json"}
				if in.Name == "random" || in.Name == "bo" {
					args = append(args, "--budget", "12")
				}
				out, errOut, code := runCLI(t, args...)
				if !runs[name] {
					if code != 1 {
						t.Fatalf("exit %d, want 1 (a refusal)\n%s%s", code, out, errOut)
					}
					for _, want := range []string{name + " does not learn on sparse data: the 2000 features are held in compressed rows (the storage rule holds a LIBSVM file of 1000 features or more",
						"on sparse data these run: svm, rcsc iso, random, halving, bo iso; or hold the rows dense (--storage dense)"} {
						if !strings.Contains(errOut, want) {
							t.Errorf("stderr lacks %q:\n%s", want, errOut)
						}
					}
					if strings.Contains(errOut, "panic") || strings.Contains(errOut, "internal error") {
						t.Errorf("not a refusal:\n%s", errOut)
					}
					return
				}
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, errOut)
				}
				var r struct {
					Method        string   `json:"method"`
					Gamma         float64  `json:"gamma"`
					TestAccuracy  *float64 `json:"test_accuracy"`
					TrainAccuracy float64  `json:"train_accuracy"`
					NTest         int      `json:"n_test"`
				}
				if err := json.Unmarshal([]byte(out), &r); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				if r.NTest != 90 || r.TestAccuracy == nil || *r.TestAccuracy < 0.93 || r.TrainAccuracy < 0.93 || !(r.Gamma > 0) {
					t.Errorf("%s: %d test rows, test accuracy %v, train %v, gamma %v; want 90 rows, at least 93%% and a gamma", name, r.NTest, r.TestAccuracy, r.TrainAccuracy, r.Gamma)
				}
			})
		}
	}
}

// TestCompareSparse: `compare` on a text-like file held in compressed
// rows runs to the end: svm and rcsc (iso) record test accuracies, spd's
// jobs are recorded as failures carrying the sparse-data refusal, the run
// exits 1 naming them, and the dry run's plan notes the non-zeros, the
// memory estimate that counts them and the entry that will refuse. Before
// issue 46 stage 4 every job panicked on the nil dense rows.
func TestCompareSparse(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	args := []string{"compare", textSparse, "--methods", "svm,spd,rcsc", "--partitions", "2"}
	plan := mustRun(t, append(args, "--dry-run")...)
	for _, want := range []string{"text300: held in compressed rows, 8185 non-zeros in 300 rows × 2000 features (1.36%): the memory estimates count them (42 values a row, not 2000)",
		"spd does not learn on sparse data: each of its jobs will be recorded as failed, with the reason"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q:\n%s", want, plan)
		}
	}
	_, errOut, code := runCLI(t, append(args, "--out", out)...)
	if code != 1 || !strings.Contains(errOut, "2 job(s) failed") || !strings.Contains(errOut, "spd diag does not learn on sparse data") {
		t.Fatalf("exit %d, want 1 naming spd's refusal:\n%s", code, errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := experiment.ReadRecords(f, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 {
		t.Fatalf("%d records, want 6", len(recs))
	}
	for _, r := range recs {
		switch r.Method {
		case "spd":
			if !r.Failed() || !strings.Contains(r.Error, "spd diag does not learn on sparse data: the 2000 features") {
				t.Errorf("spd: %s %q", r.Status, r.Error)
			}
		default:
			if r.Error != "" || r.TestAccuracy < 0.9 || r.NSV == 0 {
				t.Errorf("%s partition %d: error %q, test accuracy %g, %d SVs", r.Method, r.Partition, r.Error, r.TestAccuracy, r.NSV)
			}
		}
	}
}

// TestTuneSparseMatchesDense: the searches and rcsc iso on multi-class
// rows held in compressed rows (iris.scale read with --storage sparse)
// choose the (C, γ) they choose on the same rows held dense, and predict
// the held-out rows alike: the sparse CV route (squared distances from the
// linear Gram on the non-zeros, kernel columns from compressed rows) is
// the dense one's to rounding.
func TestTuneSparseMatchesDense(t *testing.T) {
	for _, m := range []string{"svm", "halving", "bo", "rcsc"} {
		var got [2]experiment.TuneResult
		for i, storage := range []string{"dense", "sparse"} {
			got[i] = tuneJSON(t, cmdTestdata+"/multiclass/iris.scale", "--method", m, "--storage", storage, "--normalize", "maxabs", "--test-fraction", "0.3", "--budget", "10")
		}
		d, s := got[0], got[1]
		if d.TestAccuracy == nil || s.TestAccuracy == nil || *d.TestAccuracy != *s.TestAccuracy || *s.TestAccuracy < 0.85 ||
			math.Abs(d.C-s.C) > 1e-9*d.C || math.Abs(d.Gamma-s.Gamma) > 1e-9*d.Gamma || !(s.Gamma > 0) {
			t.Errorf("%s: dense C %g γ %g accuracy %v; sparse C %g γ %g accuracy %v", m, d.C, d.Gamma, d.TestAccuracy, s.C, s.Gamma, s.TestAccuracy)
		}
	}
}
