#!/usr/bin/python3
# The evidence behind the memorising rule's thresholds (docs/protocol.md,
# "Memorising models"; pkg/experiment/memorising.go): for each candidate
# (SV share S, gap G, error ratio R), the runs it flags and their mean test
# accuracy minus svm's on the same partition, against the runs it does not.
#   python3 bench/memorising/evidence.py testdata/latex/default-3.jsonl \
#     testdata/crossdata/run.jsonl bench/memorising/half-small.jsonl bench/memorising/half-a1a.jsonl
# half-small.jsonl and half-a1a.jsonl were written (2026-12-07) by
#   kerneltune compare ../shared/data/libsvm/heart_scale ../shared/data/libsvm/breast-cancer_scale \
#     ../shared/data/libsvm/diabetes_scale ../shared/data/uci/bupa.data --train-fraction 0.5 --partitions 3 --out half-small.jsonl
#   kerneltune compare ../shared/data/libsvm/a1a --methods svm,rcsc,twolevel,spd --train-fraction 0.5 --partitions 2 --out half-a1a.jsonl
# and given "schema_version":1 once (their pre-release settings and identity
# dropped; every number kept: this script's output is unchanged).
import collections
import json
import sys

recs = []
for f in sys.argv[1:]:
    for line in open(f):
        r = json.loads(line)
        if r["status"] != "failure":
            r["file"] = f
            recs.append(r)
svm = {(r["file"], r["dataset"], r["partition"]): r["test_accuracy"] for r in recs if r["entry"] == "svm"}


def held_out(r):
    if r.get("learned_on_rows"):  # learned on a subset: its CV is of another model
        return r["test_accuracy"], "test"
    figs = {x["name"]: x["value"] for x in r.get("figures") or []}
    if "cv_accuracy" in figs:
        return figs["cv_accuracy"], "cv"
    if "e_end (validation %)" in figs:
        return 1 - figs["e_end (validation %)"] / 100, "validation"
    if (r.get("criterion") or "").endswith("CV accuracy"):
        return r["criterion_end"], "cv"
    return r["test_accuracy"], "test"


def flagged(r, S, G, R):
    share, train = r["nsv"] / r["train_size"], r["train_accuracy"]
    h, _ = held_out(r)
    return share > S and train - h >= G - 1e-12 and 1 - train <= R * (1 - h) + 1e-12


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


print(f"{len(recs)} runs, {len(svm)} of them svm's")
for S, G, R in [(0.5, 0.02, 0.25), (0.5, 0.02, 0.5), (0.5, 0.0, 1.0), (0.3, 0.02, 0.25), (0.7, 0.02, 0.25), (0.5, 0.05, 0.25)]:
    d = collections.defaultdict(list)
    for r in recs:
        k = (r["file"], r["dataset"], r["partition"])
        if k in svm and r["entry"] != "svm":
            d[flagged(r, S, G, R)].append(r["test_accuracy"] - svm[k])
    per = collections.Counter(r["entry"] for r in recs if flagged(r, S, G, R))
    print(f"S={S} G={G} R={R}: flagged {len(d[True])} of the other methods' runs, test - svm {100 * mean(d[True]):+.2f} points; "
          f"not flagged {len(d[False])}, {100 * mean(d[False]):+.2f}; flagged by method {dict(sorted(per.items()))}")
