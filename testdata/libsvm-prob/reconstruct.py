#!/usr/bin/env python3
"""Reconstruct the decision values svm-train -b 1 (LIBSVM 3.24) fits its
sigmoids to, and write the golden file of pkg/model's probability tests.

svm-train never seeds rand(), so svm_binary_svc_probability's shuffle
(j = i + rand() % (l - i)) draws glibc's rand() from its default seed 1,
pair after pair. This script replays that generator (glibc's TYPE_3
additive feedback generator), cuts the same 5 folds, trains each fold's SVM
with svm-train itself (rows in svm_binary_svc_probability's order), computes
the fold SVM's decision values on the held-out rows from its model file
(sv_coef and rho are written with 17 digits; the RBF kernel
exp(-gamma * sum (x_k - z_k)^2) as LIBSVM's k_function), fits the sigmoid
with a transcription of sigmoid_train, and checks that it gives the probA
and probB of svm-train -b 1's own model: so the decision values are
LIBSVM's. The golden file holds them, LIBSVM's probA/probB, and the log-loss
and Brier score of svm-predict -b 1 on the training file (held-in).

Usage (make.sh runs it): reconstruct.py NAME FILE C GAMMA EPS WORKDIR
"""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pkg", "probability", "testdata"))


class GlibcRand:
    """glibc's rand() (random_r.c, TYPE_3: x_i = x_{i-3} + x_{i-31}), srand(1)."""

    def __init__(self, seed=1):
        r = [0] * 34
        r[0] = seed
        for i in range(1, 31):
            r[i] = (16807 * r[i - 1]) % 2147483647
        for i in range(31, 34):
            r[i] = r[i - 31]
        self.r = r
        for _ in range(310):
            self._next()

    def _next(self):
        r = self.r
        v = (r[-31] + r[-3]) & 0xFFFFFFFF
        r.append(v)
        if len(r) > 64:
            del r[:-34]
        return v >> 1

    def __call__(self):
        return self._next()


def read_libsvm(path):
    rows = []
    for line in open(path):
        parts = line.split()
        if not parts:
            continue
        x = {}
        for p in parts[1:]:
            k, v = p.split(":")
            x[int(k)] = float(v)
        rows.append((parts[0], x))
    return rows


def write_libsvm(path, rows):
    with open(path, "w") as f:
        for y, x in rows:
            f.write(y + " " + " ".join("%d:%s" % (k, repr(v)) for k, v in sorted(x.items())) + "\n")


def read_model(path):
    head, svs = {}, []
    lines = open(path).read().splitlines()
    i = 0
    while lines[i] != "SV":
        k, *v = lines[i].split()
        head[k] = v
        i += 1
    for line in lines[i + 1:]:
        parts = line.split()
        if parts:  # k-1 coefficients (one for a binary model), then index:value
            coef = [float(p) for p in parts if ":" not in p]
            svs.append((coef[0], {int(a): float(b) for a, b in (p.split(":") for p in parts if ":" in p)}))
    return head, svs


def rbf(x, z, gamma):
    s = 0.0
    for k in sorted(set(x) | set(z)):
        d = x.get(k, 0.0) - z.get(k, 0.0)
        s += d * d
    return math.exp(-gamma * s)


def decision(model, x):
    head, svs = model
    gamma, rho = float(head["gamma"][0]), float(head["rho"][0])
    return sum(c * rbf(sv, x, gamma) for c, sv in svs) - rho


def sigmoid_train(dec, labels):
    from transcribe_libsvm import sigmoid_train as st  # the Python transcription beside pkg/probability's tests
    A, B, _ = st(dec, labels)
    return A, B


