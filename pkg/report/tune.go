package report

// The tables of tune: the learned kernel and C, the criterion, the final
// SVM; a diagonal Q's per-feature relevance; a full Q and its eigenvalues.

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// exportText describes the LIBSVM export in tune's table.
func exportText(dir, kind string) string {
	switch kind {
	case model.ExportRBF:
		return dir + " (RBF kernel on mapped data, -t 2; commands in README.txt)"
	case model.ExportPrecomputed:
		return dir + " (precomputed kernel, -t 4; commands in README.txt)"
	case model.ExportPairs:
		return dir + " (a binary export per pair of classes; how to vote in README.txt)"
	case model.ExportOneVsRest:
		return dir + " (a binary export per class against the rest; predict the class of the largest decision value, README.txt)"
	}
	return dir
}

// plainOr is sp, or hint.Plain for nil.
func plainOr(sp hint.Speller) hint.Speller {
	if sp == nil {
		return hint.Plain
	}
	return sp
}

// onSpace is ", on " and the words of a normalisation (dataio.SpaceWords),
// or "" when space says nothing.
func onSpace(space string) string {
	if w := dataio.SpaceWords(space); w != "" {
		return ", on " + w
	}
	return ""
}

// TuneTables lay out what `kerneltune tune` reports: the summary, then the
// kernel's detail (the relevance of a diagonal Q; a full Q, up to 15×15,
// and its eigenvalues). sp spells the settings the tables name (nil:
// hint.Plain; the command line spells them as its flags).
func TuneTables(r *experiment.TuneResult, sp hint.Speller) []*Table {
	sp = plainOr(sp)
	title := hint.T("tune ", r.Data, " ", hint.S("method", r.Method))
	if r.Param != "" {
		title = append(title, " ", hint.S("param", r.Param))
	}
	t := &Table{Title: fitTitle(&r.FitData, title.Spell(sp)), Header: []string{"quantity", "value"}}
	perPair := r.Tuning != nil && r.Tuning.Pairs != nil
	ovr := r.Multiclass == dataio.OneVsRest
	switch {
	case perPair && ovr:
		t.Add("kernel and C", fmt.Sprintf("one per class against the rest (%d tunings, below)%s", len(r.Pairs), onSpace(r.GammaSpace)))
	case perPair:
		t.Add("kernel and C", fmt.Sprintf("one per pair of classes (%d tunings, below)%s", len(r.Pairs), onSpace(r.GammaSpace)))
	default:
		kernelRows(t, r.Kernel, r.GammaSpace, r.Margin, r.C)
	}
	if r.WeightPos != 0 || r.WeightNeg != 0 {
		w := func(v float64) float64 { return cmp.Or(v, 1) }
		t.Add("C per class", fmt.Sprintf("+1: %s (× %s), -1: %s (× %s)", Sig(r.C*w(r.WeightPos), 6), Sig(w(r.WeightPos), 6), Sig(r.C*w(r.WeightNeg), 6), Sig(w(r.WeightNeg), 6)))
	}
	if r.Criterion != "" {
		t.Add("criterion", r.Criterion)
	}
	t.Add("criterion at start", Sig(r.CriterionStart, 8))
	t.Add("criterion at end", Sig(r.CriterionEnd, 8))
	for _, f := range r.Figures {
		if perPair {
			break
		}
		if name, value, ok := figureRow(r, f.Name, f.Value); ok {
			t.Add(name, value)
		}
	}
	switch {
	case r.Pairs != nil && ovr:
		t.Add("#SV", strconv.Itoa(r.NSV)+" (training rows that are an SV of some class's SVM)")
	case r.Pairs != nil:
		t.Add("#SV", strconv.Itoa(r.NSV)+" (LIBSVM's total_sv)")
	default:
		t.Add("#SV", strconv.Itoa(r.NSV))
	}
	accuracyRows(t, &r.Accuracies, &r.FitData, hint.T("- (no test part: give ", hint.S("test", ""), " or ", hint.S("test-fraction", ""), ")").Spell(sp))
	if s := r.TestScores; s != nil {
		t.Add("test balanced acc.", Fixed(100*s.BalancedAccuracy, 2)+"%")
		t.Add("test macro-F1", Fixed(100*s.MacroF1, 2)+"%")
		switch {
		case s.AUC != nil:
			t.Add("test AUC", Fixed(*s.AUC, 4))
		case s.Confusion != nil && len(s.Confusion.Labels) == 2:
			t.Add("test AUC", "- (the test part holds one class)")
		}
	}
	probabilityRows(t, r.Probability, len(r.Pairs) > 0 && r.Pairs[0].Probability != nil, r.TestScores)
	t.Add("memorising", memorisationCell(r.Memorisation))
	if r.LearnedOn > 0 {
		t.Add("learned on", hint.T(fmt.Sprintf("%d of the %d training rows (a stratified subset, ", r.LearnedOn, r.NTrain), hint.S("kernel-rows", ""), "); the final SVM on all").Spell(sp))
	}
	t.Add("SVM solves", strconv.Itoa(r.Solves))
	t.Add("iterations", strconv.Itoa(r.Iter))
	t.Add("status", r.Status)
	t.Add("time", fmt.Sprintf("%s s tuning + %s s final fit", Fixed(r.TuneSeconds, 3), Fixed(r.FitSeconds, 3)))
	t.Add("normalize", r.Normalize)
	t.Add("seed", strconv.FormatUint(r.Seed, 10))
	for _, f := range []struct{ k, v string }{{"model file", r.ModelFile}, {"trace file", r.TraceFile}, {"LIBSVM export", exportText(r.ExportDir, r.ExportKind)}} {
		if f.v != "" {
			t.Add(f.k, f.v)
		}
	}
	if r.Init != "" {
		t.Notes = append(t.Notes, "start: "+r.Init)
	}
	t.Notes = append(t.Notes, hint.SpellAll(r.Notes, sp)...)
	ts := []*Table{t}
	if r.Pairs != nil {
		ts = append(ts, tunePairTable(r))
		if r.TestScores != nil {
			c := ConfusionTable(r.TestScores.Confusion.Labels, r.TestScores.Confusion.Counts)
			c.Title = "confusion matrix on the test part"
			ts = append(ts, c)
		}
		if perPair {
			return ts
		}
	}

	if len(r.Relevance) > 0 {
		ts = append(ts, relevanceTable(r, sp))
	}
	if len(r.Kernel.Q) > 0 {
		d := len(r.Kernel.Q)
		showMatrix := d <= 15
		if showMatrix {
			qt := &Table{Title: "learned metric Q, exp(-½ (x-z)ᵀQ(x-z))", Header: []string{""}}
			for k := 0; k < d; k++ {
				qt.Header = append(qt.Header, model.FeatureName(r.FeatureNames, k))
			}
			for i := 0; i < d; i++ {
				row := []string{model.FeatureName(r.FeatureNames, i)}
				for j := 0; j < d; j++ {
					row = append(row, Sig(r.Kernel.Q[i][j], 3))
				}
				qt.Add(row...)
			}
			ts = append(ts, qt)
		}
		et := &Table{Title: "eigenvalues of Q (ascending)", Header: []string{"#", "eigenvalue"}}
		for i, v := range r.Eigenvalues {
			et.Add(strconv.Itoa(i+1), Sig(v, 4))
		}
		if !showMatrix {
			et.Notes = append(et.Notes, hint.T(fmt.Sprintf("Q is %d×%d: the matrix is in ", d, d), hint.S("format", "json"), " and in the model file").Spell(sp))
		}
		if c := constantNames(r.Relevance, r.FeatureNames, r.Constant); c != "" {
			et.Notes = append(et.Notes, "constant on the training part, so without effect on the kernel: the row and column of Q for "+c+" were not learned")
		}
		ts = append(ts, et)
	}
	return ts
}

