package model

// One-vs-one multi-class SVMs, as LIBSVM trains and predicts them
// (svm.cpp: svm_train's loop over the pairs of classes, svm_group_classes,
// svm_predict_values' vote): for k classes, k(k-1)/2 binary SVMs, pair
// (i, j) with i < j trained on the rows of classes i and j (class i = +1),
// and a prediction by vote: f_ij(x) > 0 votes for i, otherwise for j; the
// class with the most votes wins, a tie going to the class first in the
// label order.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/probability"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/sparse"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// PairIndex lists the one-vs-one pairs of k classes in LIBSVM's order:
// (0,1), (0,2), …, (0,k-1), (1,2), …, (k-2,k-1).
func PairIndex(k int) [][2]int {
	var p [][2]int
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			p = append(p, [2]int{i, j})
		}
	}
	return p
}

// PairSVM is the kernel and the SVM parameters of one pair of classes.
type PairSVM struct {
	Kernel kernel.Spec
	Margin Margin
	C      float64
	// WeightPos and WeightNeg multiply C for the subproblem's +1 and -1
	// side (class weights, L1 margin; 0 means 1).
	WeightPos, WeightNeg float64
}

// IsMultiClass reports whether m is a multi-class model (Classes and Pairs
// set), one-vs-one or one-vs-rest (Multiclass).
func (m *Model) IsMultiClass() bool { return len(m.Classes) > 0 }

