#!/usr/bin/env bash
# Parallel scaling of a comparison (issue 26): runs the study
# bench/scaling.yaml (every default method, 30 partitions, on heart,
# breast-wisconsin, diabetes and bupa: 720 jobs) with --workers 1, 2, 4, 8
# (those not above `nproc`; WORKERS="1 2" to choose), and prints for each
# the wall and CPU seconds, the speed-up of wall time over --workers 1 and
# the idle cores (workers - CPU/wall: the cores the run held but did not
# use, on average). Then, from the per-job times of the --workers 1 run
# (bench/makespan), the speed-up the schedule itself allows on 1..16 cores
# (sum of job times / makespan of the pool) with the jobs in the plan's
# order, in compare's (longest expected first, experiment.JobCost) and
# longest first by the measured times, and the bound sum / max(sum/W,
# longest job). Where the measured speed-up falls short of the schedule's,
# the cores are what limits it (memory bandwidth, SMT siblings, a shared
# machine), plus the serial start and tables (wall of --workers 1 minus
# the sum of its job times).
# Run from anywhere:
#
#   bench/scaling.sh
#   WORKERS="1 2" bench/scaling.sh
#   KT=/tmp/kerneltune-main bench/scaling.sh    # time another build
#   STUDY=testdata/study/uci-eight.yaml bench/scaling.sh   # another study
#
# The records are written to a temporary directory (OUT=DIR keeps them).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench/scaling.sh: needs /usr/bin/time (apt-get install -y time)" >&2; exit 1; }
cores=$(nproc)
WORKERS=${WORKERS:-$(for w in 1 2 4 8; do [ "$w" -le "$cores" ] && echo "$w"; done)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OUT=${OUT:-$tmp}
STUDY=$(realpath "${STUDY:-$root/bench/scaling.yaml}")
mkdir -p "$OUT"
(cd "$root" && go build -o "$tmp/makespan" ./bench/makespan)
KT=${KT:-}
if [ -z "$KT" ]; then
  (cd "$root" && go build -o "$tmp/kerneltune" .)
  KT=$tmp/kerneltune
fi

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); study $STUDY"
printf "%7s | %8s %8s | %8s | %10s\n" workers wall-s cpu-s speed-up idle-cores
wall1=
for w in $WORKERS; do
  rm -f "$OUT/w$w.jsonl"
  "$TIME" -f '%e %U %S' -o "$tmp/t" "$KT" compare --study "$STUDY" \
    --workers "$w" -o "$OUT/w$w.jsonl" -q > "$OUT/w$w.txt"
  read -r wall user sys < "$tmp/t"
  [ -n "$wall1" ] || wall1=$wall
  awk -v w="$w" -v wall="$wall" -v u="$user" -v s="$sys" -v w1="$wall1" \
    'BEGIN { printf "%7d | %8.2f %8.2f | %7.2f× | %10.2f\n", w, wall, u + s, w1 / wall, w - (u + s) / wall }'
done
first=$(set -- $WORKERS; echo "$1")
echo
echo "the schedule's own limit, from the per-job times of --workers $first:"
"$tmp/makespan" -w 1,2,4,8,16 "$OUT/w$first.jsonl" | tee "$tmp/ms"
sed -n 's/.*sum of job times \([0-9.]*\) s.*/\1/p' "$tmp/ms" |
  awk -v w1="$wall1" '{ printf "outside the jobs (start, reading, tables) with --workers %s: %.2f s of %.2f s wall\n", "'"$first"'", w1 - $1, w1 }'
