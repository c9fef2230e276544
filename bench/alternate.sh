#!/usr/bin/env bash
# Time short commands by alternating runs: each round runs every command
# once, in order, and the minimum and median wall time of each are printed
# in ms (bash's fork and exec included, the same for every command). For
# runs of 0.1 s, where /usr/bin/time's hundredths are too coarse and a busy
# second makes one-off timings useless (git show 7e296e7:BENCHMARKS.md, "`train` on a1a").
#
#   bench/alternate.sh 30 "svm-train -c 1 -g 0.03125 a1a /tmp/m" \
#       "kerneltune train a1a --normalize none -g 0.03125 -c 1 -q"
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/alternate.sh ROUNDS CMD [CMD ...]" >&2; exit 2; }
rounds=$1
shift
declare -a ts
for _ in $(seq "$rounds"); do
  k=0
  for c in "$@"; do
    s=$(date +%s%N)
    eval "$c" >/dev/null 2>&1 || true
    e=$(date +%s%N)
    ts[k]+="$(((e - s) / 100000)) "
    k=$((k + 1))
  done
done
k=0
for c in "$@"; do
  echo "${ts[k]}" | tr ' ' '\n' | grep . | sort -n |
    awk -v c="$c" '{a[NR]=$1} END {printf "min %.1f ms  med %.1f ms  %s\n", a[1]/10, a[int((NR+1)/2)]/10, c}'
  k=$((k + 1))
done
