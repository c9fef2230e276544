#!/usr/bin/env python3
"""Writes sklearn.json: scikit-learn's accuracy, balanced accuracy, macro-F1
and AUC for the cases below, which metrics_test.go checks pkg/metrics
against. The test needs no scikit-learn; rerun this (Debian:
apt-get install -y python3-sklearn; /usr/bin/python3 make_sklearn.py) only to
add a case. Classes are indices 0..k-1 into labels; for AUC, class 0 is
the positive class (as a kerneltune binary record: labels[0] is +1)."""
import json
import warnings

import numpy as np
import sklearn
from sklearn.metrics import (accuracy_score, balanced_accuracy_score,
                             confusion_matrix, f1_score, roc_auc_score)

warnings.simplefilter("ignore")  # the zero-division and absent-class warnings are the point

rng = np.random.default_rng(22)


def case(name, labels, truth, pred, scores=None):
    truth, pred = list(map(int, truth)), list(map(int, pred))
    k = len(labels)
    c = {
        "name": name,
        "labels": labels,
        "truth": truth,
        "pred": pred,
        # the k×k matrix over every class, as kerneltune records it
        "counts": confusion_matrix(truth, pred, labels=list(range(k))).tolist(),
        "accuracy": accuracy_score(truth, pred),
        # sklearn's defaults: the classes of truth ∪ pred
        "balanced_accuracy": balanced_accuracy_score(truth, pred),
        "macro_f1": f1_score(truth, pred, average="macro"),
    }
    if scores is not None:
        c["scores"] = [float(s) for s in scores]
        c["auc"] = roc_auc_score([1 if t == 0 else 0 for t in truth], scores)
    return c


cases = []
# binary, 75/25 as a1a, the classifier biased to the majority class
n = 200
truth = (rng.random(n) < 0.25).astype(int)  # class 1 the minority
scores = np.where(truth == 0, 0.6, -0.4) + rng.normal(0, 1, n)
pred = np.where(scores > 0, 0, 1)
cases.append(case("binary-unbalanced", ["+1", "-1"], truth, pred, scores))
# binary with many tied scores (rounded), so that ties count one half
scores_t = np.round(scores, 0)
pred_t = np.where(scores_t > 0, 0, 1)
cases.append(case("binary-ties", ["+1", "-1"], truth, pred_t, scores_t))
# a constant classifier: AUC 1/2, one class never predicted
cases.append(case("binary-constant", ["+1", "-1"], truth, np.zeros(n, int), np.zeros(n)))
# three classes, every class present
t3 = rng.integers(0, 3, 90)
p3 = np.where(rng.random(90) < 0.7, t3, rng.integers(0, 3, 90))
cases.append(case("three-classes", ["setosa", "versicolor", "virginica"], t3, p3))
# four classes, class 3 predicted but absent from the test part
t4 = rng.integers(0, 3, 60)
p4 = np.where(rng.random(60) < 0.6, t4, rng.integers(0, 4, 60))
cases.append(case("absent-true-class", ["a", "b", "c", "d"], t4, p4))
# four classes, class 2 neither true nor predicted, class 3 never predicted
t5 = np.array([0, 0, 0, 1, 1, 3, 3, 3, 3, 0])
p5 = np.array([0, 0, 1, 1, 1, 0, 1, 0, 1, 0])
cases.append(case("absent-class", ["a", "b", "c", "d"], t5, p5))

with open("sklearn.json", "w") as f:  # a case a line
    f.write('{"sklearn": %s, "cases": [\n' % json.dumps(sklearn.__version__))
    f.write(",\n".join(json.dumps(c) for c in cases))
    f.write("\n]}\n")
