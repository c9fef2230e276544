package experiment

import "github.com/kerneltune/kerneltune/pkg/dataio"

// OneHotSource one-hot encodes the nominal features of each partition of
// Source (dataio.EncodeOneHot), fitted on that partition's training part as
// the normaliser is, so a category only the test part has encodes as all
// zeros.
type OneHotSource struct{ Source }

// Unwrap returns the source being encoded.
func (s OneHotSource) Unwrap() Source { return s.Source }

// splitSource returns the *SplitSource under s, looking through the
// wrappers (OneHotSource) that encode its partitions.
func splitSource(s Source) (*SplitSource, bool) {
	for {
		switch v := s.(type) {
		case *SplitSource:
			return v, true
		case interface{ Unwrap() Source }:
			s = v.Unwrap()
		default:
			return nil, false
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
