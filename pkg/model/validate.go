package model

import (
	"fmt"
	"math"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/probability"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// Validate checks that the model is consistent (known version, kernel and
// margin, dimensions that agree, finite numbers) and makes it ready for
// prediction. Load calls it; call it after editing a Model's fields.
func (m *Model) Validate() error { return m.prepare() }

func (m *Model) validate() error {
	if m.FormatVersion < 1 || m.FormatVersion > FormatVersion {
		return fmt.Errorf("%w %d (this kerneltune reads %s)", ErrVersion, m.FormatVersion, readsVersions)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
	}
	switch m.Kernel.Kind {
	case kernel.KindGaussian, kernel.KindL1, kernel.KindLinear:
	case "":
		return bad("no kernel kind")
	default:
		return bad("unknown kernel kind %q (this kerneltune knows gaussian, l1, linear)", m.Kernel.Kind)
	}
	switch m.MarginKind {
	case solver.L1, solver.L2:
		if !(m.C > 0) || math.IsInf(m.C, 0) {
			return bad("%v margin with C = %g, want a finite C > 0", m.MarginKind, m.C)
		}
	case solver.Hard:
	default:
		return bad("unknown margin %v (want l1, l2 or hard)", m.MarginKind)
	}
	for _, w := range []struct {
		name string
		v    float64
	}{{"weight_pos", m.WeightPos}, {"weight_neg", m.WeightNeg}} {
		if !(w.v >= 0) || math.IsInf(w.v, 0) {
			return bad("%s = %g, want a finite class weight > 0 (0 means 1)", w.name, w.v)
		}
	}
	d := m.NumFeatures
	if d <= 0 {
		return bad("num_features = %d, want > 0", d)
	}
	if m.FeatureNames != nil && len(m.FeatureNames) != d {
		return bad("%d feature names for %d features", len(m.FeatureNames), d)
	}
	if err := checkKernelDim(m.Kernel, d); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if m.Sparse != (m.FormatVersion >= 5) {
		if m.Sparse {
			return bad("sparse support vectors in a format_version %d file (they need 5)", m.FormatVersion)
		}
		return bad("format_version %d without sparse support vectors (a model without them is version 1, 2, 3 or 4)", m.FormatVersion)
	}
	if sf := m.Normalizer != nil && m.Normalizer.IsSparseForm(); sf != (m.FormatVersion == 6) {
		if sf {
			return bad("a normaliser in its sparse form in a format_version %d file (it needs 6)", m.FormatVersion)
		}
		return bad("format_version 6 without a normaliser in its sparse form (such a model is version 5)")
	}
	if prob := m.HasProbability(); prob != (m.FormatVersion == 4) && m.FormatVersion < 5 {
		if prob {
			return bad("probability estimates in a format_version %d file (they need 4)", m.FormatVersion)
		}
		return bad("format_version 4 without probability estimates (a model without them is version 1, 2 or 3)")
	}
	if m.IsMultiClass() || m.Pairs != nil {
		if m.FormatVersion < 3 {
			return bad("a multi-class model in a format_version %d file (multi-class models need 3)", m.FormatVersion)
		}
	} else if m.Encoder == nil && m.FormatVersion != 1 && m.FormatVersion < 4 {
		return bad("format_version %d without an encoder (a model without one is version 1)", m.FormatVersion)
	}
	if s := m.Probability; s != nil && !s.Plausible() {
		return bad("probability: prob_a = %g, prob_b = %g, want numbers within ±%g (no fit gives more)", s.A, s.B, probability.MaxParam)
	}
	if m.Encoder != nil {
		if m.FormatVersion < 2 {
			return bad("an encoder in a format_version %d file (encoders need 2)", m.FormatVersion)
		}
		if err := m.Encoder.Check(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		if m.Encoder.Dim() != d {
			return bad("the encoder makes %d features, num_features = %d", m.Encoder.Dim(), d)
		}
	}
	if m.Normalizer != nil {
		if err := checkNormalizer(m.Normalizer, d); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
	}
	if m.GammaSpace != "" && m.GammaSpace != gammaSpace(m.Normalizer) {
		return bad("gamma_space %q, but the normalizer is %q", m.GammaSpace, gammaSpace(m.Normalizer))
	}
	if m.Multiclass != "" && !m.IsMultiClass() {
		return bad("multiclass %q in a binary model (no classes)", m.Multiclass)
	}
	if m.IsMultiClass() || m.Pairs != nil {
		return m.validateMulti()
	}
	if m.Labels.Positive == m.Labels.Negative {
		return bad("labels: positive and negative class are both %q", m.Labels.Positive)
	}
	if !finite(m.Bias) {
		return bad("bias is %g", m.Bias)
	}
	if err := m.checkTraining(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if m.Sparse {
		return m.validateSparseSVs()
	}
	for i, sv := range m.SupportVectors {
		if len(sv.X) != d {
			return bad("support vector %d has %d features, want %d", i+1, len(sv.X), d)
		}
		if !finite(sv.Coef) {
			return bad("support vector %d has coefficient %g", i+1, sv.Coef)
		}
		for j, v := range sv.X {
			if !finite(v) {
				return bad("support vector %d, feature %d is %g", i+1, j+1, v)
			}
		}
	}
	return nil
}

// validateSparseSVs checks a sparse model's support vectors (each its
// indices ascending within 1 to num_features, as many values, all finite,
// and no "x") and that its kernel computes on compressed rows.
func (m *Model) validateSparseSVs() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
	}
	d := m.NumFeatures
	k, err := kernel.FromSpec(m.Kernel)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := kernel.SparseSupport(k, d); err != nil {
		return fmt.Errorf("%w: sparse support vectors: %w", ErrInvalid, err)
	}
	for i, sv := range m.SupportVectors {
		if sv.X != nil {
			return bad("support vector %d has \"x\" in a model of sparse support vectors (want \"index\" and \"value\")", i+1)
		}
		if len(sv.Index) != len(sv.Value) {
			return bad("support vector %d has %d indices and %d values", i+1, len(sv.Index), len(sv.Value))
		}
		if !finite(sv.Coef) {
			return bad("support vector %d has coefficient %g", i+1, sv.Coef)
		}
		prev := int32(0)
		for p, j := range sv.Index {
			if j <= prev || int(j) > d {
				return bad("support vector %d: index %d after %d (want ascending, from 1 to %d)", i+1, j, prev, d)
			}
			prev = j
			if v := sv.Value[p]; !finite(v) {
				return bad("support vector %d, feature %d is %g", i+1, j, v)
			}
		}
	}
	return nil
}

// checkTraining checks that the training summary agrees with the model, as
// the writer makes it: a support vector or the bias lost or edited shows.
func (m *Model) checkTraining() error {
	t := m.Training
	switch {
	case t.NSV != len(m.SupportVectors):
		return fmt.Errorf("training.n_sv = %d, but the model has %d support_vectors", t.NSV, len(m.SupportVectors))
	case t.N < t.NSV || t.NPos < 0 || t.NPos > t.N || t.NBSV < 0 || t.NBSV > t.NSV:
		return fmt.Errorf("training: n = %d, n_pos = %d, n_sv = %d, n_bsv = %d do not agree", t.N, t.NPos, t.NSV, t.NBSV)
	case t.Rho != -m.Bias:
		return fmt.Errorf("bias = %g, but training.rho = %g (bias is -rho)", m.Bias, t.Rho)
	case !(t.Eps > 0) || math.IsInf(t.Eps, 0):
		return fmt.Errorf("training.eps = %g, want a finite tolerance > 0", t.Eps)
	}
	return nil
}
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// checkKernelDim checks that a kernel with a per-feature parameter has d of
// them.
func checkKernelDim(s kernel.Spec, d int) error {
	switch {
	case s.Diag != nil && len(s.Diag) != d:
		return fmt.Errorf("kernel has %d diagonal entries of Q for %d features", len(s.Diag), d)
	case s.Q != nil && len(s.Q) != d:
		return fmt.Errorf("kernel Q is %d×%d for %d features", len(s.Q), len(s.Q), d)
	case s.Theta != nil && len(s.Theta) != d:
		return fmt.Errorf("L1 kernel has %d widths θ for %d features", len(s.Theta), d)
	}
	return nil
}

// gammaSpace is a model's GammaSpace: its normaliser's kind, "" for none
// (a multi-class model's pairs, a Go caller's unnormalised fit).
func gammaSpace(norm *dataio.Normalizer) string {
	if norm == nil {
		return ""
	}
	return norm.Kind
}

// checkNormalizer checks that a normaliser has d per-feature entries.
func checkNormalizer(n *dataio.Normalizer, d int) error {
	if err := n.Validate(); err != nil {
		return err
	}
	if n.Dim() != d {
		return fmt.Errorf("normaliser has %d features, want %d", n.Dim(), d)
	}
	return nil
}
