#!/usr/bin/python3
# Reference values for the statistics across datasets that `kerneltune report
# testdata/crossdata/run.jsonl` prints (cmd/crosstable_test.go), computed once,
# independently of kerneltune, with Debian's python3-scipy (1.10.1):
#   apt-get install -y python3-scipy
#   /usr/bin/python3 testdata/crossdata/make_reference.py > testdata/crossdata/reference.json
# run.jsonl was written by
#   kerneltune compare builtin:heart builtin:breast-wisconsin builtin:diabetes \
#     testdata/good/bupa_header_crlf.csv testdata/libsvm/a1a --methods svm,lccp,rcsc,twolevel \
#     --partitions 8 --train-size 60 --test-size 100 --out testdata/crossdata/run.jsonl
# Mean test accuracy per (dataset, method) over the partitions that did not fail, rounded
# to 9 decimals (equal means tie); ranks by scipy.stats.rankdata (1 = best, ties averaged);
# Friedman: Demsar's (2006) chi2_F and Iman-Davenport F_F with scipy.stats.f.sf, and
# scipy.stats.friedmanchisquare (tie-corrected); Nemenyi q from
# scipy.stats.studentized_range at df = inf over sqrt(2); Holm against svm with
# scipy.stats.norm.sf; wins/ties/losses from scipy.stats.wilcoxon (zero_method='wilcox',
# correction=True, method='approx') over the partitions where both succeeded, p < 0.05.
import json
import math
import os
from collections import defaultdict
import numpy as np
import scipy
from scipy.stats import rankdata, friedmanchisquare, f, chi2, norm, studentized_range, wilcoxon

here = os.path.dirname(os.path.abspath(__file__))
acc = defaultdict(lambda: defaultdict(dict))  # dataset -> method -> partition -> accuracy
for line in open(os.path.join(here, "run.jsonl")):
    r = json.loads(line)
    if r["status"] != "failure":
        acc[r["dataset"]][r["entry"]][r["partition"]] = r["test_accuracy"]
methods = ["svm", "lccp", "rcsc", "twolevel"]
datasets = sorted(acc)
means = np.array([[round(float(np.mean(list(acc[d][m].values()))), 9) for m in methods] for d in datasets])
n, k = means.shape
ranks = np.array([rankdata(-row) for row in means])
R = ranks.mean(axis=0)
chi = 12 * n / (k * (k + 1)) * (np.sum(R ** 2) - k * (k + 1) ** 2 / 4)
ff = (n - 1) * chi / (n * (k - 1) - chi)
res = friedmanchisquare(*[means[:, j] for j in range(k)])
se = math.sqrt(k * (k + 1) / (6 * n))
holm = sorted(({"method": m, "z": (R[j] - R[0]) / se, "p": float(2 * norm.sf(abs((R[j] - R[0]) / se)))}
               for j, m in enumerate(methods) if j > 0), key=lambda h: h["p"])
reject = True
for i, h in enumerate(holm):
    h["alpha"] = 0.05 / (k - 1 - i)
    reject = reject and h["p"] <= h["alpha"]
    h["reject"] = reject
wtl = {}
for j, m in enumerate(methods[1:], 1):
    w = t = l = 0
    for i, d in enumerate(datasets):
        parts = sorted(set(acc[d][m]) & set(acc[d]["svm"]))
        x = [acc[d][m][p] for p in parts]
        y = [acc[d]["svm"][p] for p in parts]
        p = wilcoxon(x, y, zero_method="wilcox", correction=True, method="approx").pvalue if any(a != b for a, b in zip(x, y)) else float("nan")
        if p < 0.05 and means[i, j] > means[i, 0]:
            w += 1
        elif p < 0.05 and means[i, j] < means[i, 0]:
            l += 1
        else:
            t += 1
    wtl[m] = [w, t, l]
cds = {}
for alpha in (0.05, 0.10):
    q = float(studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))
    cds[str(alpha)] = {"q": q, "cd": q * se}
out = {
    "scipy": scipy.__version__, "methods": methods, "datasets": datasets,
    "mean_accuracy": means.tolist(), "average_ranks": R.tolist(),
    "chi2_f": float(chi), "chi2_p": float(chi2.sf(chi, k - 1)),
    "chi2_f_tie_corrected": float(res.statistic),
    "f_f": float(ff), "df1": k - 1, "df2": (k - 1) * (n - 1), "f_p": float(f.sf(ff, k - 1, (k - 1) * (n - 1))),
    "nemenyi": cds, "holm": holm, "win_tie_loss": wtl,
}
print(json.dumps(out, indent=1))