def main():
    name, path, C, gamma, eps, work = sys.argv[1:7]
    rows = read_libsvm(path)
    # svm_group_classes: labels by first occurrence; for two classes -1/+1
    # with -1 first, +1 is put first.
    labels = []
    for y, _ in rows:
        if y not in labels:
            labels.append(y)
    if len(labels) == 2 and float(labels[0]) == -1 and float(labels[1]) == 1:
        labels.reverse()
    by_class = {c: [i for i, (y, _) in enumerate(rows) if y == c] for c in labels}
    rand = GlibcRand(1)
    pairs = []
    for a in range(len(labels)):
        for b in range(a + 1, len(labels)):
            idx = by_class[labels[a]] + by_class[labels[b]]
            y = [1] * len(by_class[labels[a]]) + [-1] * len(by_class[labels[b]])
            l = len(idx)
            perm = list(range(l))
            for i in range(l):
                j = i + rand() % (l - i)
                perm[i], perm[j] = perm[j], perm[i]
            dec = [0.0] * l
            for f in range(5):
                begin, end = f * l // 5, (f + 1) * l // 5
                rest = perm[:begin] + perm[end:]
                pos = sum(1 for k in rest if y[k] > 0)
                if pos == 0 or pos == len(rest):
                    for k in perm[begin:end]:
                        dec[k] = 1.0 if pos else -1.0
                    continue
                tr = os.path.join(work, "%s-%d-%d-fold%d" % (name, a, b, f))
                write_libsvm(tr, [("%+d" % y[k], rows[idx[k]][1]) for k in rest])
                subprocess.run(["svm-train", "-q", "-s", "0", "-t", "2", "-c", C, "-g", gamma, "-e", eps, tr, tr + ".model"], check=True)
                model = read_model(tr + ".model")
                sign = float(model[0]["label"][0])
                for k in perm[begin:end]:
                    dec[k] = decision(model, rows[idx[k]][1]) * sign
            A, B = sigmoid_train(dec, y)
            pairs.append({"classes": [labels[a], labels[b]], "dec": dec, "y": y, "transcription_A": A, "transcription_B": B})
    # svm-train -b 1 itself, and svm-predict -b 1 on the training file.
    model_path = os.path.join(work, name + ".model")
    subprocess.run(["svm-train", "-q", "-b", "1", "-s", "0", "-t", "2", "-c", C, "-g", gamma, "-e", eps, path, model_path], check=True)
    head, _ = read_model(model_path)
    probA, probB = [float(v) for v in head["probA"]], [float(v) for v in head["probB"]]
    assert [float(v) for v in head["label"]] == [float(v) for v in labels], (head["label"], labels)
    worst = 0.0
    for p, (a, b) in zip(pairs, zip(probA, probB)):
        p["libsvm_probA"], p["libsvm_probB"] = a, b
        worst = max(worst, abs(p["transcription_A"] - a), abs(p["transcription_B"] - b))
    if worst > 1e-6:
        sys.exit("%s: the reconstructed decision values do not give svm-train's probA/probB (max difference %g): the replay of rand() is wrong" % (name, worst))
    out = os.path.join(work, name + ".predict")
    res = subprocess.run(["svm-predict", "-b", "1", path, model_path, out], check=True, capture_output=True, text=True)
    lines = open(out).read().splitlines()
    cls = lines[0].split()[1:]
    ll = br = 0.0
    correct = 0
    for (y, _), line in zip(rows, lines[1:]):
        parts = line.split()
        prob = [float(v) for v in parts[1:]]
        t = [float(c) for c in cls].index(float(y))
        ll -= math.log(max(prob[t], 1e-15))
        br += sum((q - (1.0 if k == t else 0.0)) ** 2 for k, q in enumerate(prob))
        correct += float(parts[0]) == float(y)
    n = len(rows)
    print(json.dumps({
        "name": name, "file": os.path.relpath(path, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")),
        "C": float(C), "gamma": float(gamma), "eps": float(eps),
        "labels": labels, "pairs": pairs, "reconstruction_max_diff": worst,
        "libsvm_log_loss": ll / n, "libsvm_brier": br / n, "libsvm_accuracy": correct / n,
        "svm_predict": res.stdout.strip(),
    }))


main()
