package report

// The tables of train and tune: the kernel and the SVM, the accuracies.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/probability"
)

// TrainTable lays out what `kerneltune train` reports.
func TrainTable(r *model.TrainResult) *Table { return TrainTables(r, nil)[0] }

// TrainTables are train's output: TrainTable, and for multi-class data a
// table of the one-vs-one pairs (as svm-train prints them) and the test
// part's confusion matrix. sp spells the settings the notes name (nil:
// hint.Plain).
func TrainTables(r *model.TrainResult, sp hint.Speller) []*Table {
	t := trainTable(r, sp)
	if r.Pairs == nil {
		return []*Table{t}
	}
	out := []*Table{t, PairTable(r.Pairs)}
	if r.TestScores != nil {
		c := ConfusionTable(r.TestScores.Confusion.Labels, r.TestScores.Confusion.Counts)
		c.Title = "confusion matrix on the test part"
		out = append(out, c)
	}
	out[len(out)-1].Notes, t.Notes = t.Notes, nil
	return out
}

// PairTable lists the one-vs-one SVMs of a multi-class model: the classes
// (+1 first), their training rows, #SV, #BSV, the dual objective, ρ, the
// iterations and the solver's status, as svm-train prints them.
func PairTable(pairs []model.PairSummary) *Table {
	t := &Table{Header: []string{"classes", "rows", "#SV", "#BSV", "obj", "rho", "iterations", "status"}}
	prob := len(pairs) > 0 && pairs[0].Probability != nil
	if prob {
		t.Header = append(t.Header, "probA", "probB")
	}
	for _, p := range pairs {
		row := []string{fmt.Sprintf("%q vs %q", p.Positive, p.Negative), strconv.Itoa(p.N), strconv.Itoa(p.NSV), strconv.Itoa(p.NBSV),
			Sig(p.Obj, 8), Sig(p.Rho, 6), strconv.Itoa(p.Iter), p.Status}
		if prob {
			row = append(row, Sig(p.Probability.A, 6), Sig(p.Probability.B, 6))
		}
		t.Add(row...)
	}
	return t
}

// probabilityRows add a model's probability estimates to a train or tune
// table: a binary model's sigmoid (sig), or where a multi-class model's
// are (pairs), and the test part's log-loss and Brier score.
func probabilityRows(t *Table, sig *probability.Sigmoid, pairs bool, s *model.TestScores) {
	switch {
	case sig != nil:
		t.Add("probA, probB", fmt.Sprintf("%s, %s (P(+1|f) = 1/(1+exp(A f + B)), fitted on 5-fold CV decision values)", Sig(sig.A, 6), Sig(sig.B, 6)))
	case pairs:
		t.Add("probability", "a sigmoid per pair (probA, probB in the pairs' table) on 5-fold CV decision values, coupled as Wu, Lin & Weng (2004)")
	}
	if s != nil && s.LogLoss != nil {
		t.Add("test log-loss", Fixed(*s.LogLoss, 4))
		t.Add("test Brier", Fixed(*s.Brier, 4)+" (Σ over the classes)")
	}
}

func trainTable(r *model.TrainResult, sp hint.Speller) *Table {
	t := &Table{Title: fitTitle(&r.FitData, "train "+r.Data), Header: []string{"quantity", "value"}}
	kernelRows(t, r.Kernel, r.GammaSpace, r.Margin, r.C)
	if r.Margin == "l1" && (r.WeightPos != 0 || r.WeightNeg != 0) {
		w := func(v float64) float64 {
			if v == 0 {
				return 1
			}
			return v
		}
		t.Add("C per class", fmt.Sprintf("+1: %s, -1: %s", Sig(r.C*w(r.WeightPos), 6), Sig(r.C*w(r.WeightNeg), 6)))
	}
	t.Add("normalize", r.Normalize)
	accuracyRows(t, &r.Accuracies, &r.FitData, "- (no test part)")
	probabilityRows(t, r.Probability, len(r.Pairs) > 0 && r.Pairs[0].Probability != nil, r.TestScores)
	switch {
	case r.Pairs != nil && r.Multiclass == dataio.OneVsRest:
		t.Add("#SV", strconv.Itoa(r.NSV)+" (training rows that are an SV of some class's SVM)")
		t.Add("#BSV", strconv.Itoa(r.NBSV)+" (sum over the classes' SVMs)")
		t.Add("iterations", strconv.Itoa(r.Iter)+" (sum over the classes' SVMs)")
	case r.Pairs != nil:
		t.Add("#SV", strconv.Itoa(r.NSV)+" (training rows that are an SV of some pair: LIBSVM's total_sv)")
		t.Add("#BSV", strconv.Itoa(r.NBSV)+" (sum over the pairs)")
		t.Add("iterations", strconv.Itoa(r.Iter)+" (sum over the pairs)")
	default:
		t.Add("#SV", strconv.Itoa(r.NSV))
		t.Add("#BSV", strconv.Itoa(r.NBSV))
		t.Add("dual objective", Sig(r.Obj, 8))
		t.Add("margin 1/‖w‖", Sig(float64(r.Geo), 6))
		t.Add("rho", Sig(r.Rho, 6))
		t.Add("iterations", strconv.Itoa(r.Iter))
	}
	t.Add("status", r.Status)
	t.Add("time", Fixed(r.Seconds, 3)+" s")
	if r.ModelFile != "" {
		t.Add("model file", r.ModelFile)
	}
	t.Notes = hint.SpellAll(r.Notes, plainOr(sp))
	return t
}

