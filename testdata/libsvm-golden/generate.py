#!/usr/bin/env python3
"""Make golden.json from LIBSVM's svm-train / svm-predict (run once, by hand).

Usage: python3 testdata/libsvm-golden/generate.py [multiclass]
(from the repository root; "multiclass" makes only golden-multiclass.json;
needs svm-train and svm-predict on PATH, e.g. Debian's libsvm-tools 3.24).

It also makes golden-multiclass.json: LIBSVM's one-vs-one runs on the
multi-class sets of testdata/multiclass (MULTI below): per pair, in
svm-train's order (0,1), (0,2), ..., (1,2), ..., its #iter, obj, rho, nSV and
nBSV as printed, the total nSV, and svm-predict's labels on the training file
and, where there is one, the test file, with the accuracies it printed.

Only numbers and command lines are stored, never LIBSVM itself. Per run: the
exact svm-train command, what it printed (#iter, obj, rho, nSV, nBSV), the
model's rho at full precision, its label order, the support vectors as
0-based row indices of the data file with their coefficients y_i*alpha_i
(%.17g in the model file), and svm-predict's labels on the training file.

SV rows are matched back to data rows by value (the model prints features
with %.8g, the data has at most 6 decimals), class by class and in order,
since svm-train groups the rows by class and keeps their order within a class.
"""
import json, os, re, subprocess, sys, tempfile

FILES = ["heart_scale", "breast-cancer_scale", "diabetes_scale", "a1a"]
CS = ["0.5", "1", "8", "64"]
GAMMAS = ["0.03125", "0.125", "0.5"]  # 2^-5, 2^-3, 2^-1: exact in float32
EPS = "1e-5"
# a1a (1,605 sparse binary rows) is the case of bench/libsvm.sh and of the
# kernel's sparse route: only its bench settings, to keep the test short.
SPARSE = {"a1a": [("1", "0.03125"), ("16", "0.03125")]}
# Hard margin: C = 2^20 on data that RBF separates; no α reaches C (checked:
# nBSV = 0), so this C-SVC solution is the hard-margin solution.
HARD_C = "1048576"
HARD = [("heart_scale", "0.5"), ("heart_scale", "2"), ("breast-cancer_scale", "0.5"),
        ("breast-cancer_scale", "2"), ("diabetes_scale", "2")]
# Per-class weights (C_+ = C·w1, C_- = C·w-1): a few extra runs.
WEIGHTED = [("heart_scale", "1", "0.125", "2", "1"), ("breast-cancer_scale", "8", "0.125", "1", "0.5"),
            ("diabetes_scale", "2", "0.5", "0.5", "2")]


def parse_row(fields):
    d = {}
    for f in fields:
        k, v = f.split(":")
        v = float(v)
        if v != 0:
            d[int(k)] = v
    return d


def same(a, b):
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-7 for k in a)


# Multi-class sets (one-vs-one): file, test file or None, and (C, gamma) runs.
MULTI = [("iris.scale", None, [("1", "0.5"), ("8", "0.125"), ("64", "2")]),
         ("wine.scale", None, [("1", "0.5"), ("8", "0.03125")]),
         ("svmguide2", None, [("1", "0.5"), ("64", "2"), ("1024", "8")]),
         ("dna.scale", "dna.scale.t", [("1", "0.03125"), ("8", "0.0078125")])]


def multiclass(tmp):
    runs = []
    for name, test, settings in MULTI:
        path = os.path.join("testdata", "multiclass", name)
        for c, g in settings:
            model = os.path.join(tmp, "model")
            pred = os.path.join(tmp, "pred")
            cmd = ["svm-train", "-s", "0", "-t", "2", "-c", c, "-g", g, "-e", EPS, path, model]
            so = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            pairs = []
            for m in re.finditer(r"#iter = (\d+)\n.*\nobj = (\S+), rho = (\S+)\nnSV = (\d+), nBSV = (\d+)", so):
                pairs.append({"iter": int(m.group(1)), "obj": float(m.group(2)), "rho": float(m.group(3)),
                              "nsv": int(m.group(4)), "nbsv": int(m.group(5))})
            total = int(re.search(r"Total nSV = (\d+)", so).group(1))
            hdr = {}
            for line in open(model):
                if line.startswith("SV"):
                    break
                parts = line.split()
                hdr[parts[0]] = parts[1:]
            run = {"file": name, "C": float(c), "gamma": float(g), "eps": float(EPS),
                   "cmd": " ".join(cmd[:-2] + ["testdata/multiclass/" + name, "model"]),
                   "labels": hdr["label"], "pairs": pairs, "total_sv": total}
            for key, f in (("train", name), ("test", test)):
                if f is None:
                    continue
                fp = os.path.join("testdata", "multiclass", f)
                po = subprocess.run(["svm-predict", fp, model, pred], capture_output=True, text=True, check=True).stdout
                acc = re.search(r"\((\d+)/(\d+)\)", po)
                run[key + "_file"] = f
                run[key + "_pred"] = "".join(open(pred).read().split())  # one digit per row
                run[key + "_correct"] = int(acc.group(1))
            runs.append(run)
            print(name, c, g, total, run.get("train_correct"), run.get("test_correct"), file=sys.stderr)
    with open(os.path.join("testdata", "libsvm-golden", "golden-multiclass.json"), "w") as f:
        f.write('{"runs": [\n')
        f.write(",\n".join(json.dumps(r) for r in runs))
        f.write("\n]}\n")


