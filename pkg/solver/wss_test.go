package solver

import (
	"context"
	"math"
	"path/filepath"
	"testing"
)

// refSelectWorkingSet is LIBSVM's Solver::select_working_set written as
// LIBSVM writes it (branches on y_t and on the bound status, the division
// -b²/a for every candidate), the form selectWorkingSet replaced with NaN
// masks and a skipped division.
func refSelectWorkingSet(m *smo) (int, int, bool) {
	act := m.active
	gmax, gmax2 := math.Inf(-1), math.Inf(-1)
	gmaxIdx, gminIdx := -1, -1
	objDiffMin := math.Inf(1)
	for t := range act {
		if m.y[t] > 0 {
			if m.status[t] != atUpper && -m.g[t] >= gmax {
				gmax, gmaxIdx = -m.g[t], t
			}
		} else if m.status[t] != atLower && m.g[t] >= gmax {
			gmax, gmaxIdx = m.g[t], t
		}
	}
	i := gmaxIdx
	if i != -1 {
		qi := m.cache.get(i, act)
		for j := range act {
			var gj, quad float64
			if m.y[j] > 0 {
				if m.status[j] == atLower {
					continue
				}
				gj = m.g[j]
				quad = m.qd[i] + m.qd[j] - 2*m.y[i]*qi[j]
			} else {
				if m.status[j] == atUpper {
					continue
				}
				gj = -m.g[j]
				quad = m.qd[i] + m.qd[j] + 2*m.y[i]*qi[j]
			}
			if gj >= gmax2 {
				gmax2 = gj
			}
			if diff := gmax + gj; diff > 0 {
				if quad <= 0 {
					quad = tau
				}
				if od := -diff * diff / quad; od <= objDiffMin {
					gminIdx, objDiffMin = j, od
				}
			}
		}
	}
	if gmax+gmax2 < m.eps || gminIdx == -1 {
		return 0, 0, false
	}
	return gmaxIdx, gminIdx, true
}

// TestWSSMatchesLIBSVMForm steps SMO as solve does (shrinking included) and
// checks at every iteration that selectWorkingSet picks the pair, or stops,
// exactly as LIBSVM's form of WSS3 does on the same state: the masks and the
// skipped divisions change no choice, ties included (duplicated rows give
// equal -b²/a). Problems: C-SVC on real data at small and large C, on data
// with every row twice, and the radius QP (y = 1, Δ = 1, no upper bound).
func TestWSSMatchesLIBSVMForm(t *testing.T) {
	x, y := readLIBSVM(t, filepath.Join(testdataDir, "libsvm", "heart_scale"))
	x, y = x[:120], y[:120]
	twice := append(append([][]float64{}, x[:60]...), x[:60]...)
	ytwice := append(append([]float64{}, y[:60]...), y[:60]...)
	mx, my := mixture(150, 5, 1, 7)
	ones := make([]float64, 150)
	for k := range ones {
		ones[k] = 1
	}
	cases := []struct {
		name string
		pr   Problem
	}{
		{"heart C=1", Problem{Q: gram(x, rbf(0.1)), Y: y, Cp: 1, Cn: 1}},
		{"heart C=1000", Problem{Q: gram(x, rbf(0.5)), Y: y, Cp: 1000, Cn: 1000}},
		{"heart twice C=10", Problem{Q: gram(twice, rbf(0.2)), Y: ytwice, Cp: 10, Cn: 10}},
		{"mixture C=4 weighted", Problem{Q: gram(mx, rbf(0.3)), Y: my, Cp: 4, Cn: 1}},
		{"radius", Problem{Q: gram(mx, rbf(0.3)), Y: ones, P: make([]float64, 150), Delta: 1, Cp: math.Inf(1), Cn: math.Inf(1)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			iters, stops := stepCompareWSS(t, tc.pr)
			if iters < 20 {
				t.Errorf("only %d iterations compared", iters)
			}
			if stops == 0 {
				t.Error("the stopping test was never compared")
			}
		})
	}
}

// stepCompareWSS runs solve's loop by hand on pr, comparing the working-set
// selections, and returns the iterations and the "optimal" answers compared.
func stepCompareWSS(t *testing.T, pr Problem) (iters, stops int) {
	t.Helper()
	m, err := newSMO(pr, 1e-3, true, 1<<20, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer m.cache.release()
	if err := m.initGradient(context.Background()); err != nil {
		t.Fatal(err)
	}
	check := func() (int, int, column, bool) {
		// The reference recomputes the first pass that update fused into
		// its gradient sweep, so the fusion is checked too. It runs first:
		// selectWorkingSet's column i is then the cache's most recent,
		// as update needs.
		ri, rj, rok := refSelectWorkingSet(m)
		i, j, qi, ok := m.selectWorkingSet()
		if ok != rok || (ok && (i != ri || j != rj)) {
			t.Fatalf("iteration %d: selectWorkingSet (%d, %d, %v), LIBSVM's form (%d, %d, %v)", m.iter, i, j, ok, ri, rj, rok)
		}
		if !ok {
			stops++
		}
		return i, j, qi, ok
	}
	counter := min(m.n, 1000) + 1
	for m.iter < 100000 {
		if counter--; counter == 0 {
			counter = min(m.n, 1000)
			m.doShrinking()
		}
		i, j, qi, ok := check()
		if !ok {
			m.unshrinkAll()
			if i, j, qi, ok = check(); !ok {
				return iters, stops
			}
			counter = 1
		}
		m.iter++
		iters++
		if err := m.update(i, j, qi); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("no convergence in %d iterations", m.iter)
	return
}