// fitMulti fits the binary SVMs of the multi-class training part s.Train,
// one per subproblem of its scheme (dataio.Dataset.Subproblems: the pairs
// of classes one-vs-one, each class against the rest one-vs-rest):
// subproblem p with pairs[p] (all with s.Kernel, s.Margin, s.C when pairs
// is nil), each on its rows (dataio.Dataset.Sub: a pair's two classes in
// LIBSVM's order, or every row). The model's top-level kernel, margin and C are the
// first pair's (every pair's when they share them); Training sums the
// pairs' work, with N the training rows and NSV LIBSVM's total_sv, the
// training rows that are a support vector of some pair.
func fitMulti(ctx context.Context, s FitSettings, pairs []PairSVM, st solver.Settings, probSolves *int, votes *trainVotes) (*Model, status.Status, error) {
	train := s.Train
	k := train.NumClasses()
	idx := train.Subproblems()
	if pairs == nil {
		pairs = make([]PairSVM, len(idx))
		for p := range pairs {
			pairs[p] = PairSVM{Kernel: s.Kernel, Margin: s.Margin, C: s.C}
		}
	}
	if len(pairs) != len(idx) {
		return nil, 0, fmt.Errorf("fit SVM: %d subproblem settings for %d classes (want %d)", len(pairs), k, len(idx))
	}
	if s.WeightPos != 0 && s.WeightPos != 1 || s.WeightNeg != 0 && s.WeightNeg != 1 {
		return nil, 0, errors.New("fit SVM: class weights (weight-pos, weight-neg) are for two classes; this data has " + fmt.Sprint(k))
	}
	for c, n := range train.ClassSizes() {
		if n == 0 {
			return nil, 0, fmt.Errorf("fit SVM: class %q has no training rows", train.ClassLabels[c])
		}
	}
	d := train.Dim()
	m := &Model{
		Encoder: train.Encoder, Normalizer: s.Norm, GammaSpace: gammaSpace(s.Norm), NumFeatures: d,
		FeatureNames: modelFeatureNames(train),
		Classes:      slices.Clone(train.ClassLabels), Multiclass: train.Multiclass,
		TrainingRows: trainingRowHashes(train.Features()),
		Sparse:       train.IsSparse(),
		Provenance:   Provenance{Data: train.Source, DataSHA256: train.SHA256},
		Bias:         0, SupportVectors: []SupportVector{},
	}
	// The pairs' SVMs, on two cores when pairWorkers allows; then their
	// results in LIBSVM's order, so that nothing depends on which finished
	// first.
	// Each pair's SVM reads its rows of train.X in place (fitSVMAt): the
	// data are held once, not once more per pair, and its support vectors
	// stay rows of train.X until shareSVRows moves them into the model.
	fits := make([]pairFit, len(idx))
	// What the pairs' results give the whole model, taken from each as it
	// finishes (the training rows' votes and which rows are support
	// vectors: counts and flags, the same in any order), so that a
	// finished pair keeps only its model, not its rows, labels, α and
	// decision values: on letter's 325 pairs of 1,150 rows they were 12 of
	// the fit's 31 MB live heap by its end.
	isSV := make([]bool, train.Len())
	var tally sync.Mutex
	fitOne := func(p int, st solver.Settings, pw *pairWork) {
		ij, ps := idx[p], pairs[p]
		rows := train.SubRows(ij)
		y := make([]float64, len(rows))
		for r, i := range rows {
			y[r] = -1
			if train.Class[i] == ij.Pos {
				y[r] = 1
			}
		}
		par := solver.SVCParams{Margin: ps.Margin, C: ps.C, WeightPos: ps.WeightPos, WeightNeg: ps.WeightNeg}
		if ps.Margin == Hard {
			par.C = 0
		}
		f := &fits[p]
		var res solver.SVCResult
		if f.pm, res, f.err = fitSVMAt(ctx, train, rows, y, dataio.SubLabels(train.ClassLabels, ij), nil, ps.Kernel, par, st, false, pw); f.err != nil {
			return
		}
		f.status = res.Status
		tally.Lock()
		if votes != nil && ij.Neg != dataio.Rest {
			votes.add(rows, y, res)
		}
		for r, a := range res.Alpha {
			if a > 0 {
				isSV[rows[r]] = true
			}
		}
		tally.Unlock()
		f.pm.Encoder, f.pm.FeatureNames, f.pm.TrainingRows, f.pm.Provenance = nil, nil, nil, Provenance{}
		if !train.IsSparse() {
			f.pm.SupportVectors, f.svRows = nil, svRowsOf(rows, res.Alpha)
		}
		if s.Probability {
			// svm_train calls svm_binary_svc_probability on each pair's
			// rows, with the pair's C, before the pair's SVM.
			f.pm.Probability, f.err = fitSigmoid(ctx, train.Sub(ij), ps.Kernel, par, st, s.Seed, p, &f.probSolves)
		}
		f.pm.FormatVersion = formatVersionOf(f.pm)
	}
	// The pairs at once share the cache of --cache-mb between them, as one
	// binary SVM would have it, and each keeps its columns' buffers and its
	// kernel's compressed rows for its next pair (solver.Workspace,
	// kernel.RowsWorkspace; results do not depend on either).
	collectPairs(train, st.CacheBytes) // what reading the data left, before the pairs' work sets the collector's goal
	w := pairWorkers(train, idx, st)
	one := st
	if w > 1 {
		one.Workers = 1 // a core per pair
	}
	one.CacheBytes = cmp.Or(st.CacheBytes, defaultCacheBytes) / w
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		svs  = new(svStore) // each sparse support vector once
	)
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := one
			st.Workspace = new(solver.Workspace)
			pw := &pairWork{rows: new(kernel.RowsWorkspace), svs: svs}
			for p := int(next.Add(1) - 1); p < len(idx); p = int(next.Add(1) - 1) {
				if fits[p].err = ctx.Err(); fits[p].err == nil {
					fitOne(p, st, pw)
				}
				if fits[p].err != nil && w == 1 {
					break
				}
			}
		}()
	}
	wg.Wait()
	collectPairs(train, st.CacheBytes)
	if afterPairs != nil {
		afterPairs(fits)
	}
	worst := status.Converged
	for p, ij := range idx {
		f := fits[p]
		if f.err != nil {
			if f.err == ctx.Err() { // not started: the run was cancelled
				return nil, 0, f.err
			}
			return nil, 0, fmt.Errorf("%s: %w", dataio.SubName(train.ClassLabels, ij), f.err)
		}
		*probSolves += f.probSolves
		pm := f.pm
		if f.status != status.Converged {
			worst = f.status
		}
		if f.svRows != nil {
			pm.SupportVectors = pairSVs(pm, train.X, f.svRows)
		}
		m.Training.Iter += pm.Training.Iter
		m.Training.NBSV += pm.Training.NBSV
		m.Pairs = append(m.Pairs, pm)
	}
	if !m.Sparse { // a sparse pair's support vectors are copies already (sparseSVs)
		shareSVRows(m.Pairs, d, true) // the support vectors out of train.X, each row once
	}
	first := m.Pairs[0]
	m.Kernel, m.MarginKind, m.C, m.Labels = first.Kernel, first.MarginKind, first.C, dataio.LabelMap{}
	for _, sv := range isSV {
		if sv {
			m.Training.NSV++
		}
	}
	m.Training.N, m.Training.Status, m.Training.Eps = train.Len(), worst.String(), first.Training.Eps
	m.FormatVersion = formatVersionOf(m)
	if err := m.prepare(); err != nil {
		return nil, 0, fmt.Errorf("fit SVM: %w", err)
	}
	return m, worst, nil
}