// fitTitle is the line above a train or tune table: what ran, on how much
// data, and the label mapping.
func fitTitle(d *model.FitData, what string) string {
	if d.Classes != nil {
		q := make([]string, len(d.Classes))
		for i, c := range d.Classes {
			q[i] = strconv.Quote(c)
		}
		k := len(d.Classes)
		if d.Multiclass == dataio.OneVsRest {
			return fmt.Sprintf("%s: %d training rows, %d features; %d classes %s: one-vs-rest, %d classes against the rest",
				what, d.NTrain, d.Features, k, strings.Join(q, ", "), k)
		}
		return fmt.Sprintf("%s: %d training rows, %d features; %d classes %s: one-vs-one, %d pairs",
			what, d.NTrain, d.Features, k, strings.Join(q, ", "), k*(k-1)/2)
	}
	return fmt.Sprintf("%s: %d training rows, %d features; +1 = %q, -1 = %q",
		what, d.NTrain, d.Features, d.Labels.Positive, d.Labels.Negative)
}

// kernelRows adds the rows that describe the kernel and the SVM: the
// kernel, LIBSVM's γ and the features it acts on (space, a normaliser's
// kind), the margin and (soft margins) C.
func kernelRows(t *Table, k kernel.Spec, space, margin string, c float64) {
	t.Add("kernel", model.DescribeKernel(k))
	t.Add("gamma (LIBSVM)", gammaText(k, space))
	switch margin {
	case "hard":
		t.Add("SVM", "hard margin")
	case "l2":
		t.Add("SVM", "l2 soft margin (K + I/C)")
		t.Add("C", Sig(c, 6))
	default:
		t.Add("SVM", "l1 soft margin (C-SVC)")
		t.Add("C", Sig(c, 6))
	}
}

// accuracyRows adds the train and test accuracy rows; noTest is the test
// row's value when there is no test part.
func accuracyRows(t *Table, a *model.Accuracies, d *model.FitData, noTest string) {
	t.Add("train accuracy", accText(a.TrainAccuracy, a.TrainCorrect, d.NTrain))
	if a.TestAccuracy != nil {
		t.Add("test accuracy", accText(*a.TestAccuracy, a.TestCorrect, d.NTest))
	} else {
		t.Add("test accuracy", noTest)
	}
}

func accText(acc float64, correct, n int) string {
	return fmt.Sprintf("%s%% (%d/%d)", Fixed(100*acc, 2), correct, n)
}

// gammaText is LIBSVM's γ where the kernel has one, and the features it
// acts on (space, a normaliser's kind; "" says nothing): a γ on z-scored
// features is not svm-train's -g on the file.
func gammaText(s kernel.Spec, space string) string {
	on := dataio.SpaceWords(space)
	switch {
	case s.Kind == kernel.KindGaussian && s.Gamma != 0 && on != "":
		return Sig(s.Gamma, 6) + " on " + on
	case s.Kind == kernel.KindGaussian && s.Gamma != 0:
		return Sig(s.Gamma, 6)
	case s.Kind == kernel.KindGaussian && on != "":
		return "- (not isotropic: see Q, which acts on " + strings.SplitN(on, " (", 2)[0] + ")"
	case s.Kind == kernel.KindGaussian:
		return "- (not isotropic: see Q)"
	}
	return "- (not a Gaussian kernel)"
}

// normalizeVerbs say what each normalisation does to a file's features.
var normalizeVerbs = map[string]string{
	dataio.ZScore:   "z-scores them",
	dataio.MinMax01: "rescales them to [0, 1]",
	dataio.MinMax11: "rescales them to [-1, 1]",
	dataio.MaxAbs:   "divides each by its largest |value|",
}

// UnitRangeNote is train's note before it trains on data whose features
// all lie within [-1, 1] already (dataio.TrainTest.UnitRange), which the
// default normalisation, of kind (Normalizer.Kind), still changes: a
// LIBSVM user who gives svm-train's C and γ expects svm-train's model, and
// gets another unless the features are kept as given.
func UnitRangeNote(data, kind string) hint.Text {
	return hint.T(fmt.Sprintf("kerneltune: note: every feature of %s lies within [-1, 1] (as svm-scale leaves a file), yet the default ", data),
		hint.S("normalize", "auto"), fmt.Sprintf(" %s: the kernel (γ) acts on %s, so the model is not svm-train's on this file; give ",
			normalizeVerbs[kind], strings.SplitN(dataio.SpaceWords(kind), " (", 2)[0]), hint.S("normalize", "none"), " to keep the features as given (svm-train's model)")
}
