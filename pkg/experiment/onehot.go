package experiment

import "github.com/kerneltune/kerneltune/pkg/dataio"

// OneHotSource one-hot encodes the nominal features of each partition of
// Source (dataio.EncodeOneHot), fitted on that partition's training part as
// the normaliser is, so a category only the test part has encodes as all
// zeros: for a caller's own partitions (CompareSettings.Sources; the
// datasets Compare opens encode theirs, dataio.Partitioned.OneHot).
type OneHotSource struct{ Source }

// Unwrap returns the source being encoded.
func (s OneHotSource) Unwrap() Source { return s.Source }

// fixedData is the one dataset a source draws its partitions from by
// rows (a *dataio.Partitioned, a *SplitSource or a OneHotSource of one),
// as the fingerprint, the memory estimate and a dry run's notes read it.
type fixedData struct {
	data, test *dataio.Dataset
	splits     []dataio.Split
	// onehot: each partition's nominal features are one-hot encoded (a
	// OneHotSource, or a Partitioned that says so).
	onehot bool
}

// fixedOf returns the dataset src draws its partitions from, looking
// through the wrappers (OneHotSource) that encode them; false for a source
// that draws them otherwise (a preset's GeneratedSource).
func fixedOf(src Source) (fixedData, bool) {
	_, onehot := src.(OneHotSource)
	for {
		switch v := src.(type) {
		case *dataio.Partitioned:
			return fixedData{v.Data, v.Test, v.Splits, v.OneHot}, true
		case *SplitSource:
			return fixedData{v.Data, v.Test, v.Splits, onehot}, true
		case interface{ Unwrap() Source }:
			src = v.Unwrap()
		default:
			return fixedData{}, false
		}
	}
}

// Partition returns partition k of Source, encoded.
func (s OneHotSource) Partition(k int) (train, test *dataio.Dataset, err error) {
	train, test, err = s.Source.Partition(k)
	if err != nil {
		return nil, nil, err
	}
	return dataio.EncodeOneHot(train, test)
}

// EncodeNominal returns s in a OneHotSource when d, the data of s read with
// ReadOptions.Categorical "codes", has nominal features, and s otherwise.
func EncodeNominal(s Source, d *dataio.Dataset) Source {
	if len(d.Nominal) == 0 {
		return s
	}
	return OneHotSource{s}
}