// pairFit is one binary SVM of fitMulti: its model, the solver's status,
// the SVMs its probability estimates trained, or its error.
type pairFit struct {
	pm *Model
	// svRows are the rows of train.X of a dense pm's support vectors,
	// in order, while the other pairs are solved: pm.SupportVectors is nil
	// until fitMulti assembles the model (pairSVs). A SupportVector is 80
	// bytes where its row is 4 (pm.coef keeps the coefficients): on
	// letter's 325 pairs, 60,000 support vectors, 4.8 MB against 0.24 of
	// the pairs' live heap as the last were solved.
	svRows     []int32
	status     status.Status
	probSolves int
	err        error
}

// svRowsOf returns rows[r] for the r with alpha[r] > 0, in order: the rows
// of the training matrix that denseSVs made a pair's support vectors.
func svRowsOf(rows []int, alpha []float64) []int32 {
	out := make([]int32, 0, positives(alpha))
	for r, a := range alpha {
		if a > 0 {
			out = append(out, int32(rows[r]))
		}
	}
	return out
}

// pairSVs returns pm's support vectors again from the rows of X that
// svRowsOf kept and pm.coef, as denseSVs made them: the same coefficients
// and the same rows of X (which shareSVRows then moves out).
func pairSVs(pm *Model, X *mat.Dense, rows []int32) []SupportVector {
	d := pm.NumFeatures
	coef := pm.coef.RawVector().Data
	out := make([]SupportVector, len(rows))
	for j, i := range rows {
		out[j] = SupportVector{Coef: coef[j], X: X.RawRowView(int(i))[:d:d]}
	}
	return out
}

// afterPairs, when set (by tests), sees fitMulti's pairs once all are
// solved, before the model is assembled from them.
var afterPairs func([]pairFit)

// pairWorkers is how many of train's binary SVMs (idx) fitMulti solves at
// once: two (a core each) when the process has two cores, the caller has
// not asked for one (st.Workers 1: compare's jobs run side by side), and
// two pairs' caches together need no more than the one cache of the whole
// training part that the memory estimates count (model.FitGCLimit): on
// letter's 325 pairs of about 1,150 rows, 12 MB each against 200 MB. Each
// pair's result is the same either way (a solve's columns on one core or
// two give the same bits: solver's TestParallelColumnsSamePath).
func pairWorkers(train *dataio.Dataset, idx []dataio.Subproblem, st solver.Settings) int {
	if len(idx) < 2 || st.Workers == 1 || runtime.GOMAXPROCS(0) < 2 {
		return 1
	}
	cache := int64(cmp.Or(st.CacheBytes, defaultCacheBytes))
	n := int64(train.Len())
	whole := min(cache, 8*n*n)
	largest := int64(0)
	sizes := train.ClassSizes()
	for _, ij := range idx {
		r := n // one class against the rest: every row
		if ij.Neg != dataio.Rest {
			r = int64(sizes[ij.Pos] + sizes[ij.Neg])
		}
		largest = max(largest, min(cache, 8*r*r))
	}
	if 2*largest > whole {
		return 1
	}
	return 2
}

// trainVotes are the one-vs-one votes of the training rows for their own
// class that each pair's solver already knows (solver.SVCResult.F: the
// pair's decision values on its own rows), so that the training accuracy
// needs the model's prediction only for the rows these do not settle
// (trainCorrect). A row is settled when it won all k-1 of its class's pairs
// with signs far from 0: no other class can then reach k-1 votes, so
// LIBSVM's vote (Vote) picks its class whatever the other pairs say.
type trainVotes struct {
	own   []int  // pairs of the row's class it won
	doubt []bool // some pair's value was within rounding of 0 (or NaN)
}

func newTrainVotes(n int) *trainVotes {
	return &trainVotes{own: make([]int, n), doubt: make([]bool, n)}
}

// add counts one pair's votes: rows are its rows in the training part, y
// their labels in the pair (+1: its first class, which f > 0 votes for).
// A value within 10⁻⁶ (relative) of 0 marks the row as doubtful, as
// trainDecision does for a binary model: F agrees with a fresh evaluation
// only up to the rounding of the solver's updates.
func (v *trainVotes) add(rows []int, y []float64, res solver.SVCResult) {
	scale := 1 + math.Abs(res.Rho)
	for _, f := range res.F {
		scale = max(scale, math.Abs(f+res.Rho))
	}
	for r, f := range res.F {
		i := rows[r]
		if !(math.Abs(f) > 1e-6*scale) { // NaN too
			v.doubt[i] = true
			continue
		}
		if (y[r] > 0) == (f > 0) {
			v.own[i]++
		}
	}
}