// figureRow is how a method's figure reads in tune's table, ok false for
// one the table shows elsewhere: per-feature θ_k (the relevance table), the
// #SV of the last iterate when it is the final SVM's, the criterion at start
// and end under another name (rcsc's J0 and J). A fraction of the CV
// accuracy reads as a percentage, like the other accuracies; lccp's count of
// its own SVM solves is told apart from the run's total.
func figureRow(r *experiment.TuneResult, name string, v float64) (string, string, bool) {
	same := func(a, b float64) bool { return Sig(a, 6) == Sig(b, 6) }
	switch {
	case len(r.Relevance) > 0 && strings.HasPrefix(name, "theta["):
		return "", "", false
	case name == "nsv" && int(v) == r.NSV:
		return "", "", false
	case name == "J0" && same(v, r.CriterionStart), name == "J" && same(v, r.CriterionEnd):
		return "", "", false
	case name == "cv_accuracy" || name == "cv accuracy":
		if v >= 0 && v <= 1 {
			return "cv accuracy", Fixed(100*v, 2) + "%", true
		}
	case name == "svm_solves":
		return "SVM solves of the descent", Sig(v, 6), true
	case name == "nsv":
		return "#SV of the last iterate", Sig(v, 6), true
	}
	return name, Sig(v, 6), true
}

