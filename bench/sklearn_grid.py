"""The scikit-learn side of bench/sklearn.sh: GridSearchCV(SVC(kernel='rbf'))
over LIBSVM grid.py's grid (C = 2^-5..2^15, gamma = 2^3..2^-15, log2 step 2),
cv=5, n_jobs=1, refit on the whole training part and scored on the test part,
on every partition of the CSV that bench/partitions writes (the partitions
kerneltune compare tunes on, z-scored on each training part).

Prints one line per partition (chosen C, gamma, CV and test accuracy) and
the CPU seconds of the searches (time.process_time, imports and reading
excluded) on the last line:  cpu-s 12.34
"""
import sys
import time

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC


def main(path):
    rows = np.genfromtxt(path, delimiter=",", dtype=None, encoding="ascii")
    raw = [list(r) for r in rows]
    parts = sorted({int(r[0]) for r in raw})
    grid = {
        "C": [2.0 ** e for e in range(-5, 16, 2)],
        "gamma": [2.0 ** e for e in range(3, -16, -2)],
    }
    cpu = 0.0
    for p in parts:
        tr = np.array([r[2:] for r in raw if int(r[0]) == p and r[1] == "train"], dtype=float)
        te = np.array([r[2:] for r in raw if int(r[0]) == p and r[1] == "test"], dtype=float)
        start = time.process_time()
        gs = GridSearchCV(SVC(kernel="rbf", tol=1e-3, cache_size=200), grid,
                          cv=StratifiedKFold(5), n_jobs=1)
        gs.fit(tr[:, 1:], tr[:, 0])
        test = gs.score(te[:, 1:], te[:, 0])
        cpu += time.process_time() - start
        print("partition %2d  C 2^%-3g gamma 2^%-3g cv %.4f test %.4f" % (
            p, np.log2(gs.best_params_["C"]), np.log2(gs.best_params_["gamma"]),
            gs.best_score_, test))
    print("cpu-s %.3f" % cpu)


if __name__ == "__main__":
    main(sys.argv[1])