// trainCorrect is the number of rows of train that m (one-vs-one) predicts
// right, as correct(train.Class, m.PredictClassesNormalized(train.X)) but
// predicting only the rows that v does not settle (nil v: every row). On
// letter (15,000 rows, 26 classes) this prediction of the training rows was
// half of train's CPU: LIBSVM's svm-train makes none.
func trainCorrect(m *Model, train *dataio.Dataset, v *trainVotes) int {
	if v == nil {
		return correct(train.Class, m.PredictClassesNormalized(train.Features()))
	}
	k := len(m.Classes)
	sure := 0
	var rest []int
	for i := range train.Class {
		if !v.doubt[i] && v.own[i] == k-1 {
			sure++
		} else {
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 {
		return sure
	}
	for r, c := range m.PredictClassesNormalized(selectRows(train.Features(), rest)) {
		if c == train.Class[rest[r]] {
			sure++
		}
	}
	return sure
}

// validateMulti checks what a multi-class model adds to the shared checks:
// a known scheme, at least three distinct classes, a valid binary SVM per
// subproblem in its order (k(k-1)/2 pairs in LIBSVM's order, or k classes
// against the rest), each labelled with its classes and with the model's
// features.
func (m *Model) validateMulti() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
	}
	k := len(m.Classes)
	if m.FormatVersion < 3 {
		return bad("classes in a format_version %d file (multi-class models need 3)", m.FormatVersion)
	}
	if k < 3 {
		return bad("%d classes, a multi-class model has at least 3", k)
	}
	if m.Probability != nil {
		return bad("probability at the top of a multi-class model (each pair has its own)")
	}
	if m.HasProbability() {
		if m.Multiclass == dataio.OneVsRest {
			return bad("probability estimates in a one-vs-rest model (they are one-vs-one's, LIBSVM's -b 1)")
		}
		for p, pm := range m.Pairs {
			if pm != nil && pm.Probability == nil {
				return bad("pair %d has no probability, other pairs have one (every pair has one, or none)", p+1)
			}
		}
	}
	if m.Multiclass != "" && m.Multiclass != dataio.OneVsRest {
		return bad("multiclass %q (want absent for one-vs-one, or %q)", m.Multiclass, dataio.OneVsRest)
	}
	seen := map[string]bool{}
	for _, c := range m.Classes {
		if seen[c] {
			return bad("class %q listed twice", c)
		}
		seen[c] = true
	}
	idx := dataio.Subproblems(k, m.Multiclass)
	if len(m.Pairs) != len(idx) {
		return bad("%d binary SVMs for %d classes %s, want %d", len(m.Pairs), k, m.schemeWords(), len(idx))
	}
	nsv := 0
	for p, pm := range m.Pairs {
		if pm == nil {
			return bad("pair %d is empty", p+1)
		}
		want := dataio.SubLabels(m.Classes, idx[p])
		if pm.Labels != want {
			return bad("pair %d has classes %q and %q, want %q and %q (%s)", p+1, pm.Labels.Positive, pm.Labels.Negative, want.Positive, want.Negative, m.schemeWords())
		}
		if pm.NumFeatures != m.NumFeatures {
			return bad("pair %d has %d features, the model %d", p+1, pm.NumFeatures, m.NumFeatures)
		}
		if pm.IsMultiClass() || pm.Normalizer != nil || pm.Encoder != nil {
			return bad("pair %d is not a binary SVM in the model's normalised space", p+1)
		}
		if pm.Sparse != m.Sparse {
			return bad("pair %d has sparse_support_vectors %v, the model %v", p+1, pm.Sparse, m.Sparse)
		}
		if err := pm.prepare(); err != nil {
			return fmt.Errorf("pair %d (classes %q and %q): %w", p+1, want.Positive, want.Negative, err)
		}
		nsv += pm.NSV()
	}
	if t := m.Training; t.NSV > nsv || t.N < t.NSV || len(m.SupportVectors) != 0 || m.Bias != 0 {
		return bad("training.n_sv = %d, n = %d with %d support vectors in the pairs, %d at the top: they do not agree", t.NSV, t.N, nsv, len(m.SupportVectors))
	}
	return nil
}

// schemeWords names m's scheme in messages.
func (m *Model) schemeWords() string {
	if m.Multiclass == dataio.OneVsRest {
		return "one-vs-rest"
	}
	return "one-vs-one, LIBSVM's order"
}

// Subproblems lists the binary problems of a multi-class model's SVMs
// (Pairs), in their order (nil for a binary model).
func (m *Model) Subproblems() []dataio.Subproblem {
	if !m.IsMultiClass() {
		return nil
	}
	return dataio.Subproblems(len(m.Classes), m.Multiclass)
}

