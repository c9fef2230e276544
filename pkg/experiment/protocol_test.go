package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// probe is a test method: it learns nothing, but records a hash of the exact
// training data it was given (so tests can check that every method sees the
// same partitions), and fails on the partitions listed in failOn.
type probe struct {
	name   string
	failOn map[uint64]bool // by the hash of the training data
}

func (p *probe) Name() string     { return p.name }
func (p *probe) Params() []string { return []string{"a", "b"} }
func (p *probe) Tune(ctx context.Context, train *dataio.Dataset, o methods.Options) (*methods.Result, error) {
	h := fnv.New64a()
	for i := 0; i < train.Len(); i++ {
		for _, v := range train.X.RawRowView(i) {
			h.Write([]byte(fmtFloat(v)))
		}
	}
	sum := h.Sum64()
	if p.failOn[sum%7] {
		return nil, &methods.BreakdownError{Method: p.name, Iter: 3, Err: errors.New("matrix not SPD")}
	}
	return &methods.Result{
		Method: p.name, Param: o.Param, Status: status.Converged,
		Kernel: kernel.Spec{Kind: "gaussian", Gamma: 0.05}, Margin: "l1", C: 1,
		Figures: []methods.Figure{{Name: "datahash", Value: float64(sum >> 12)}, {Name: "seed", Value: float64(o.Seed >> 12)}},
		Trace:   []methods.Step{{Iter: 0, Objective: 2}, {Iter: 1, Objective: 1}},
		Solves:  1,
	}, nil
}

func fmtFloat(v float64) string { return string(rune(int(math.Float64bits(v) % 1e6))) }

func registerProbes(t *testing.T) {
	t.Helper()
	saved := methods.All
	methods.All = append(append([]func() methods.Method{}, saved...),
		func() methods.Method { return &probe{name: "probe1"} },
		func() methods.Method { return &probe{name: "probe2"} },
		func() methods.Method { return &probe{name: "flaky", failOn: map[uint64]bool{0: true, 3: true}} },
	)
	t.Cleanup(func() { methods.All = saved })
}

