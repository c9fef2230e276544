// Package experiment runs kerneltune's comparison protocol (Laanaya et al. 2011,
// §3): every method on the same train/test partitions of every dataset, the
// normaliser fitted on each training part, one record per (dataset, method,
// partition) streamed to a JSONL file as soon as it is produced (resumable,
// shardable across machines), and averaged tables with a paired Wilcoxon
// signed-rank test against the baseline. Tune is one method on one training
// part with its final SVM, as `tune` runs it.
//
// It is a package of its own because the protocol is neither a method nor a
// command: `compare` runs it and `report` re-renders its files, and both must
// agree on the record format and the statistics.
package experiment