// PairDecisions returns, for the raw rows of X (the model's normaliser is
// applied first), the decision value of every binary SVM: out[p][i] is
// Pairs[p]'s f(x_i), in Subproblems' order. It panics for a binary model.
func (m *Model) PairDecisions(X mat.Matrix) [][]float64 {
	return m.pairDecisions(X, m.Normalizer)
}

// PairDecisionsNormalized is PairDecisions on rows already normalised.
func (m *Model) PairDecisionsNormalized(X mat.Matrix) [][]float64 {
	return m.pairDecisions(X, nil)
}

func (m *Model) pairDecisions(X mat.Matrix, norm *dataio.Normalizer) [][]float64 {
	m.mustReady()
	if !m.IsMultiClass() {
		panic("model: PairDecisions of a binary model")
	}
	if norm != nil {
		if _, d := X.Dims(); d != m.NumFeatures {
			panic(fmt.Sprintf("model: decision on %d features, the model has %d", d, m.NumFeatures))
		}
		X = m.normalizedRows(X, norm)
	}
	if m.shared != nil {
		return m.shared.decisions(m, X)
	}
	out := make([][]float64, len(m.Pairs))
	for p, pm := range m.Pairs {
		out[p] = pm.DecisionNormalized(X)
	}
	return out
}

// sharedSVs are the support vectors of a multi-class model whose pairs all
// use one kernel, each row once, as LIBSVM's svm_predict_values computes
// the kernel of a point against every support vector once for all pairs:
// one-vs-one, a class's support vector serves its k-1 pairs, so a kernel
// block per pair computed each row k-1 times (letter, 26 classes: 60% of
// train's time went to predicting its training rows that way).
type sharedSVs struct {
	kern   kernel.Kernel
	sparse *kernel.SparseCross // the sparse route, nil when it does not pay
	// X is the distinct support vectors, nsv×d: a *mat.Dense, or a sparse
	// model's *sparse.CSR.
	X   mat.Matrix
	idx [][]int // idx[p][j]: pair p's j-th support vector's row of X
}

// defaultCacheBytes is the solver's cache when Settings.CacheBytes is 0.
const defaultCacheBytes = 200 << 20

// distinctSVs returns the distinct support vectors of pairs (d features
// each), by their bits, in the order of their first appearance (pairs in
// order, each pair's support vectors in order), and idx[p][j], the row of
// pair p's j-th support vector among them. When the pairs' support vectors
// already are those rows of one array (shareSVRows made them so), rows is
// that array, not a copy, unless fresh asks for one.
func distinctSVs(pairs []*Model, d int, fresh bool) (rows []float64, idx [][]int) {
	// Rows are grouped by a hash of their bits and told apart by the bits
	// themselves (a map keyed by the 8·d bytes of each row, as before,
	// made 151 MB of garbage on 10 classes of 778 features).
	at := map[uint64][]int{}
	var first [][]float64 // each distinct row, as first seen
	idx = make([][]int, len(pairs))
	base := pairs[0].svShared
	inPlace := base != nil // every support vector's X is row u of base
	for p, pm := range pairs {
		idx[p] = make([]int, len(pm.SupportVectors))
		for j, sv := range pm.SupportVectors {
			h := rowBitsHash(sv.X)
			u := -1
			for _, c := range at[h] {
				if sameBits(first[c], sv.X) {
					u = c
					break
				}
			}
			if u < 0 {
				u = len(first)
				at[h] = append(at[h], u)
				first = append(first, sv.X)
			}
			idx[p][j] = u
			inPlace = inPlace && len(sv.X) == d && (u+1)*d <= len(base) && &base[u*d] == &sv.X[0]
		}
	}
	if len(first) == 0 {
		return nil, idx
	}
	if inPlace && !fresh && len(base) == len(first)*d {
		return base, idx
	}
	rows = make([]float64, len(first)*d)
	for u, x := range first {
		copy(rows[u*d:(u+1)*d], x)
	}
	return rows, idx
}

// rowBitsHash is FNV-1a over the bits of x's values.
func rowBitsHash(x []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range x {
		h = (h ^ math.Float64bits(v)) * 1099511628211
	}
	return h
}

// sameBits reports whether a and b hold the same bits.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}

// shareSVRows makes the support vectors of pairs (d features) rows of one
// array, each distinct row once (distinctSVs), as LIBSVM's model holds
// them: a support vector of several pairs is stored once, not per pair. It
// returns the array and each pair's rows of it. A pair's SupportVectors[j].X
// then is a row shared with the other pairs that have it. fresh makes the
// array anew even when the rows already are one array's (fitMulti: they are
// rows of the training matrix, which the model must not keep).
func shareSVRows(pairs []*Model, d int, fresh bool) (rows []float64, idx [][]int) {
	if d == 0 {
		return nil, nil
	}
	rows, idx = distinctSVs(pairs, d, fresh)
	for p, pm := range pairs {
		for j, u := range idx[p] {
			pm.SupportVectors[j].X = rows[u*d : (u+1)*d : (u+1)*d]
		}
		pm.svData, pm.svShared = nil, rows
	}
	return rows, idx
}