func heartSource(t *testing.T, k int, seed uint64) Source {
	t.Helper()
	d, err := dataio.Load("builtin:heart", dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	splits, err := dataio.Partitions(d.Y, dataio.PartitionOptions{K: k, TrainSize: 60, TestSize: 60}, seed)
	if err != nil {
		t.Fatal(err)
	}
	return &SplitSource{Data: d, Splits: splits}
}

func mustEntries(t *testing.T, s string) []Entry {
	t.Helper()
	e, err := ParseEntries(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// runAll runs a whole plan into memory.
func runAll(t *testing.T, c Config, src []Source, entries []Entry) []Record {
	t.Helper()
	run := c.Fingerprint(entries, src)
	recs, err := Run(context.Background(), c, c.Plan(src, entries), run, nil, &MemorySink{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// masked zeroes the timing field, the only one allowed to differ between runs.
func masked(rs []Record) []Record {
	out := append([]Record(nil), rs...)
	for i := range out {
		out[i].Seconds = 0
	}
	return out
}

func figure(r Record, name string) float64 {
	for _, f := range r.Figures {
		if f.Name == name {
			return f.Value
		}
	}
	return math.NaN()
}

func TestSamePartitionsAcrossMethodsAndWorkers(t *testing.T) {
	registerProbes(t)
	src := []Source{heartSource(t, 6, 1)}
	entries := mustEntries(t, "probe1,probe2:b")
	c1 := Config{Seed: 1, Workers: 1}
	c2 := Config{Seed: 1, Workers: 2}
	a, b := runAll(t, c1, src, entries), runAll(t, c2, src, entries)
	if len(a) != 12 {
		t.Fatalf("%d records, want 12", len(a))
	}
	if !reflect.DeepEqual(masked(a), masked(b)) {
		t.Fatal("records differ between 1 and 2 workers")
	}
	// Within a partition both methods saw identical training data and seeds;
	// different partitions are different data.
	hashes := map[int]float64{}
	for _, r := range a {
		h := figure(r, "datahash")
		if prev, ok := hashes[r.Partition]; ok {
			if prev != h {
				t.Errorf("partition %d: %s saw other training data", r.Partition, r.Entry)
			}
		} else {
			hashes[r.Partition] = h
		}
		if r.Status != "converged" || r.TestAccuracy <= 0.5 || r.NSV == 0 || r.TrainSize != 60 || r.TestSize != 60 {
			t.Errorf("record %v: status %s, acc %v, nsv %d, sizes %d/%d", r.Key(), r.Status, r.TestAccuracy, r.NSV, r.TrainSize, r.TestSize)
		}
	}
	if len(hashes) != 6 || hashes[0] == hashes[1] {
		t.Errorf("partition hashes %v: want 6 distinct", hashes)
	}
}

func TestFailureIsRecordedAndRunGoesOn(t *testing.T) {
	registerProbes(t)
	src := []Source{heartSource(t, 8, 2)}
	recs := runAll(t, Config{Seed: 2, Workers: 2}, src, mustEntries(t, "probe1,flaky"))
	failed, ok := 0, 0
	for _, r := range recs {
		switch {
		case r.Entry == "flaky" && r.Failed():
			failed++
			if !strings.Contains(r.Error, "flaky: iteration 3: matrix not SPD") {
				t.Errorf("error %q does not name method and iteration", r.Error)
			}
		case !r.Failed():
			ok++
		}
	}
	if failed == 0 || ok != 16-failed {
		t.Fatalf("failed %d, ok %d of 16", failed, ok)
	}
	tab := Summarize(recs, []string{"probe1", "flaky"}, "")[0]
	if tab.Rows[1].Failures != failed || tab.Rows[1].Runs != 8-failed || tab.Rows[1].Pairs != 8-failed {
		t.Errorf("summary row %+v, want %d failures", tab.Rows[1], failed)
	}
}

func TestResumeEqualsUninterruptedRun(t *testing.T) {
	registerProbes(t)
	src := []Source{heartSource(t, 5, 3)}
	entries := mustEntries(t, "probe1,probe2")
	c := Config{Seed: 3, Workers: 2}
	full := runAll(t, c, src, entries)

	path := filepath.Join(t.TempDir(), "res.jsonl")
	run := c.Fingerprint(entries, src)
	jobs := c.Plan(src, entries)
	sink, err := OpenFileSink(path, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int32
	_, err = Run(ctx, c, jobs, run, nil, sink, func(done, total int, _ *Record) {
		if n.Add(1) == 4 {
			cancel() // Ctrl-C after four jobs
		}
	})
	sink.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err = %v, want context.Canceled", err)
	}
	// A crash in mid-write leaves a torn line; resume must cope.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"dataset":"heart","entry":"pro`)
	f.Close()

	prior, err := ReadRecordsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(prior) < 4 || len(prior) >= len(jobs) {
		t.Fatalf("%d records after interruption, want between 4 and %d", len(prior), len(jobs)-1)
	}
	done := map[Key]bool{}
	for _, r := range prior {
		done[r.Key()] = true
	}
	sink, err = OpenFileSink(path, true)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := Run(context.Background(), c, jobs, run, done, sink, nil)
	sink.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(prior)+len(rest) != len(jobs) {
		t.Fatalf("resumed %d + %d records, want %d", len(prior), len(rest), len(jobs))
	}
	onDisk, err := ReadRecordsFile(path)
	if err != nil {
		t.Fatalf("results file after resume is not valid JSONL: %v", err)
	}
	merged, err := Merge(onDisk)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(masked(merged), masked(full)) {
		t.Fatal("resumed run differs from the uninterrupted run")
	}
	if a, b := tablesJSON(t, merged), tablesJSON(t, full); a != b {
		t.Logf("resumed: %s\nfull: %s", a, b)
		t.Fatal("resumed tables differ")
	}
}

// tablesJSON encodes the summary of records with timings masked (JSON, so
// that NaN p-values compare equal).
func tablesJSON(t *testing.T, rs []Record) string {
	t.Helper()
	b, err := json.Marshal(Summarize(masked(rs), nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFingerprint(t *testing.T) {
	registerProbes(t)
	src := []Source{heartSource(t, 2, 1)}
	e := mustEntries(t, "probe1")
	base := Config{Seed: 1, Options: methods.Options{Folds: 5}}
	fp := base.Fingerprint(e, src)
	if len(fp) != 12 {
		t.Fatalf("fingerprint %q", fp)
	}
	same := base
	same.Workers, same.Shard, same.Shards = 7, 2, 3
	same.Options.Recorder = func(methods.Step) {}
	if same.Fingerprint(e, src) != fp {
		t.Error("workers, shard or a recorder changed the fingerprint")
	}
	for name, c := range map[string]Config{
		"seed":      {Seed: 2, Options: methods.Options{Folds: 5}},
		"options":   {Seed: 1, Options: methods.Options{Folds: 3}},
		"gridrows":  {Seed: 1, Options: methods.Options{Folds: 5, GridRows: -1}},
		"normalize": {Seed: 1, Normalize: "minmax01", Options: methods.Options{Folds: 5}},
		"describe":  {Seed: 1, Options: methods.Options{Folds: 5}, Describe: map[string]string{"a": "b"}},
	} {
		if c.Fingerprint(e, src) == fp {
			t.Errorf("changing %s kept the fingerprint", name)
		}
	}
	if base.Fingerprint(mustEntries(t, "probe1:a"), src) == fp {
		t.Error("changing the entries kept the fingerprint")
	}
	// The same file name and partitions over other bytes (the data file
	// was edited between a run and its --resume) is another run.
	edited := *src[0].(*SplitSource)
	d := *edited.Data
	d.SHA256 = strings.Repeat("0", 64)
	edited.Data = &d
	if base.Fingerprint(e, []Source{&edited}) == fp {
		t.Error("changing the data's SHA-256 kept the fingerprint")
	}
	// The same through the one-hot wrapper of nominal data: its bytes count,
	// and encoded is another run than not encoded.
	enc := base.Fingerprint(e, []Source{OneHotSource{src[0]}})
	if enc == fp {
		t.Error("one-hot encoding kept the fingerprint")
	}
	if base.Fingerprint(e, []Source{OneHotSource{&edited}}) == enc {
		t.Error("changing the SHA-256 of one-hot encoded data kept the fingerprint")
	}
}

// Two data sets of one name are told apart by their paths, one-hot encoded
// ones too.
func TestUniqueNamesThroughOneHot(t *testing.T) {
	a, b := heartSource(t, 2, 1), heartSource(t, 2, 1)
	srcs := []Source{OneHotSource{a}, OneHotSource{b}}
	if err := uniqueNames(srcs, []string{"x/heart", "y/heart"}); err != nil {
		t.Fatal(err)
	}
	if srcs[0].Name() != "x/heart" || srcs[1].Name() != "y/heart" {
		t.Errorf("names %q and %q, want x/heart and y/heart", srcs[0].Name(), srcs[1].Name())
	}
}

func TestShardsMergeToSingleRun(t *testing.T) {
	registerProbes(t)
	src := []Source{heartSource(t, 4, 4)}
	entries := mustEntries(t, "probe1,probe2:a")
	c := Config{Seed: 4, Workers: 1}
	full := runAll(t, c, src, entries)
	var sets [][]Record
	seen := 0
	for i := 1; i <= 3; i++ {
		cs := c
		cs.Shard, cs.Shards = i, 3
		if cs.Fingerprint(entries, src) != c.Fingerprint(entries, src) {
			t.Fatal("the shard changed the run fingerprint")
		}
		part := runAll(t, cs, src, entries)
		seen += len(part)
		sets = append(sets, part)
	}
	if seen != len(full) {
		t.Fatalf("shards ran %d jobs, want %d", seen, len(full))
	}
	merged, err := Merge(sets...)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(masked(merged), masked(full)) {
		t.Fatal("merged shards differ from the single run")
	}
	other := append([]Record(nil), full[:1]...)
	other[0].Run = "different"
	if _, err := Merge(full, other); !errors.Is(err, ErrMixedRuns) {
		t.Fatalf("merging different runs: err = %v, want ErrMixedRuns", err)
	}
}

func TestSummarizeNumbers(t *testing.T) {
	var rs []Record
	base := []float64{0.80, 0.82, 0.79, 0.85, 0.90, 0.70, 0.76, 0.81, 0.88, 0.84}
	alt := []float64{0.78, 0.80, 0.80, 0.81, 0.86, 0.72, 0.70, 0.80, 0.85, 0.83}
	for k := range base {
		rs = append(rs, Record{Dataset: "d", Entry: "svm", Partition: k, Status: "converged", TestAccuracy: base[k], NSV: 10, Seconds: 1, Solves: 100})
		rs = append(rs, Record{Dataset: "d", Entry: "spd", Partition: k, Status: "converged", TestAccuracy: alt[k], NSV: 20, Seconds: 3, Solves: 10})
	}
	rs = append(rs, Record{Dataset: "d", Entry: "spd", Partition: 10, Status: StatusFailure})
	tab := Summarize(rs, []string{"svm", "spd"}, "")[0]
	svm, spd := tab.Rows[0], tab.Rows[1]
	if svm.Entry != "svm" || !svm.Best || spd.Best {
		t.Fatalf("rows %+v", tab.Rows)
	}
	// mean and sample std of base, from Python's statistics module.
	if math.Abs(float64(svm.MeanAcc)-0.815) > 1e-12 || math.Abs(float64(svm.StdAcc)-0.05816642788871717) > 1e-12 {
		t.Errorf("svm mean/std = %v/%v, want 0.815/0.0581664279", svm.MeanAcc, svm.StdAcc)
	}
	// p-value of the "simple" scipy case (same data as percentages): 0.0403051305.
	if math.Abs(float64(spd.P)-0.04030513050073345) > 1e-12 || spd.Failures != 1 || spd.MeanSV != 20 || spd.MeanSolves != 10 {
		t.Errorf("spd row %+v", spd)
	}
	if !math.IsNaN(float64(svm.P)) {
		t.Errorf("baseline p = %v, want NaN", svm.P)
	}
}

func TestParseEntries(t *testing.T) {
	registerProbes(t)
	if _, err := ParseEntries("probe1:zzz"); err == nil || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("unknown param: err = %v", err)
	}
	if _, err := ParseEntries("nosuch"); err == nil {
		t.Error("unknown method accepted")
	}
	if _, err := ParseEntries("probe1,probe1"); err == nil {
		t.Error("duplicate entry accepted")
	}
	// Modes: spd has variants, svm has none.
	e := mustEntries(t, "spd:full@lbfgs, spd@paper")
	if e[0] != (Entry{Method: "spd", Param: "full", Mode: "lbfgs"}) || e[0].String() != "spd:full@lbfgs" || e[1].String() != "spd@paper" {
		t.Errorf("entries with modes: %+v", e)
	}
	if _, err := ParseEntries("spd@nosuch"); err == nil || !strings.Contains(err.Error(), "paper, riemannian, backtrack, lbfgs") {
		t.Errorf("unknown mode: err = %v", err)
	}
	if _, err := ParseEntries("svm@paper"); err == nil || !strings.Contains(err.Error(), "no modes") {
		t.Errorf("mode of a method without modes: err = %v", err)
	}
	all := mustEntries(t, "all")
	if len(all) != len(methods.All) {
		t.Errorf("all = %v", all)
	}
}

// TestModeReachesMethod: an entry's mode is passed to the method and recorded.
func TestModeReachesMethod(t *testing.T) {
	src := []Source{heartSource(t, 1, 5)}
	recs := runAll(t, Config{Seed: 5, Workers: 1}, src, mustEntries(t, "spd@backtrack,spd"))
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		noted := strings.Contains(strings.Join(r.Notes, " "), "mode backtrack")
		if (r.Entry == "spd@backtrack") != noted || (r.Entry == "spd@backtrack") != (r.Mode == "backtrack") {
			t.Errorf("%s: mode %q, notes %q", r.Entry, r.Mode, r.Notes)
		}
		if r.Failed() {
			t.Errorf("%s failed: %s", r.Entry, r.Error)
		}
	}
}
