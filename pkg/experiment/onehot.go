package experiment

import "github.com/kerneltune/kerneltune/pkg/dataio"

// OneHotSource one-hot encodes the nominal features of each partition of
// Source (dataio.EncodeOneHot), fitted on that partition's training part as
// the normaliser is, so a category only the test part has encodes as all
// zeros.
type OneHotSource struct{ Source }

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