// newSharedSVs returns the shared support vectors of m, or nil when its
// pairs use different kernels (or have no support vector at all). The
// pairs' support vectors become rows of its matrix (shareSVRows).
func newSharedSVs(m *Model) *sharedSVs {
	first := m.Pairs[0].Kernel
	for _, pm := range m.Pairs[1:] {
		if !reflect.DeepEqual(pm.Kernel, first) {
			return nil
		}
	}
	if m.Sparse {
		return newSharedSparseSVs(m)
	}
	d := m.NumFeatures
	rows, idx := shareSVRows(m.Pairs, d, false)
	if len(rows) == 0 {
		return nil
	}
	sh := &sharedSVs{kern: m.Pairs[0].kern, idx: idx}
	X := mat.NewDense(len(rows)/d, d, rows)
	sh.X = X
	if g, ok := sh.kern.(*kernel.Gaussian); ok {
		sh.sparse = g.SparseCross(X)
	}
	return sh
}

// newSharedSparseSVs is newSharedSVs for a sparse model: the distinct
// support vectors (by the bits of their indices and values) as one set of
// compressed rows with one sparse route, and each pair's SupportVectors'
// Index and Value made slices of the one array of them, as LIBSVM's model
// holds each support vector once. Each pair held its own copy, and for
// predicting its own compressed rows and columns of it again: on ten
// classes of 778 features (10,000 rows, 3,960 distinct support vectors of
// 45 pairs' 30,000) 65 MB at the end of train against 19 MB now.
func newSharedSparseSVs(m *Model) *sharedSVs {
	at := map[uint64][]int{}
	var first []SupportVector // each distinct support vector, as first seen
	idx := make([][]int, len(m.Pairs))
	nnz := 0
	for p, pm := range m.Pairs {
		idx[p] = make([]int, len(pm.SupportVectors))
		for j, sv := range pm.SupportVectors {
			h := sparseBitsHash(sv.Index, sv.Value)
			u := -1
			for _, c := range at[h] {
				if slices.Equal(first[c].Index, sv.Index) && sameBits(first[c].Value, sv.Value) {
					u = c
					break
				}
			}
			if u < 0 {
				u = len(first)
				at[h] = append(at[h], u)
				first = append(first, sv)
				nnz += len(sv.Index)
			}
			idx[p][j] = u
		}
	}
	if len(first) == 0 {
		return nil
	}
	ptr := make([]int, len(first)+1)
	index, zeroBased, value := make([]int32, nnz), make([]int32, nnz), make([]float64, nnz)
	for u, sv := range first {
		a := ptr[u]
		copy(index[a:], sv.Index)
		copy(value[a:], sv.Value)
		for q, k := range sv.Index {
			zeroBased[a+q] = k - 1
		}
		ptr[u+1] = a + len(sv.Index)
	}
	X, err := sparse.New(len(first), m.NumFeatures, ptr, zeroBased, value)
	if err != nil { // validate checked the indices
		panic(fmt.Sprintf("model: support vectors: %v", err))
	}
	sh := &sharedSVs{kern: m.Pairs[0].kern, idx: idx, X: X}
	// validate checked that the kernel computes on compressed rows.
	if sh.sparse, err = kernel.SparseCrossOf(sh.kern, X); err != nil {
		return nil
	}
	for p, pm := range m.Pairs {
		for j, u := range idx[p] {
			a, b := ptr[u], ptr[u+1]
			pm.SupportVectors[j].Index, pm.SupportVectors[j].Value = index[a:b:b], value[a:b:b]
		}
	}
	return sh
}

// sparseBitsHash is FNV-1a over a sparse row's indices and its values'
// bits.
func sparseBitsHash(index []int32, value []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, k := range index {
		h = (h ^ uint64(k)) * 1099511628211
	}
	for _, v := range value {
		h = (h ^ math.Float64bits(v)) * 1099511628211
	}
	return h
}

// decisions returns every pair's decision values on the (normalised) rows
// of X, from one kernel block per blockRows rows against the shared
// support vectors.
func (sh *sharedSVs) decisions(m *Model, X mat.Matrix) [][]float64 {
	n, _ := X.Dims()
	out := make([][]float64, len(m.Pairs))
	for p := range out {
		out[p] = make([]float64, n)
	}
	if n == 0 {
		return out
	}
	rows, _ := sh.X.Dims()
	m.eachBlock(X, nil, blockRowsFor(rows), func(r0, r1 int, block mat.Matrix) {
		kb := m.kernelBlock(block, sh.X, sh.sparse) // (r1-r0) × nsv
		sh.blockDecisions(out, r0, kb, m)
	})
	return out
}

