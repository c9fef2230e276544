// Package report is kerneltune's presentation layer: the tables the
// commands print, and the renderers that write them as box-drawn text,
// markdown, CSV, LaTeX table environments (booktabs) or JSON.
//
// A Table holds strings, not numbers: whoever builds it chooses each
// number's precision (Fixed, Sig), so every format shows the same digits.
// Nothing here prints on its own; Render and RenderJSON write to the
// io.Writer they are given.
//
// What compare and report show of a run's records is made here too, from
// the records alone, so that both commands show the same: the averaged
// tables per dataset (Summarize: mean ± std, the paired Wilcoxon test
// of pkg/stats against the baseline, what is missing), the statistics
// across datasets (CrossDataset), the figure files of --plot (Figures,
// WritePlots, drawn by pkg/figure) and the HTML page (HTMLPage).
// pkg/experiment only runs the protocol and writes the records.
//
// A dataset is its identity (experiment.DatasetIdentity: its data, how it
// was read and partitioned, the seed and normalisation), its name only
// shows it: records handed to these functions that give one name to
// different datasets (two runs gathered in Go) are shown as two datasets,
// NAME and NAME#2, as report --split-identities shows them, and
// Summary.Renamed and the summary's warning say which is which; no table
// averages, and no paired test pairs, two datasets' partitions.
package report
