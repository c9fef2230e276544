package dataio

import (
	"encoding/binary"
	"encoding/json"
	"math"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// Summary is what `kerneltune info` reports about a data set.
type Summary struct {
	Name     string   `json:"name"`
	Source   string   `json:"source"`
	Format   string   `json:"format"`
	SHA256   string   `json:"sha256,omitempty"`
	Rows     int      `json:"rows"`
	Features int      `json:"features"`
	Positive int      `json:"positive"` // rows labelled +1
	Negative int      `json:"negative"` // rows labelled -1
	Labels   LabelMap `json:"labels"`
	// Unlabeled is set for data read without labels (ReadOptions.Unlabeled):
	// Positive, Negative and the conflict counts are then 0.
	Unlabeled bool `json:"unlabeled,omitempty"`
	// Storage is how the features are held: "dense" or "sparse" (compressed
	// rows; ReadOptions.Storage). NonZeros counts the values that are not 0
	// and Density is their share of the Rows × Features values.
	Storage  string  `json:"storage"`
	NonZeros int64   `json:"nonzeros"`
	Density  float64 `json:"density"`
	// ValueRange is the least and the greatest value of the features (the
	// zeros a sparse row does not store among them); [0, 0] for no values.
	ValueRange [2]float64 `json:"value_range"`
	// Constant lists the 1-based numbers of the features with one value in
	// every row (zero spread: a normaliser leaves them unscaled). On sparse
	// data it lists those set in every row (to one value), and the
	// features zero in every row, which a vocabulary holds by the
	// thousands, are counted in UnsetFeatures instead (dense data lists
	// them here: a1a's features 120-123).
	Constant []int `json:"constant_features"`
	// UnsetFeatures counts the features of sparse data that no row sets
	// (zero in every row: constant too); 0 for dense data.
	UnsetFeatures int `json:"unset_features,omitempty"`
	// DuplicateRows counts rows whose feature vector equals an earlier row's
	// (n minus the number of distinct vectors), whatever the labels.
	DuplicateRows int `json:"duplicate_rows"`
	// ConflictingVectors counts distinct feature vectors that occur with
	// both labels; ConflictingRows the rows that carry them.
	ConflictingVectors int `json:"conflicting_vectors"`
	ConflictingRows    int `json:"conflicting_rows"`
	// Nominal are the nominal (categorical) feature columns with their
	// categories (read with ReadOptions.Categorical "codes"); their Stats
	// are of the category codes 0, 1, ….
	Nominal []NominalFeature `json:"nominal_features,omitempty"`
	// OneHotFeatures is the number of features after one-hot encoding the
	// categories that occur in the rows described, as train, tune and
	// compare encode them (FitOneHot; 0 without nominal features).
	OneHotFeatures int `json:"onehot_features,omitempty"`
	// OneHotDeclared is the number with every declared category (an ARFF
	// header may declare categories no row has); set only when it differs.
	OneHotDeclared int `json:"onehot_declared_features,omitempty"`
	// Classes are every class of the file with its rows, before any
	// selection; for a file with more than two classes read without a
	// choice of them (ReadOptions.AnyClasses), the only class counts.
	Classes []ClassCount `json:"classes,omitempty"`
	// Missing counts the rows with missing values, per column, that the
	// description leaves out (nil when none).
	Missing *MissingValues `json:"missing_values,omitempty"`
	// Splits are the sizes of the predefined train/test realisations.
	Splits []SplitSize `json:"splits,omitempty"`
	Notes  []string    `json:"notes,omitempty"`
	// Stats are every feature's; for sparse data only when asked
	// (DescribeSettings.FeatureStats, DescribeStats): news20 has 1,355,191.
	Stats []FeatureStat `json:"feature_stats,omitempty"`
}

// SplitSize is the size of one predefined realisation.
type SplitSize struct {
	Train int `json:"train"`
	Test  int `json:"test"`
}

// FeatureStat summarises one feature over all rows (std with divisor n).
type FeatureStat struct {
	Name string  `json:"name"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// MarshalJSON writes a statistic that is not a finite number (those of a
// feature of no rows) as null: JSON has no Inf or NaN, and --format json
// failed on them (issue 42, item 18).
func (f FeatureStat) MarshalJSON() ([]byte, error) {
	num := func(v float64) *float64 {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		Name string   `json:"name"`
		Min  *float64 `json:"min"`
		Max  *float64 `json:"max"`
		Mean *float64 `json:"mean"`
		Std  *float64 `json:"std"`
	}{f.Name, num(f.Min), num(f.Max), num(f.Mean), num(f.Std)})
}

// UnmarshalJSON reads what MarshalJSON writes (null as NaN).
func (f *FeatureStat) UnmarshalJSON(b []byte) error {
	var v struct {
		Name                *string
		Min, Max, Mean, Std *float64
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	val := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	*f = FeatureStat{Min: val(v.Min), Max: val(v.Max), Mean: val(v.Mean), Std: val(v.Std)}
	if v.Name != nil {
		f.Name = *v.Name
	}
	return nil
}

// Describe summarises d: sizes, classes with their original labels, constant
// features, duplicate feature vectors and vectors seen with both labels,
// predefined splits, notes and per-feature statistics (of sparse data,
// none: DescribeStats). Sparse data is described on its compressed rows, in
// O(non-zeros + features), never densified.
func Describe(d *Dataset) Summary {
	return describe(d, false)
}

// DescribeStats is Describe with the per-feature statistics of sparse data
// too (computed on its compressed rows).
func DescribeStats(d *Dataset) Summary {
	return describe(d, true)
}

func describe(d *Dataset, sparseStats bool) Summary {
	if d.Sparse != nil {
		return describeSparse(d, sparseStats)
	}
	n, dim := d.Len(), d.Dim()
	pos, neg := d.ClassCounts()
	s := Summary{
		Name: d.Name, Source: d.Source, Format: d.Format, SHA256: d.SHA256,
		Rows: n, Features: dim, Positive: pos, Negative: neg, Labels: d.Labels,
		Constant: []int{}, Notes: hint.Strings(d.Notes), Unlabeled: !d.Labeled(),
		Nominal: d.Nominal, Classes: d.Classes, Missing: d.Missing,
	}
	if len(d.Nominal) > 0 {
		declared := dim
		for _, nf := range d.Nominal {
			declared += len(nf.Levels) - 1
		}
		s.OneHotFeatures = declared
		if enc, err := FitOneHot(d); err == nil && enc != nil {
			s.OneHotFeatures = enc.Dim()
		}
		if declared != s.OneHotFeatures {
			s.OneHotDeclared = declared
		}
	}
	for _, sp := range d.Splits {
		s.Splits = append(s.Splits, SplitSize{Train: len(sp.Train), Test: len(sp.Test)})
	}
	for j := 0; j < dim; j++ {
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for i := 0; i < n; i++ {
			v := d.X.At(i, j)
			lo, hi = min(lo, v), max(hi, v)
			sum += v
		}
		mean := columnMean(d.X, j, sum)
		std := popStd(d.X, j, mean, columnSS(d.X, j, mean, nil), lo, hi)
		name := ""
		if j < len(d.FeatureNames) {
			name = d.FeatureNames[j]
		}
		s.Stats = append(s.Stats, FeatureStat{Name: name, Min: lo, Max: hi, Mean: mean, Std: std})
		if n > 0 && lo == hi {
			s.Constant = append(s.Constant, j+1)
		}
	}
	s.Storage = StorageDense
	for j, f := range s.Stats {
		if n == 0 {
			break // no values: [0, 0]
		}
		if j == 0 || f.Min < s.ValueRange[0] {
			s.ValueRange[0] = f.Min
		}
		if j == 0 || f.Max > s.ValueRange[1] {
			s.ValueRange[1] = f.Max
		}
	}
	if n > 0 && dim > 0 {
		raw := d.X.RawMatrix()
		for i := 0; i < n; i++ {
			for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+dim] {
				if v != 0 {
					s.NonZeros++
				}
			}
		}
		s.Density = float64(s.NonZeros) / (float64(n) * float64(dim))
	}
	// Duplicates by exact feature vector (-0 and +0 equal).
	type group struct{ pos, neg int }
	groups := map[string]*group{}
	key := make([]byte, 8*dim)
	for i := 0; i < n; i++ {
		for j := 0; j < dim; j++ {
			v := d.X.At(i, j)
			if v == 0 {
				v = 0
			}
			binary.LittleEndian.PutUint64(key[8*j:], math.Float64bits(v))
		}
		g, ok := groups[string(key)]
		if !ok {
			g = &group{}
			groups[string(key)] = g
		} else {
			s.DuplicateRows++
		}
		switch {
		case !d.Labeled():
		case d.Y[i] > 0:
			g.pos++
		default:
			g.neg++
		}
	}
	for _, g := range groups {
		if g.pos > 0 && g.neg > 0 {
			s.ConflictingVectors++
			s.ConflictingRows += g.pos + g.neg
		}
	}
	return s
}