def main():
    if sys.argv[1:] == ["multiclass"]:
        multiclass(tempfile.mkdtemp())
        return
    data_dir = os.path.join("testdata", "libsvm")
    out = {"libsvm": subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}", "libsvm-tools"],
                                     capture_output=True, text=True).stdout or "unknown",
           "runs": []}
    tmp = tempfile.mkdtemp()
    for name in FILES:
        path = os.path.join(data_dir, name)
        rows, labels = [], []
        for line in open(path):
            f = line.split()
            if not f:
                continue
            labels.append(1 if float(f[0]) > 0 else -1)
            rows.append(parse_row(f[1:]))
        runs = [(c, g, "1", "1") for c in CS for g in GAMMAS]
        if name in SPARSE:
            runs = [(c, g, "1", "1") for (c, g) in SPARSE[name]]
        runs += [(c, g, wp, wn) for (f, c, g, wp, wn) in WEIGHTED if f == name]
        runs += [(HARD_C, g, "1", "1") for (f, g) in HARD if f == name]
        for c, g, wp, wn in runs:
            if True:
                model = os.path.join(tmp, "model")
                pred = os.path.join(tmp, "pred")
                cmd = ["svm-train", "-s", "0", "-t", "2", "-c", c, "-g", g, "-e", EPS]
                if (wp, wn) != ("1", "1"):
                    cmd += ["-w1", wp, "-w-1", wn]
                cmd += [path, model]
                so = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                it = int(re.search(r"#iter = (\d+)", so).group(1))
                m = re.search(r"obj = (\S+), rho = (\S+)", so)
                obj, rho_printed = float(m.group(1)), float(m.group(2))
                m = re.search(r"nSV = (\d+), nBSV = (\d+)", so)
                nsv, nbsv = int(m.group(1)), int(m.group(2))
                margin = "hard" if c == HARD_C else "l1"
                if margin == "hard" and nbsv != 0:
                    sys.exit("%s: %d bounded SVs at C = %s: not the hard margin" % (name, nbsv, c))
                lines = open(model).read().splitlines()
                hdr = {}
                k = 0
                while lines[k] != "SV":
                    parts = lines[k].split()
                    hdr[parts[0]] = parts[1:]
                    k += 1
                sv_lines = lines[k + 1:]
                order = [int(x) for x in hdr["label"]]
                counts = [int(x) for x in hdr["nr_sv"]]
                svs, coefs = [], []
                pos = 0
                for lab, cnt in zip(order, counts):
                    cand = [i for i, l in enumerate(labels) if l == lab]
                    ci = 0
                    for s in sv_lines[pos:pos + cnt]:
                        f = s.split()
                        x = parse_row(f[1:])
                        while not same(rows[cand[ci]], x):
                            ci += 1  # IndexError here means a failed match
                        svs.append(cand[ci])
                        coefs.append(f[0])
                        ci += 1
                    pos += cnt
                subprocess.run(["svm-predict", path, model, pred], capture_output=True, check=True)
                preds = "".join("+" if float(l) > 0 else "-" for l in open(pred).read().split())
                out["runs"].append({
                    "file": name, "margin": margin, "C": float(c), "gamma": float(g), "eps": float(EPS),
                    "wpos": float(wp), "wneg": float(wn),
                    "cmd": " ".join(cmd[:-2] + ["testdata/libsvm/" + name, "model"]),
                    "iter": it, "obj": obj, "rho_printed": rho_printed,
                    "rho": float(hdr["rho"][0]), "labels": order, "nsv": nsv, "nbsv": nbsv,
                    "sv": svs, "coef": [float(x) for x in coefs], "pred": preds,
                })
                print(name, c, g, it, obj, nsv, nbsv, file=sys.stderr)
    with open(os.path.join("testdata", "libsvm-golden", "golden.json"), "w") as f:
        # One run per line: diffable, and small enough to read.
        f.write('{"libsvm": %s, "runs": [\n' % json.dumps(out["libsvm"]))
        f.write(",\n".join(json.dumps(r) for r in out["runs"]))
        f.write("\n]}\n")
    multiclass(tmp)


if __name__ == "__main__":
    main()
