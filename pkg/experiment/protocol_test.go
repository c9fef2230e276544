package experiment

import (
	"context"
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
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// probe is a test method: it learns nothing, but records a hash of the exact
// training data it was given (so tests can check that every method sees the
// same partitions), and fails on the partitions listed in failOn. It is a
// methods.Custom, a Go program's own method, as the protocol runs one.
type probe struct {
	name, param string
	failOn      map[uint64]bool // by the hash of the training data
}

func (p probe) spec() methods.Custom {
	return methods.Custom{ID: p.name, Func: p.tune, Peak: func(n, d int) int64 { return methods.RuntimeBytes + int64(8*n*d) }}
}

func (p probe) tune(ctx context.Context, c methods.Common, train *dataio.Dataset) (*methods.Result, error) {
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
		Method: p.name, Param: p.param, Status: status.Converged,
		Kernel: kernel.Spec{Kind: "gaussian", Gamma: 0.05}, Margin: solver.L1, C: 1,
		Figures: []methods.Figure{{Name: "datahash", Value: float64(sum >> 12)}, {Name: "seed", Value: float64(c.Seed >> 12)}},
		Trace:   []methods.Step{{Iter: 0, Objective: 2}, {Iter: 1, Objective: 1}},
		Solves:  1,
	}, nil
}

func fmtFloat(v float64) string { return string(rune(int(math.Float64bits(v) % 1e6))) }

// probeEntry returns the entry of a probe: "probe1", "probe2" or "flaky"
// (fails on two partitions of heart), with ":param".
func probeEntry(item string) (Entry, bool) {
	name, param, _ := strings.Cut(strings.TrimSpace(item), ":")
	p := probe{name: name, param: param}
	switch name {
	case "probe1", "probe2":
	case "flaky":
		p.failOn = map[uint64]bool{0: true, 3: true}
	default:
		return Entry{}, false
	}
	return Entry{Entry: methods.Entry{Method: name, Param: param}, Spec: p.spec()}, true
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
	return &dataio.Partitioned{Data: d, Splits: splits}
}

// mustEntries parses a list of entries, probes (probeEntry) among them.
func mustEntries(t *testing.T, s string) []Entry {
	t.Helper()
	var out []Entry
	for _, item := range strings.Split(s, ",") {
		if e, ok := probeEntry(item); ok {
			out = append(out, e)
			continue
		}
		e, err := ParseEntries(item)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e...)
	}
	return out
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
		out[i].Seconds, out[i].SharedSeconds = 0, 0
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
	// Every job has its record: 8 partitions of each entry, so probe1
	// finished all 8 and flaky the 8-failed others (the tables made of
	// them: report's TestSummarizeNumbers).
	perEntry := map[string]int{}
	for _, r := range recs {
		perEntry[r.Entry]++
	}
	if perEntry["probe1"] != 8 || perEntry["flaky"] != 8 {
		t.Errorf("records per entry %v, want 8 each", perEntry)
	}
}

func TestResumeEqualsUninterruptedRun(t *testing.T) {
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
	_, err = Run(ctx, c, jobs, run, nil, sink, func(done, total int, last *Record) {
		if last != nil && n.Add(1) == 4 {
			cancel() // Ctrl-C after four jobs
		}
	})
	sink.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err = %v, want context.Canceled", err)
	}
	// A crash in mid-write leaves a torn line; resume must cope.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"schema_version":1,"dataset":"heart","entry":"pro`)
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
	// The same records (timings aside) make the same tables: the summary
	// is a function of the records alone (report.Summarize).
	if !reflect.DeepEqual(masked(merged), masked(full)) {
		t.Fatal("resumed run differs from the uninterrupted run")
	}
}

