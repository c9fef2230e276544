#!/usr/bin/env python3
"""An independent transcription of LIBSVM 3.24's svm.cpp sigmoid_train,
sigmoid_predict and multiclass_probability (Lin, Lin & Weng 2007; Wu, Lin &
Weng 2004, method 2), in plain Python (stdlib only), and the reference
numbers the Go tests of pkg/probability compare with.

Run from this directory:  python3 transcribe_libsvm.py > reference.json
"""
import json
import math
import random


def sigmoid_train(dec, labels):
    prior1 = sum(1.0 for y in labels if y > 0)
    prior0 = len(labels) - prior1
    max_iter, min_step, sigma, eps = 100, 1e-10, 1e-12, 1e-5
    hi = (prior1 + 1.0) / (prior1 + 2.0)
    lo = 1 / (prior0 + 2.0)
    t = [hi if y > 0 else lo for y in labels]
    A, B = 0.0, math.log((prior0 + 1.0) / (prior1 + 1.0))

    def fun(A, B):
        s = 0.0
        for f, ti in zip(dec, t):
            z = f * A + B
            if z >= 0:
                s += ti * z + math.log(1 + math.exp(-z))
            else:
                s += (ti - 1) * z + math.log(1 + math.exp(z))
        return s

    fval = fun(A, B)
    it = 0
    while it < max_iter:
        h11 = h22 = sigma
        h21 = g1 = g2 = 0.0
        for f, ti in zip(dec, t):
            z = f * A + B
            if z >= 0:
                p = math.exp(-z) / (1.0 + math.exp(-z))
                q = 1.0 / (1.0 + math.exp(-z))
            else:
                p = 1.0 / (1.0 + math.exp(z))
                q = math.exp(z) / (1.0 + math.exp(z))
            d2 = p * q
            h11 += f * f * d2
            h22 += d2
            h21 += f * d2
            d1 = ti - p
            g1 += f * d1
            g2 += d1
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            nA, nB = A + step * dA, B + step * dB
            nf = fun(nA, nB)
            if nf < fval + 0.0001 * step * gd:
                A, B, fval = nA, nB, nf
                break
            step /= 2.0
        if step < min_step:
            break
        it += 1
    return A, B, it


def sigmoid_predict(f, A, B):
    z = f * A + B
    if z >= 0:
        return math.exp(-z) / (1.0 + math.exp(-z))
    return 1.0 / (1 + math.exp(z))


def multiclass_probability(r):
    k = len(r)
    max_iter, eps = max(100, k), 0.005 / k
    p = [1.0 / k] * k
    Q = [[0.0] * k for _ in range(k)]
    for t in range(k):
        for j in range(t):
            Q[t][t] += r[j][t] * r[j][t]
            Q[t][j] = Q[j][t]
        for j in range(t + 1, k):
            Q[t][t] += r[j][t] * r[j][t]
            Q[t][j] = -r[j][t] * r[t][j]
    it = 0
    while it < max_iter:
        Qp = [sum(Q[t][j] * p[j] for j in range(k)) for t in range(k)]
        pQp = sum(p[t] * Qp[t] for t in range(k))
        if max(abs(Qp[t] - pQp) for t in range(k)) < eps:
            break
        for t in range(k):
            diff = (-Qp[t] + pQp) / Q[t][t]
            p[t] += diff
            pQp = (pQp + diff * (diff * Q[t][t] + 2 * Qp[t])) / (1 + diff) / (1 + diff)
            for j in range(k):
                Qp[j] = (Qp[j] + diff * Q[t][j]) / (1 + diff)
                p[j] /= (1 + diff)
        it += 1
    return p, it


def main():
    rng = random.Random(35)
    sig = []

    def add(name, dec, y):
        A, B, it = sigmoid_train(dec, y)
        sig.append({"name": name, "dec": dec, "y": y, "A": A, "B": B, "iter": it,
                    "p": [sigmoid_predict(f, A, B) for f in dec]})

    add("hand", [-2.0, -1.0, -0.5, 0.3, 1.0, 2.5], [-1, -1, 1, -1, 1, 1])
    # Overlapping classes: f ~ N(±1, 1).
    y = [1 if rng.random() < 0.35 else -1 for _ in range(300)]
    add("overlap", [rng.gauss(1.0 if v > 0 else -1.0, 1.0) for v in y], y)
    # Nearly separable, large decision values.
    y = [1 if i % 3 else -1 for i in range(60)]
    add("separable", [(3 + rng.random()) * v for v in y], y)
    # One class only.
    add("one-class", [rng.gauss(0.5, 1) for _ in range(20)], [1] * 20)
    # Constant decision values (the Hessian is singular but for sigma).
    add("constant", [0.0] * 10, [1, -1, 1, 1, -1, 1, -1, 1, 1, 1])
    # The special decision values of a fold with one class (+-1).
    add("folds", [1, 1, 1, -1, -1, 0.5, -0.2, 1, -1, -1], [1, 1, -1, -1, -1, 1, -1, 1, -1, 1])

    coup = []

    def addc(name, r):
        p, it = multiclass_probability(r)
        coup.append({"name": name, "r": r, "p": p, "iter": it})

    def consistent(p):
        k = len(p)
        return [[0.0 if i == j else p[i] / (p[i] + p[j]) for j in range(k)] for i in range(k)]

    addc("uniform", [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])
    addc("consistent", consistent([0.6, 0.3, 0.1]))
    for k in (3, 4, 7):
        r = [[0.0] * k for _ in range(k)]
        for i in range(k):
            for j in range(i + 1, k):
                r[i][j] = min(max(rng.random(), 1e-7), 1 - 1e-7)
                r[j][i] = 1 - r[i][j]
        addc("random-%d" % k, r)
    print(json.dumps({"source": "transcribe_libsvm.py: LIBSVM 3.24 svm.cpp sigmoid_train, sigmoid_predict, multiclass_probability",
                      "sigmoid": sig, "couple": coup}, indent=1))


if __name__ == "__main__":
    main()
