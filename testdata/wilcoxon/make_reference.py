#!/usr/bin/python3
# Reference p-values for pkg/stats' Wilcoxon signed-rank test, computed once with
# Debian's python3-scipy (1.10.1):  /usr/bin/python3 testdata/wilcoxon/make_reference.py
# scipy.stats.wilcoxon(x, y, zero_method='wilcox', correction=True,
#                      alternative='two-sided', method='approx')
# Every case has ties or zero differences, where scipy's default method='auto' also
# uses the approximation; the exact p (no ties, no zeros, n <= 50) is checked against
# an enumeration of the sign assignments in pkg/stats/wilcoxon_exact_test.go.
# Inputs are integers (e.g. percent correct) so that every difference is exact in
# floating point and ties are ties in both implementations.
import json
import scipy
from scipy.stats import wilcoxon

cases = {
    "simple": ([80, 82, 79, 85, 90, 70, 76, 81, 88, 84], [78, 80, 80, 81, 86, 72, 70, 80, 85, 83]),
    "all_one_side": ([51, 52, 50, 53, 51, 55, 50, 52, 54, 51, 50, 53], [90, 92, 50, 91, 93, 89, 94, 90, 93, 91, 92, 88]),
    "mixed_ties": ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [2, 2, 1, 5, 5, 5, 9, 6, 9, 12, 10, 13]),
    "thirty": ([80, 84, 85, 81, 76, 75, 79, 83, 85, 82, 77, 75, 77, 82, 85, 83, 79, 75, 76, 81, 85, 84, 80, 76, 75, 79, 84, 85, 81, 77],
               [85, 83, 78, 75, 77, 81, 85, 84, 79, 75, 76, 80, 84, 85, 81, 76, 75, 79, 83, 85, 82, 77, 75, 77, 82, 85, 83, 79, 75, 76]),
    "many_zeros": ([50, 50, 50, 50, 60, 61, 62, 50, 50, 55], [50, 50, 50, 50, 50, 50, 50, 50, 49, 50]),
}
out = {"scipy": scipy.__version__, "cases": {}}
for name, (x, y) in cases.items():
    r = wilcoxon(x, y, zero_method="wilcox", correction=True, alternative="two-sided", method="approx")
    out["cases"][name] = {"x": x, "y": y, "statistic": float(r.statistic), "pvalue": float(r.pvalue)}
print(json.dumps(out, indent=1))
