#!/usr/bin/env bash
# The grid baseline against scikit-learn (issue 26): CPU seconds of
# GridSearchCV(SVC(kernel='rbf'), grid.py's grid, cv=5, n_jobs=1) on the 30
# partitions of 100 training rows of heart that `kerneltune compare` draws
# (bench/partitions writes them, z-scored on each training part as compare
# does; bench/sklearn_grid.py searches them), against
#
#   kerneltune compare builtin:heart --methods svm --workers 1 -q
#
# the same grid search by kerneltune on the same partitions, each followed,
# as GridSearchCV's refit, by the final fit and its test accuracy. kerneltune
# is timed as a whole process (start, reading, tables included); sklearn's
# time is its searches alone (time.process_time around fit and score; the
# Python start and imports, about a second, left out), so the ratio
# favours sklearn. Run from anywhere:
#
#   bench/sklearn.sh                      # best of 3 CPU times of each
#   REPS=5 bench/sklearn.sh
#   BASE=/tmp/kerneltune-main bench/sklearn.sh   # also time another build
#
# Needs Debian's scikit-learn for /usr/bin/python3 (apt-get install -y
# python3-sklearn; PYTHON=... for another interpreter) and /usr/bin/time.
# On a busy machine read CPU time, not wall; the runs alternate, so both
# sides see the same load.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-3}
BASE=${BASE:-}
PYTHON=${PYTHON:-/usr/bin/python3}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench/sklearn.sh: needs /usr/bin/time (apt-get install -y time)" >&2; exit 1; }
if ! "$PYTHON" -c 'import sklearn' 2>/dev/null; then
  echo "bench/sklearn.sh: $PYTHON cannot import sklearn; install Debian's: apt-get install -y python3-sklearn (or set PYTHON)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$root" && go build -o "$tmp/kerneltune" . && go build -o "$tmp/partitions" ./bench/partitions)
"$tmp/partitions" -data builtin:heart -k 30 -train 100 -test 100 -seed 1 > "$tmp/parts.csv"
bins=("$tmp/kerneltune")
[ -n "$BASE" ] && bins+=("$BASE")

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
cpu() { awk '{ printf "%.2f", $2 + $3 }' "$1"; }

declare -A best
for r in $(seq "$REPS"); do
  "$PYTHON" "$root/bench/sklearn_grid.py" "$tmp/parts.csv" > "$tmp/sk.out"
  s=$(sed -n 's/^cpu-s //p' "$tmp/sk.out")
  best[sklearn]=$(min "${best[sklearn]:-}" "$s")
  for b in "${bins[@]}"; do
    "$TIME" -f '%e %U %S' -o "$tmp/t" "$b" compare builtin:heart --methods svm --workers 1 -q > "$tmp/kt.out"
    best[$b]=$(min "${best[$b]:-}" "$(cpu "$tmp/t")")
    echo "round $r: sklearn $s s, $b $(cpu "$tmp/t") s CPU ($(cut -d' ' -f1 "$tmp/t") s wall)" >&2
  done
done
grep -A4 '^│ svm' "$tmp/kt.out" | head -1 || true
printf "%-40s %10s %8s\n" "best of $REPS" "CPU s" "ratio"
printf "%-40s %10.2f %8s\n" "sklearn GridSearchCV (searches only)" "${best[sklearn]}" "1"
for b in "${bins[@]}"; do
  label="kerneltune (this tree)"; [ "$b" = "$tmp/kerneltune" ] || label="kerneltune ($b)"
  printf "%-40s %10.2f %7.3f×\n" "$label" "${best[$b]}" "$(awk -v a="${best[$b]}" -v b="${best[sklearn]}" 'BEGIN { print a / b }')"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
