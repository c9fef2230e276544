#!/usr/bin/python3
# Reference values for the Bayesian comparisons that `kerneltune report
# testdata/crossdata/run.jsonl [--rope R]` prints (cmd/bayes_test.go),
# computed independently of kerneltune with the Python standard library only
# (no numpy or scipy here):
#   python3 testdata/crossdata/make_bayes_reference.py > testdata/crossdata/bayes_reference.json
#
# Benavoli, Corani, Demsar & Zaffalon (JMLR 2017):
# - per dataset, the Bayesian correlated t-test of the test accuracies of each
#   method minus svm's over the partitions, with Nadeau-Bengio's
#   rho = n_test/(n_test+n_train): the posterior is a Student t with n-1 df,
#   location mean(d), scale sqrt((1/n + rho/(1-rho)) var(d, ddof=1)).
#   The t CDF is computed here by integrating the t density numerically
#   (composite Simpson, 200000 intervals, lgamma for the constant), not with
#   the regularized incomplete beta function kerneltune (gonum) uses;
# - across datasets, the Bayesian signed-rank test of the per-dataset mean
#   accuracies (rounded to 1e-9, as the ranking) of each method minus svm's:
#   Dirichlet weights Dir(0.5, 1, ..., 1) on (0, d_1, ..., d_n), drawn with
#   random.gammavariate (a different generator and algorithm than
#   kerneltune's), theta_left = sum w_i w_j H(-(d_i + d_j) - 2r), theta_right =
#   sum w_i w_j H(d_i + d_j - 2r), theta_rope the rest, with baycomp's
#   heaviside H (1 above 0, 1/2 at 0, 0 below), the sums exact in integer
#   units of 1e-9 (the means' rounding); the probabilities are the fractions
#   of 200000 draws where each theta is the largest.
import json
import math
import os
import random
from collections import defaultdict

here = os.path.dirname(os.path.abspath(__file__))
acc = defaultdict(lambda: defaultdict(dict))  # dataset -> method -> partition -> accuracy
sizes = {}
for line in open(os.path.join(here, "run.jsonl")):
    r = json.loads(line)
    if r["status"] != "failure":
        acc[r["dataset"]][r["entry"]][r["partition"]] = r["test_accuracy"]
        sizes[r["dataset"]] = (r["train_size"], r["test_size"])
methods = ["lccp", "rcsc", "twolevel"]
datasets = sorted(acc)


def t_pdf(x, nu):
    c = math.exp(math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2)) / math.sqrt(nu * math.pi)
    return c * (1 + x * x / nu) ** (-(nu + 1) / 2)


def t_cdf(x, nu, steps=200000):
    """P(T <= x) for Student's t with nu df: 1/2 + the integral of the density from 0 to x."""
    if x == 0:
        return 0.5
    a = abs(x)
    h = a / steps
    s = t_pdf(0, nu) + t_pdf(a, nu)
    for i in range(1, steps):
        s += (4 if i % 2 else 2) * t_pdf(i * h, nu)
    integral = s * h / 3
    return 0.5 + integral if x > 0 else 0.5 - integral


def correlated_t(d, rho, rope):
    n = len(d)
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1)
    scale = math.sqrt((1 / n + rho / (1 - rho)) * var)
    if var < 1e-24:
        return [1.0, 0.0, 0.0] if mean < -rope else [0.0, 0.0, 1.0] if mean > rope else [0.0, 1.0, 0.0]
    left = t_cdf((-rope - mean) / scale, n - 1)
    right = 1 - t_cdf((rope - mean) / scale, n - 1)
    return [left, 1 - left - right, right]


def signed_rank(d, rope, samples, seed):
    rng = random.Random(seed)
    # exact sums: the differences and the ROPE in integer units of 1e-9
    z = [0] + [round(x * 1e9) for x in d]
    r2 = 2 * round(rope * 1e9)
    m = len(z)

    def h(x):
        return 1.0 if x > 0 else 0.5 if x == 0 else 0.0

    above = [[h(z[i] + z[j] - r2) for j in range(m)] for i in range(m)]
    below = [[h(-(z[i] + z[j]) - r2) for j in range(m)] for i in range(m)]
    wins = [0.0, 0.0, 0.0]
    for _ in range(samples):
        g = [rng.gammavariate(0.5, 1.0)] + [rng.gammavariate(1.0, 1.0) for _ in range(m - 1)]
        s = sum(g)
        w = [x / s for x in g]
        left = right = 0.0
        for i in range(m):
            for j in range(m):
                left += w[i] * w[j] * below[i][j]
                right += w[i] * w[j] * above[i][j]
        theta = [left, 1 - left - right, right]
        best = max(theta)
        k = sum(1 for t in theta if t == best)
        for r in range(3):
            if theta[r] == best:
                wins[r] += 1 / k
    return [x / samples for x in wins]


out = {"datasets": datasets, "methods": methods, "ropes": {}}
for rope_points in (1, 2):
    rope = rope_points / 100
    per = {}
    for ds in datasets:
        ntrain, ntest = sizes[ds]
        rho = ntest / (ntest + ntrain)
        per[ds] = {"rho": rho}
        for m in methods:
            parts = sorted(set(acc[ds][m]) & set(acc[ds]["svm"]))
            d = [acc[ds][m][p] - acc[ds]["svm"][p] for p in parts]
            per[ds][m] = correlated_t(d, rho, rope)
    across = {}
    for m in methods:
        d = [round(sum(acc[ds][m].values()) / len(acc[ds][m]), 9) - round(sum(acc[ds]["svm"].values()) / len(acc[ds]["svm"]), 9) for ds in datasets]
        across[m] = signed_rank(d, rope, 200000, 7)
    out["ropes"][str(rope_points)] = {"correlated_t": per, "signed_rank": across}
print(json.dumps(out, indent=1))
