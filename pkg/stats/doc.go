// Package stats holds the statistics for comparing several methods over
// several datasets, as Demšar (2006) recommends for machine-learning method
// comparisons:
//
//   - average ranks of the methods (Demšar §3.2.2; rank 1 = best score per
//     dataset, ties get the mean rank);
//   - the Friedman test and the Iman–Davenport F correction of it (Demšar
//     §3.2.2);
//   - the Nemenyi critical difference for comparing all methods with each
//     other, with q_α from the studentised range at infinite degrees of
//     freedom divided by √2 (Demšar §3.2.2, Table 5a), and the groups of
//     methods it does not separate (the bars of Demšar's CD diagram, §3.2.4);
//   - the Bonferroni–Dunn critical difference and Holm's step-down test of
//     every method against a control (Demšar §3.2.2, Table 5b; Holm 1979);
//   - win/tie/loss counts against a control from per-dataset tests, and the
//     per-dataset test itself: the paired, two-sided Wilcoxon signed-rank
//     test of one method's accuracies against the control's over the same
//     partitions (Demšar §3.1.3), as scipy.stats.wilcoxon computes it.
//
// J. Demšar, Statistical comparisons of classifiers over multiple data sets,
// Journal of Machine Learning Research 7 (2006) 1–30.
//
// It is a package of its own because these statistics are shared by the
// run's tables, the figures (the critical-difference diagram) and the
// HTML page of pkg/report, and they know nothing of kernels, methods or
// records: stats depends on gonum only, and nothing else in the module.
package stats
