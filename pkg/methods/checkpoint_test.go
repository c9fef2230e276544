package methods

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// cutCheckpoint keeps the first limit outcomes recorded, as a file does
// when the run is killed after them, and counts the outcomes a run found.
type cutCheckpoint struct {
	mu       sync.Mutex
	limit    int
	keys     []string
	m        map[string][]byte
	recalled int
}

func (c *cutCheckpoint) Outcome(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[key]
	if ok {
		c.recalled++
	}
	return b, ok
}

func (c *cutCheckpoint) Record(key string, b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	if len(c.keys) < c.limit {
		c.keys = append(c.keys, key)
		c.m[key] = b
	}
	return nil
}

// resultJSON is a Result without its timings, as JSON.
func resultJSON(t *testing.T, r *Result) string {
	t.Helper()
	b, err := json.Marshal(untimed(r))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// untimed is a copy of r (and its subproblems') without timings.
func untimed(r *Result) *Result {
	c := *r
	c.Elapsed = 0
	c.Trace = append([]Step(nil), r.Trace...)
	for i := range c.Trace {
		c.Trace[i].Elapsed = 0
	}
	c.Pairs = append([]PairResult(nil), r.Pairs...)
	for i := range c.Pairs {
		c.Pairs[i].Result = untimed(c.Pairs[i].Result)
	}
	return &c
}

// TestCheckpointResumesEveryMethod runs each method whole, then again with
// a checkpoint cut after k of the steps the whole run kept, resumed: the
// Result is the uninterrupted run's, and the resumed run found k outcomes.
func TestCheckpointResumesEveryMethod(t *testing.T) {
	cases := []struct {
		name string
		spec Spec
		data string
	}{
		{"svm", SVMSettings{}, ""},
		{"random", RandomSettings{Budget: 8}, ""},
		{"bo", BOSettings{Budget: 8}, ""},
		{"halving", HalvingSettings{}, ""},
		{"rcsc", RCSCSettings{}, ""},
		{"rcsc-paper", RCSCSettings{Schedule: "paper", MaxIter: 6}, ""},
		{"lccp", LCCPSettings{MaxIter: 6}, ""},
		{"gi", GISettings{Steps: 6}, ""},
		{"spd", SPDSettings{MaxIter: 6}, ""},
		{"spd-full-riemannian", SPDSettings{Param: "full", Mode: "riemannian", MaxIter: 5}, ""},
		{"spd-cv", SPDSettings{Init: "cv", MaxIter: 3}, ""},
		{"lccp-multiclass", LCCPSettings{MaxIter: 4}, "wine.scale"},
		{"svm-multiclass", SVMSettings{}, "wine.scale"},
		{"gi-full", GISettings{Param: "full", Steps: 5, Common: Common{C: 1}}, ""},
		{"gi-diag-path", GISettings{Param: "C", Steps: 6, Common: Common{C: 1}, path: giPathDiag}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			train := heartHead(t, 120)
			if tc.data != "" {
				train = mcData(t, tc.data)
			}
			full := &cutCheckpoint{limit: 1 << 30}
			b := tc.spec.Base()
			b.Workers, b.Checkpoint = 2, full
			want, err := Tune(context.Background(), tc.spec.WithBase(b), train)
			if err != nil {
				t.Fatal(err)
			}
			n := len(full.keys)
			if n < 3 {
				t.Fatalf("%d steps kept, want several", n)
			}
			plain := tc.spec.Base()
			plain.Workers = 2
			none, err := Tune(context.Background(), tc.spec.WithBase(plain), train)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := resultJSON(t, none), resultJSON(t, want); g != w {
				t.Fatalf("a checkpoint changed the result:\nwithout %s\nwith    %s", g, w)
			}
			t.Logf("%d steps kept", n)
			for _, k := range []int{1, n / 2, n - 1} {
				cut := &cutCheckpoint{limit: k}
				for _, key := range full.keys[:k] {
					cut.Record(key, full.m[key])
				}
				cut.limit = 1 << 30
				b.Checkpoint = cut
				got, err := Tune(context.Background(), tc.spec.WithBase(b), train)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := resultJSON(t, got), resultJSON(t, want); g != w {
					t.Fatalf("resumed after %d of %d steps:\ngot  %s\nwant %s", k, n, g, w)
				}
				if cut.recalled < 1 || (k > 1 && !strings.HasPrefix(full.keys[k-1], "loop/") && cut.recalled < k) {
					t.Errorf("resumed after %d of %d steps: %d outcomes used", k, n, cut.recalled)
				}
			}
		})
	}
}
