#!/usr/bin/python3
# Reference values for stats.BayesSignedRank (pkg/stats/signedrank_test.go),
# computed independently of kerneltune with the Python standard library only
# (numpy is not installed here; this is the same computation as baycomp's
# SignedRankTest.sample, written out):
#   python3 testdata/stats/make_signedrank_reference.py > testdata/stats/signedrank_reference.json
#
# Benavoli, Corani, Demsar & Zaffalon (JMLR 2017, section 5), baycomp 1.0:
# the differences d_1..d_n (method - baseline) with a pseudo-observation
# d_0 = 0 get Dirichlet weights w ~ Dir(0.5, 1, ..., 1), drawn here as
# normalised random.gammavariate draws (another generator and algorithm than
# kerneltune's PCG with Z^2/2 and exponential draws);
#   theta_better = sum_ij w_i w_j H(d_i + d_j - 2r),
#   theta_worse  = sum_ij w_i w_j H(-(d_i + d_j) - 2r),
#   theta_equiv  = 1 - theta_worse - theta_better,
# over all ordered pairs (i, j), with baycomp's heaviside: H(x) = 1 for x > 0,
# 1/2 for x = 0, 0 for x < 0. The sums are computed exactly (fractions.Fraction
# of the decimal strings below), so a sum on +-2r or on 0 is exactly on it.
# Each probability is the fraction of draws where its theta is the largest
# (a tie of thetas shared equally, as kerneltune does; baycomp's argmax gives
# it to the first, which happens with probability 0 in these cases).
# With "exact", the case has one difference, where the posterior is known in
# closed form: w_0 = u ~ Beta(1/2, 1), P(u < x) = sqrt(x).
import json
import math
import random
from fractions import Fraction

SAMPLES = 100000
SEED = 20170

CASES = [
    # name, differences (fractions of the metric, as decimal strings), rope
    ("one_at_2r", ["0.02"], "0.01"),
    ("sums_on_both_boundaries", ["0.02", "-0.005", "0.01", "0", "-0.015", "0.03", "-0.02"], "0.01"),
    ("many_on_2r", ["0.02", "0.01", "0.01", "0", "0.02", "-0.01", "0.005"], "0.01"),
    ("rope0_sums_on_0", ["0.01", "-0.01", "0.02", "-0.02", "0", "0.005"], "0"),
    ("rope0_one_better", ["0.03", "0.01", "-0.01", "0.002", "-0.004"], "0"),
]


def heaviside(x):
    return 1.0 if x > 0 else 0.5 if x == 0 else 0.0


def signed_rank(d, rope, samples, seed):
    rng = random.Random(seed)
    z = [Fraction(0)] + d
    m = len(z)
    above = [[heaviside(z[i] + z[j] - 2 * rope) for j in range(m)] for i in range(m)]
    below = [[heaviside(-(z[i] + z[j]) - 2 * rope) for j in range(m)] for i in range(m)]
    wins = [0.0, 0.0, 0.0]
    for _ in range(samples):
        g = [rng.gammavariate(0.5, 1.0)] + [rng.gammavariate(1.0, 1.0) for _ in range(m - 1)]
        s = sum(g)
        w = [x / s for x in g]
        worse = better = 0.0
        for i in range(m):
            for j in range(m):
                wij = w[i] * w[j]
                worse += wij * below[i][j]
                better += wij * above[i][j]
        theta = [worse, 1 - worse - better, better]
        best = max(theta)
        k = sum(1 for t in theta if t == best)
        for r in range(3):
            if theta[r] == best:
                wins[r] += 1 / k
    return [x / samples for x in wins]


out = {"samples": SAMPLES, "seed": SEED, "cases": []}
for n, (name, ds, rope) in enumerate(CASES):
    d = [Fraction(x) for x in ds]
    r = Fraction(rope)
    case = {
        "name": name,
        "diff": [float(x) for x in d],
        "rope": float(r),
        "p": signed_rank(d, r, SAMPLES, SEED + n),
        # the same differences with the methods swapped (negated)
        "p_swapped": signed_rank([-x for x in d], r, SAMPLES, SEED + 100 + n),
    }
    if name == "one_at_2r":
        # z = (0, 2r): the sums 0 (equiv), 2r twice (half equiv, half better),
        # 4r (better); theta_better = u(1-u) + (1-u)^2 = 1 - u, theta_equiv =
        # u^2 + u(1-u) = u: better wins iff u < 1/2, P = sqrt(1/2).
        case["exact"] = [0.0, 1 - math.sqrt(0.5), math.sqrt(0.5)]
    out["cases"].append(case)
print(json.dumps(out, indent=1))