// streamBlockBytes bounds the kernel block of classes (sharedSVs.classes),
// which is used once, row by row, and 16 rows at least (streamRows).
// blockBytes/4 with 64 rows at least made the block 5.2 MB on letter's
// 10,221 support vectors, the largest thing in train's heap after the
// pairs (its peak resident set 40.9-42.3 MB, svm-train's 12.7); 1 MB and
// 16 rows take the same time there and on ten classes of 778 features
// (train --test, predict: 3,960 support vectors, 33 rows a block).
const streamBlockBytes = blockBytes / 16

// streamRows is the rows of a block of classes against nsv support
// vectors: as many as streamBlockBytes holds, from 16 to blockRows.
func streamRows(nsv int) int {
	return max(16, min(blockRows, streamBlockBytes/(8*max(nsv, 1))))
}

// classes returns the class of each (normalised) row of X by m's scheme,
// as dataio.Combine(sh.decisions(m, X), …) gives it, a block of rows at a
// time: each block's kernel values against the support vectors (in one
// array for all blocks, the support vectors prepared once:
// kernel.CrossBlocks), the pairs' decision values on its rows, and their
// vote, so that no pair's values are held for all rows. Every decision
// value has the bits decisions gives it (the kernel's entries do not
// depend on the block's rows, and each sum is blockDecisions'). On
// letter's training rows (325 pairs, 10,221 support vectors) decisions
// held the values of every pair on every row and a new 16 MB block at a
// time: the live heap rose from 11 to 35 MB after the fit.
func (sh *sharedSVs) classes(m *Model, X mat.Matrix) []int {
	n, _ := X.Dims()
	out := make([]int, 0, n)
	k := len(m.Classes)
	sh.eachDecisionBlock(m, X, 0, func(_ int, dec [][]float64) {
		out = append(out, dataio.Combine(dec, k, m.Multiclass)...)
	})
	return out
}

// eachDecisionBlock calls f with the pairs' decision values on the rows
// [r0, r0+len(dec[p])) of X, blocks of rows (0: as streamBlockBytes
// allows) in order; dec is reused.
func (sh *sharedSVs) eachDecisionBlock(m *Model, X mat.Matrix, rows int, f func(r0 int, dec [][]float64)) {
	n, _ := X.Dims()
	if n == 0 {
		return
	}
	nsv, _ := sh.X.Dims()
	if rows <= 0 {
		rows = streamRows(nsv)
	}
	rows = min(rows, n)
	dec := make([][]float64, len(m.Pairs))
	vals := make([]float64, len(m.Pairs)*rows)
	buf := make([]float64, rows*nsv)
	var cross *kernel.CrossBlocks
	if sh.sparse == nil {
		cross = kernel.NewCrossBlocks(sh.kern, sh.X)
	}
	m.eachBlock(X, nil, rows, func(r0, r1 int, block mat.Matrix) {
		var kb *mat.Dense
		if sh.sparse != nil {
			kb = mat.NewDense(r1-r0, nsv, buf[:(r1-r0)*nsv])
			sh.sparse.Block(block, kb)
		} else {
			kb = cross.Block(block, buf)
		}
		for p := range dec {
			dec[p] = vals[p*rows : p*rows+r1-r0]
		}
		sh.blockDecisions(dec, 0, kb, m)
		f(r0, dec)
	})
}

// blockDecisions sets out[p][r0+i] = Σ_j coef_p[j]·kb[i, idx_p[j]] + bias_p
// for the rows i of the kernel block kb, each sum in the order of j, as a
// pair's own loop would. Rows are the outer loop and pairs the inner: one
// row of kb (8·nsv bytes, 50 KB on letter) stays in the core's cache while
// every pair gathers from it, where pairs outside swept the whole block
// (16 MB) once per pair. Two rows go together: their sums are independent
// chains that overlap, and each is the same as alone, bit for bit.
func (sh *sharedSVs) blockDecisions(out [][]float64, r0 int, kb *mat.Dense, m *Model) {
	rows, _ := kb.Dims()
	coefs := make([][]float64, len(m.Pairs))
	for p, pm := range m.Pairs {
		if pm.coef != nil {
			coefs[p] = pm.coef.RawVector().Data
		}
	}
	i := 0
	for ; i+2 <= rows; i += 2 {
		a, b := kb.RawRowView(i), kb.RawRowView(i+1)
		for p, idx := range sh.idx {
			coef := coefs[p]
			var fa, fb float64
			for j, u := range idx {
				c := coef[j]
				fa += c * a[u]
				fb += c * b[u]
			}
			bias := m.Pairs[p].Bias
			out[p][r0+i], out[p][r0+i+1] = fa+bias, fb+bias
		}
	}
	for ; i < rows; i++ {
		a := kb.RawRowView(i)
		for p, idx := range sh.idx {
			coef := coefs[p]
			f := 0.0
			for j, u := range idx {
				f += coef[j] * a[u]
			}
			out[p][r0+i] = f + m.Pairs[p].Bias
		}
	}
}

