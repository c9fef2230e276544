// Package experiment runs kerneltune's comparison protocol (Laanaya et al. 2011,
// §3): every method on the same train/test partitions of every dataset, the
// normaliser fitted on each training part, one record per (dataset, method,
// partition) streamed to a JSONL file as soon as it is produced (resumable,
// shardable across machines). Tune is one method on one training part with
// its final SVM, as `tune` runs it.
//
// The entry points: Compare runs a whole comparison as `compare` does (the
// datasets read and partitioned, resume from a results file, one shard of
// the jobs, Laanaya's baseline selection) and returns its records;
// MergeFiles reads the results files of one run (the shards') and merges
// them as `report` does. Run, Plan and the Sources are the pieces for a
// caller that draws its own partitions.
//
// It is a package of its own because the protocol is neither a method nor a
// command: `compare` runs it and `report` re-reads its files, and both must
// agree on the record format. What is made of the records — the averaged
// tables with the paired Wilcoxon test against the baseline, the statistics
// across datasets, the figures — is pkg/report's (with the tests themselves
// in pkg/stats), so that a run's numbers do not depend on how they are shown.
package experiment
