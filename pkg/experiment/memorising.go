package experiment

import (
	"fmt"
	"math"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/methods"
)

// The rule that flags a tuned model that memorises its training part
// (docs/protocol.md, "Memorising models"): more than MemorisingSVShare of
// the training rows are support vectors, AND the training accuracy is at
// least MemorisingGap above the held-out accuracy, AND the training error
// is at most MemorisingErrorRatio of the held-out error. The held-out
// accuracy is the method's own cross-validation or validation accuracy
// where it measures one (svm, random, halving, bo: the CV accuracy of the
// chosen (C, γ); rcsc: the CV accuracy of its C; twolevel: its validation
// accuracy) on all the training rows, else the test accuracy (spd, gi,
// lccp, and any method that learned on a subset); without either the model
// is not assessed. A model that underfits overlapping classes keeps
// many support vectors too, but its training accuracy is as low as its
// held-out one: the error ratio tells the two apart.
const (
	MemorisingSVShare    = 0.5
	MemorisingGap        = 0.02
	MemorisingErrorRatio = 0.25
)

// Held-out accuracy sources of Memorisation.HeldOut.
const (
	HeldOutCV         = "cv"
	HeldOutValidation = "validation"
	HeldOutTest       = "test"
)

// Memorisation is the check of a tuned model against the rule above: its
// support-vector share, its training accuracy, the held-out accuracy and
// where that comes from ("" when there is none: not assessed), and the flag.
type Memorisation struct {
	SVShare       float64 `json:"sv_share"`
	TrainAccuracy float64 `json:"train_accuracy"`
	HeldOut       string  `json:"held_out,omitempty"`
	HeldOutAcc    float64 `json:"held_out_accuracy,omitempty"`
	Memorising    bool    `json:"memorising"`
}

// CheckMemorisation applies the rule to a model with nsv support vectors
// on nTrain training rows, training accuracy trainAcc, the method's own
// held-out accuracy cv (NaN when it has none; source HeldOutCV or
// HeldOutValidation) and the test accuracy test (NaN without a test part).
func CheckMemorisation(nsv, nTrain int, trainAcc, cv float64, cvSource string, test float64) Memorisation {
	m := Memorisation{TrainAccuracy: trainAcc}
	if nTrain > 0 {
		m.SVShare = float64(nsv) / float64(nTrain)
	}
	switch {
	case !math.IsNaN(cv):
		m.HeldOut, m.HeldOutAcc = cvSource, cv
	case !math.IsNaN(test):
		m.HeldOut, m.HeldOutAcc = HeldOutTest, test
	default:
		return m
	}
	gap := trainAcc - m.HeldOutAcc
	m.Memorising = m.SVShare > MemorisingSVShare && gap >= MemorisingGap-1e-12 &&
		1-trainAcc <= MemorisingErrorRatio*(1-m.HeldOutAcc)+1e-12
	return m
}

// Reason says why the model is flagged, "" when it is not.
func (m Memorisation) Reason() string {
	if !m.Memorising {
		return ""
	}
	return fmt.Sprintf("%.0f%% of the training rows are support vectors and the training accuracy, %.2f%%, is %.2f points above the %s accuracy, %.2f%%",
		100*m.SVShare, 100*m.TrainAccuracy, 100*(m.TrainAccuracy-m.HeldOutAcc), m.HeldOut, 100*m.HeldOutAcc)
}

// MethodHeldOut is the held-out accuracy a method measured itself and its
// source (HeldOutCV or HeldOutValidation), NaN and "" when it measured
// none: the CV accuracy that a cross-validated search maximised (its
// criterion), rcsc's CV accuracy of C, twolevel's validation error. A
// method that learned on a subset of learnedOn training rows (large data,
// --kernel-rows; 0: all of them) measured it on models of that subset, not
// on the final model's rows: it is not the final model's held-out accuracy
// (rcsc on w8a, 5,000 of 49,749 rows: CV 97.20 %, the final model 99.46 %
// on its training rows and 99.45 % on the test file), and NaN is returned.
func MethodHeldOut(criterion string, criterionEnd float64, figures []methods.Figure, learnedOn int) (float64, string) {
	if learnedOn > 0 {
		return math.NaN(), ""
	}
	for _, f := range figures {
		switch f.Name {
		case "cv_accuracy":
			return f.Value, HeldOutCV
		case "e_end (validation %)":
			return 1 - f.Value/100, HeldOutValidation
		}
	}
	if strings.HasSuffix(criterion, "CV accuracy") && criterionEnd >= 0 && criterionEnd <= 1 {
		return criterionEnd, HeldOutCV
	}
	return math.NaN(), ""
}

// RecordMemorisation is the check of a record: from its own fields, so that
// a record written before the check was recorded is assessed alike.
func RecordMemorisation(r Record) Memorisation {
	cv, src := MethodHeldOut(r.Criterion, r.CriterionEnd, r.Figures, r.LearnedOn)
	test := r.TestAccuracy
	if r.TestSize == 0 {
		test = math.NaN()
	}
	return CheckMemorisation(r.NSV, r.TrainSize, r.TrainAccuracy, cv, src, test)
}
