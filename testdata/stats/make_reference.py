#!/usr/bin/python3
# Reference values for pkg/stats, computed once with Debian's python3-scipy (1.10.1):
#   apt-get install -y python3-scipy
#   /usr/bin/python3 testdata/stats/make_reference.py > testdata/stats/reference.json
# - friedman: scipy.stats.friedmanchisquare (the tie-corrected statistic and its chi-square
#   p-value), and, computed here from scipy.stats.rankdata, Demsar's (2006) uncorrected
#   chi2_F, the Iman-Davenport F_F and its p-value scipy.stats.f.sf(F_F, k-1, (k-1)(N-1)),
#   and Holm's z and two-sided p against the first column (scipy.stats.norm.sf).
# - range_q: scipy.stats.studentized_range.ppf(1 - alpha, k, inf) / sqrt(2), the Nemenyi q_alpha.
# Scores: rows are datasets, columns methods, higher is better.
import json
import math
import numpy as np
import scipy
from scipy.stats import friedmanchisquare, rankdata, f, chi2, norm, studentized_range

cases = {
    # Demsar (2006) Table 6: AUC of C4.5, C4.5+m, C4.5+cf, C4.5+m+cf on 14 datasets, as printed
    "demsar_printed": [
        [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
        [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
        [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
        [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
        [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970]],
    "no_ties": [
        [81, 85, 79, 90, 70], [62, 66, 61, 64, 59], [95, 97, 96, 93, 91], [70, 75, 73, 77, 68],
        [88, 87, 90, 92, 85], [55, 58, 57, 60, 52]],
    "with_ties": [
        [80, 80, 78], [90, 91, 91], [70, 72, 71], [65, 65, 65], [85, 88, 84], [77, 79, 79], [60, 62, 61]],
    "two_datasets": [[0.8, 0.7, 0.75, 0.6], [0.9, 0.85, 0.7, 0.8]],
}
out = {"scipy": scipy.__version__, "friedman": {}, "range_q": {}}
for name, rows in cases.items():
    x = np.array(rows, dtype=float)
    n, k = x.shape
    res = friedmanchisquare(*[x[:, j] for j in range(k)])
    ranks = np.array([rankdata(-row) for row in x])  # rank 1 = highest, ties averaged
    R = ranks.mean(axis=0)
    chi = 12 * n / (k * (k + 1)) * (np.sum(R ** 2) - k * (k + 1) ** 2 / 4)
    ff = (n - 1) * chi / (n * (k - 1) - chi)
    se = math.sqrt(k * (k + 1) / (6 * n))
    z = [(R[j] - R[0]) / se for j in range(1, k)]
    out["friedman"][name] = {
        "scores": rows,
        "average_ranks": R.tolist(),
        "scipy_statistic": float(res.statistic), "scipy_pvalue": float(res.pvalue),
        "chi2_f": float(chi), "chi2_p": float(chi2.sf(chi, k - 1)),
        "f_f": float(ff), "df1": k - 1, "df2": (k - 1) * (n - 1),
        "f_p": float(f.sf(ff, k - 1, (k - 1) * (n - 1))),
        "holm_z": z, "holm_p": [float(2 * norm.sf(abs(v))) for v in z],
    }
for alpha in (0.05, 0.10):
    out["range_q"][str(alpha)] = {str(k): float(studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2)) for k in range(2, 21)}
print(json.dumps(out, indent=1))
