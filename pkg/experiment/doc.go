// Package experiment runs kerneltune's comparison protocol (Laanaya et al. 2011,
// §3): every method on the same train/test partitions of every dataset, the
// normaliser fitted on each training part, one record per (dataset, method,
// partition) streamed to a JSONL file as soon as it is produced (resumable,
// shardable across machines), and averaged tables with a paired Wilcoxon
// signed-rank test against the baseline. Tune is one method on one training
// part with its final SVM, as `tune` runs it.
//
// The entry points: Compare runs a whole comparison as `compare` does (the
// datasets read and partitioned, resume from a results file, one shard of
// the jobs, Laanaya's baseline selection) and returns its records and
// Summary; MergeFiles reads the results files of one run (the shards'),
// merges and summarises them as `report` does. Run, Plan and the Sources
// are the pieces for a caller that draws its own partitions.
//
// It is a package of its own because the protocol is neither a method nor a
// command: `compare` runs it and `report` re-renders its files, and both must
// agree on the record format and the statistics.
package experiment