func TestFingerprint(t *testing.T) {
	src := []Source{heartSource(t, 2, 1)}
	e := mustEntries(t, "probe1")
	base := Config{Seed: 1, Base: methods.Common{Folds: 5}}
	fp := base.Fingerprint(e, src)
	if len(fp) != 12 {
		t.Fatalf("fingerprint %q", fp)
	}
	same := base
	same.Workers, same.Shard, same.Shards = 7, 2, 3
	same.Base.Recorder = func(methods.Step) {}
	same.Base.Workers, same.Base.Seed = 3, 99
	if same.Fingerprint(e, src) != fp {
		t.Error("workers, shard or a recorder changed the fingerprint")
	}
	for name, c := range map[string]Config{
		"seed":      {Seed: 2, Base: methods.Common{Folds: 5}},
		"options":   {Seed: 1, Base: methods.Common{Folds: 3}},
		"gridrows":  {Seed: 1, Base: methods.Common{Folds: 5, GridRows: -1}},
		"normalize": {Seed: 1, Normalize: "minmax01", Base: methods.Common{Folds: 5}},
		"select":    {Seed: 1, Base: methods.Common{Folds: 5}, Select: SelectLaanaya},
	} {
		if c.Fingerprint(e, src) == fp {
			t.Errorf("changing %s kept the fingerprint", name)
		}
	}
	if base.Fingerprint(mustEntries(t, "probe1:a"), src) == fp {
		t.Error("changing the entries kept the fingerprint")
	}
	// An entry's own settings are part of the run: the same entry name
	// with another iteration limit is another run.
	gi := mustEntries(t, "gi")
	gi7 := mustEntries(t, "gi")
	s := gi7[0].Spec.(methods.GISettings)
	s.Steps = 7
	gi7[0].Spec = s
	if base.Fingerprint(gi, src) == base.Fingerprint(gi7, src) {
		t.Error("an entry's own setting did not change the fingerprint")
	}
	// The same file name and partitions over other bytes (the data file
	// was edited between a run and its --resume) is another run.
	edited := *src[0].(*dataio.Partitioned)
	d := *edited.Data
	d.SHA256 = strings.Repeat("0", 64)
	edited.Data = &d
	if base.Fingerprint(e, []Source{&edited}) == fp {
		t.Error("changing the data's SHA-256 kept the fingerprint")
	}
	// The same of one-hot encoded partitions of nominal data: its bytes
	// count, and encoded is another run than not encoded.
	oneHot := func(p *dataio.Partitioned) Source { c := *p; c.OneHot = true; return &c }
	enc := base.Fingerprint(e, []Source{oneHot(src[0].(*dataio.Partitioned))})
	if enc == fp {
		t.Error("one-hot encoding kept the fingerprint")
	}
	if base.Fingerprint(e, []Source{oneHot(&edited)}) == enc {
		t.Error("changing the SHA-256 of one-hot encoded data kept the fingerprint")
	}
}

// Two data sets of one name are told apart by their paths, one-hot encoded
// ones too; the same path twice is refused.
func TestUniqueNamesByPath(t *testing.T) {
	a, b := heartSource(t, 2, 1).(*dataio.Partitioned), heartSource(t, 2, 1).(*dataio.Partitioned)
	parts := []*dataio.Partitioned{
		{Spec: DatasetSettings{Path: "x/heart"}, Data: a.Data, Splits: a.Splits, OneHot: true},
		{Spec: DatasetSettings{Path: "y/heart"}, Data: b.Data, Splits: b.Splits, OneHot: true},
	}
	if err := uniqueNames(parts); err != nil {
		t.Fatal(err)
	}
	if parts[0].Name() != "x/heart" || parts[1].Name() != "y/heart" {
		t.Errorf("names %q and %q, want x/heart and y/heart", parts[0].Name(), parts[1].Name())
	}
	if a.Name() != "heart" {
		t.Errorf("renaming changed the data it was opened with: %q", a.Name())
	}
	var dup *DuplicateDataError
	if err := uniqueNames([]*dataio.Partitioned{parts[0], parts[0]}); !errors.As(err, &dup) || dup.Path != "x/heart" {
		t.Errorf("the same path twice: %v", err)
	}
}

func TestShardsMergeToSingleRun(t *testing.T) {
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

func TestParseEntries(t *testing.T) {
	if _, err := ParseEntries("spd:zzz"); err == nil || !strings.Contains(err.Error(), "diag, full") {
		t.Errorf("unknown param: err = %v", err)
	}
	if _, err := ParseEntries("nosuch"); err == nil {
		t.Error("unknown method accepted")
	}
	if _, err := ParseEntries("svm,svm"); err == nil {
		t.Error("duplicate entry accepted")
	}
	// Modes: spd has variants, svm has none.
	e := mustEntries(t, "spd:full@lbfgs, spd@paper")
	if e[0].Entry != (methods.Entry{Method: "spd", Param: "full", Mode: "lbfgs"}) || e[0].String() != "spd:full@lbfgs" || e[1].String() != "spd@paper" ||
		!reflect.DeepEqual(e[0].Spec, methods.Spec(methods.SPDSettings{Param: "full", Mode: "lbfgs"})) {
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