// Vote returns each row's class by LIBSVM's one-vs-one vote over the pair
// decision values dec (PairDecisions' form) of k classes: f > 0 votes for
// the pair's first class, otherwise for its second; the most votes win, and
// a tie goes to the class first in the label order (svm_predict_values).
func Vote(dec [][]float64, k int) []int {
	return dataio.Combine(dec, k, dataio.OneVsOne)
}

// PredictClasses returns the class index (into Classes) of each raw row of X
// by the model's scheme (dataio.Combine): the vote of the pairs one-vs-one,
// the largest decision value one-vs-rest.
func (m *Model) PredictClasses(X mat.Matrix) []int {
	return m.predictClasses(X, m.Normalizer)
}

// PredictClassesNormalized is PredictClasses on rows already normalised.
func (m *Model) PredictClassesNormalized(X mat.Matrix) []int {
	return m.predictClasses(X, nil)
}

// predictClasses is Combine of pairDecisions(X, norm), streamed a block of
// rows at a time when the pairs share their support vectors
// (sharedSVs.classes).
func (m *Model) predictClasses(X mat.Matrix, norm *dataio.Normalizer) []int {
	m.mustReady()
	if m.shared == nil || !m.IsMultiClass() {
		return dataio.Combine(m.pairDecisions(X, norm), len(m.Classes), m.Multiclass)
	}
	if norm != nil {
		if _, d := X.Dims(); d != m.NumFeatures {
			panic(fmt.Sprintf("model: decision on %d features, the model has %d", d, m.NumFeatures))
		}
		X = m.normalizedRows(X, norm)
	}
	return m.shared.classes(m, X)
}

// ConfusionMatrix counts rows by true class (row) and predicted class
// (column), both indices into k classes: out[t][p]. It panics if the lengths
// differ.
func ConfusionMatrix(truth, pred []int, k int) [][]int {
	if len(truth) != len(pred) {
		panic("model: ConfusionMatrix: length mismatch")
	}
	out := make([][]int, k)
	for t := range out {
		out[t] = make([]int, k)
	}
	for i, t := range truth {
		out[t][pred[i]]++
	}
	return out
}

// correct counts the rows where pred equals truth.
func correct(truth, pred []int) int {
	c := 0
	for i, t := range truth {
		if pred[i] == t {
			c++
		}
	}
	return c
}

// PairSummary describes one pair's SVM of a multi-class model, in the words
// of svm-train's output.
type PairSummary struct {
	Positive string      `json:"class_pos"` // the pair's first class (+1)
	Negative string      `json:"class_neg"` // its second (-1)
	N        int         `json:"n"`         // training rows of the two classes
	Kernel   kernel.Spec `json:"kernel"`
	Margin   string      `json:"margin"`
	C        float64     `json:"C,omitempty"`
	NSV      int         `json:"n_sv"`
	NBSV     int         `json:"n_bsv"`
	Obj      float64     `json:"obj"`
	Rho      float64     `json:"rho"`
	Iter     int         `json:"iterations"`
	Status   string      `json:"status"`
	// Probability is the pair's sigmoid (LIBSVM's probA, probB), nil
	// without probabilities.
	Probability *probability.Sigmoid `json:"probability,omitempty"`
}

// PairSummaries describes the pairs of a multi-class model (nil for a binary
// one).
func (m *Model) PairSummaries() []PairSummary {
	out := make([]PairSummary, 0, len(m.Pairs))
	for _, pm := range m.Pairs {
		t := pm.Training
		out = append(out, PairSummary{
			Positive: pm.Labels.Positive, Negative: pm.Labels.Negative, N: t.N,
			Kernel: pm.Kernel, Margin: pm.MarginKind.String(), C: pm.C,
			NSV: t.NSV, NBSV: t.NBSV, Obj: t.Obj, Rho: t.Rho, Iter: t.Iter, Status: t.Status,
			Probability: pm.Probability,
		})
	}
	return out
}
