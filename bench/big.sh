#!/usr/bin/env bash
# Time `kerneltune tune DATA --method M` on issue 11's large set: the
# two-Gaussian mixture of bench/svmbench (d = 20) at N rows (default 20,000),
# whole process, each run stopped after LIMIT seconds (default 1800: the
# issue's 30 minutes). Prints wall and CPU seconds, the peak RSS, how the run
# ended (done, timeout, refused: exit 2 before any work) and, from --trace,
# the iterations and the mean time of an iteration after the first. Run from
# anywhere, on an idle machine (the load average is printed first):
#
#   bench/big.sh                                   # every method, n = 20,000
#   METHODS="svm rcsc" bench/big.sh
#   N=20000 METHODS="spd gi" EXTRA="--mem-mb -1 --max-iter 2" bench/big.sh   # per-iteration time only
#   KEEP=/tmp/big bench/big.sh                     # keep the data, traces and JSON there
#
# One method at a time (each uses both cores). With every method and the
# default limit this takes up to three hours.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-20000}
METHODS=${METHODS:-svm spd gi lccp rcsc twolevel}
LIMIT=${LIMIT:-1800}
EXTRA=${EXTRA:-}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench/big.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
if [ -n "${KEEP:-}" ]; then
  tmp=$KEEP
  mkdir -p "$tmp"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi

(cd "$root" && go build -o "$tmp/kerneltune" . && go build -o "$tmp/svmbench" ./bench/svmbench)
data="$tmp/mixture-$N"
[ -s "$data" ] || "$tmp/svmbench" gen -n "$N" -d 20 -seed 3 -o "$data"

printf "%-6s %-9s | %8s %8s %8s | %-8s | %5s %8s | %s\n" n method wall-s cpu-s rss-MB end iter s/iter load
for m in $METHODS; do
  load=$(cut -d' ' -f1 /proc/loadavg)
  trace="$tmp/$m.trace.csv" out="$tmp/$m.json" err="$tmp/$m.err"
  rm -f "$trace"
  set +e
  # shellcheck disable=SC2086
  $TIME -f "%e %U %S %M" -o "$tmp/$m.time" timeout "$LIMIT" "$tmp/kerneltune" tune "$data" --method "$m" \
    --format json --trace "$trace" -q $EXTRA >"$out" 2>"$err"
  rc=$?
  set -e
  read -r ew eu es em < <(tail -1 "$tmp/$m.time")
  case $rc in
  0) end=done ;;
  124) end=timeout ;;
  2) end=refused ;;
  *) end="exit$rc" ;;
  esac
  iter=- per=-
  if [ -s "$trace" ]; then
    iter=$(tail -1 "$trace" | cut -d, -f1)
    per=$(awk -F, 'NR > 1 && $1 >= 1 { if (!n++) { i0 = $1; t0 = $5 } i1 = $1; t1 = $5 }
      END { if (i1 > i0) printf "%.1f", (t1 - t0) / (i1 - i0); else print "-" }' "$trace")
  fi
  printf "%-6s %-9s | %8s %8s %8s | %-8s | %5s %8s | %s\n" "$N" "$m" "$ew" \
    "$(awk -v u="$eu" -v s="$es" 'BEGIN{print u+s}')" "$(awk -v k="$em" 'BEGIN{printf "%.0f", k/1024}')" \
    "$end" "$iter" "$per" "$load"
  [ "$end" = refused ] && sed -n '1,2s/^/         /p' "$err"
done
echo "wall and CPU (user+sys) seconds and peak RSS of the whole tune process; LIMIT=$LIMIT s per run"
