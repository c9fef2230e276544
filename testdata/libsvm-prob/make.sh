#!/usr/bin/env bash
# Writes golden.json, LIBSVM's probability estimates (svm-train -b 1,
# svm-predict -b 1 of Debian's libsvm-tools 3.24) on a binary and two
# multi-class sets, with the cross-validated decision values svm-train fitted
# its sigmoids to (reconstruct.py replays its unseeded rand() and checks the
# replay against svm-train's own probA/probB). pkg/model's
# TestProbabilityLIBSVM reads it. Run from anywhere:
#   testdata/libsvm-prob/make.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
svm-train 2>&1 | head -1 >/dev/null || true
{
	echo '{"libsvm": "svm-train/svm-predict 3.24 (Debian libsvm-tools 3.24+ds-6)", "sets": ['
	python3 "$here/reconstruct.py" heart "$root/testdata/libsvm/heart_scale" 1 0.1 1e-5 "$tmp"
	echo ','
	python3 "$here/reconstruct.py" iris "$root/testdata/multiclass/iris.scale" 1 0.5 1e-5 "$tmp"
	echo ','
	python3 "$here/reconstruct.py" wine "$root/testdata/multiclass/wine.scale" 1 0.1 1e-5 "$tmp"
	echo ']}'
} >"$here/golden.json.tmp"
python3 -m json.tool "$here/golden.json.tmp" >"$here/golden.json"
rm "$here/golden.json.tmp"
echo "wrote $here/golden.json"