// relevanceTable ranks the features of a per-feature kernel by weight,
// largest first; features constant on the training part are not ranked (a
// weight that cannot affect the kernel was not learned) but named in a note.
func relevanceTable(r *experiment.TuneResult, sp hint.Speller) *Table {
	rel := &Table{
		Title:  "per-feature relevance: diag(Q), exp(-½ Σ_k q_k (x_k-z_k)²), largest first",
		Header: []string{"rank", "feature", "q_k", "q_k / max q"},
	}
	l1 := r.Relevance[0].Theta != 0
	if l1 {
		rel.Title = "per-feature relevance: 1/θ_k, the weight of |x_k-z_k| in -Σ_k |x_k-z_k|/θ_k, largest first"
		rel.Header = []string{"rank", "feature", "θ_k", "1/θ_k", "relative"}
	}
	var order []experiment.FeatureWeight
	for _, fw := range r.Relevance {
		if !fw.Constant {
			order = append(order, fw)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return order[a].Q > order[b].Q })
	const show = 30
	for i, fw := range order {
		if i == show && len(order) > show+5 {
			rel.Notes = append(rel.Notes, hint.T(fmt.Sprintf("%d more features below %s (all in ", len(order)-show, Sig(fw.Q, 4)), hint.S("format", "json"), ")").Spell(sp))
			break
		}
		cells := []string{strconv.Itoa(i + 1), fmt.Sprintf("%s (%d)", fw.Feature, fw.Index)}
		if l1 {
			cells = append(cells, Sig(fw.Theta, 4))
		}
		rel.Add(append(cells, Sig(fw.Q, 4), Fixed(fw.Relative, 4))...)
	}
	if c := constantNames(r.Relevance, nil, nil); c != "" {
		rel.Notes = append(rel.Notes, "not ranked: "+c+", constant on the training part: a constant feature has no effect on the kernel, so its weight was not learned (it keeps its start value or drifts with a regulariser)")
	}
	return rel
}

// constantNames lists the features marked constant in ws, or, when ws is
// empty, the 1-based features in constant named from names; "" for none.
func constantNames(ws []experiment.FeatureWeight, names []string, constant []int) string {
	var out []string
	for _, fw := range ws {
		if fw.Constant {
			out = append(out, fmt.Sprintf("%s (%d)", fw.Feature, fw.Index))
		}
	}
	if len(ws) == 0 {
		for _, j := range constant {
			out = append(out, fmt.Sprintf("%s (%d)", model.FeatureName(names, j-1), j))
		}
	}
	return strings.Join(out, ", ")
}

// tunePairTable is a multi-class tune's row per pair of classes: the
// classes, their training rows, the kernel parameters and C chosen, the
// method's criterion at the end, #SV and the degenerate-kernel check.
func tunePairTable(r *experiment.TuneResult) *Table {
	t := &Table{Header: []string{"classes", "rows", "parameters", "criterion", "#SV", "degenerate"}}
	prob := len(r.Pairs) > 0 && r.Pairs[0].Probability != nil
	if prob {
		t.Header = append(t.Header, "probA", "probB")
	}
	for _, p := range r.Pairs {
		crit := "-"
		if p.Criterion != nil {
			crit = Sig(*p.Criterion, 6)
			if p.Status != "" && p.Status != "converged" {
				crit += " (" + p.Status + ")"
			}
		}
		deg := "no"
		if p.Degenerate != nil {
			deg = *p.Degenerate
		}
		row := []string{fmt.Sprintf("%q vs %q", p.Positive, p.Negative), strconv.Itoa(p.Rows), pairParams(p), crit, strconv.Itoa(p.NSV), deg}
		if prob {
			row = append(row, Sig(p.Probability.A, 6), Sig(p.Probability.B, 6))
		}
		t.Add(row...)
	}
	return t
}

// pairParams is a pair's kernel parameters and C in a few words: γ, the
// range of a diagonal Q or of θ, a full Q's size.
func pairParams(p experiment.TunePair) string {
	k := p.Kernel
	var s string
	switch {
	case k.Gamma != 0:
		s = "γ = " + Sig(k.Gamma, 4)
	case k.Diag != nil:
		s = fmt.Sprintf("diag Q %s … %s", Sig(slices.Min(k.Diag), 3), Sig(slices.Max(k.Diag), 3))
	case k.Q != nil:
		s = fmt.Sprintf("full %d×%d Q", len(k.Q), len(k.Q))
	case k.Theta != nil && slices.Min(k.Theta) == slices.Max(k.Theta):
		s = "θ = " + Sig(k.Theta[0], 4)
	case k.Theta != nil:
		s = fmt.Sprintf("θ %s … %s", Sig(slices.Min(k.Theta), 3), Sig(slices.Max(k.Theta), 3))
	default:
		s = k.Kind
	}
	switch p.Margin {
	case "hard":
		return s + ", hard margin"
	case "l2":
		return s + ", l2 C = " + Sig(p.C, 4)
	}
	return s + ", C = " + Sig(p.C, 4)
}

// memorisationCell is the tune table's memorising row: the flag, the
// support-vector share and the training accuracy's lead over the held-out
// one (experiment.CheckMemorisation).
func memorisationCell(m experiment.Memorisation) string {
	flag := "no"
	if m.Memorising {
		flag = "YES"
	}
	if m.HeldOut == "" {
		return fmt.Sprintf("not assessed (SVs %s%% of the training rows; no CV, validation or test part to compare with)", Fixed(100*m.SVShare, 0))
	}
	return fmt.Sprintf("%s (SVs %s%% of the training rows; train − %s: %s points)", flag, Fixed(100*m.SVShare, 0), m.HeldOut, Fixed(100*(m.TrainAccuracy-m.HeldOutAcc), 2))
}
