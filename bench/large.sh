#!/usr/bin/env bash
# Issues 32 and 33: every method (and `train`, beside svm-train) at tens of
# thousands of rows, whole process, on 2 cores. For each size N of NS it
# draws the Adult-like set of `kerneltune generate sparse --n N --test-n
# 16281` (123 binary features; the test rows from the same distribution)
# and prints, per method: wall and CPU seconds, the peak resident memory
# (/usr/bin/time's max RSS), the memory estimate (`tune --mem-mb 1` refuses
# with it), the test accuracy, C and γ (svm) and the rows the kernel was
# learned on. Run from anywhere, on an idle machine:
#
#   bench/large.sh                                   # NS="8000 16000 32561", every method
#   NS=32561 METHODS="svm random" bench/large.sh
#   FILES="../shared/data/large/w8a:../shared/data/large/w8a.t" METHODS=train bench/large.sh
#   KEEP=/tmp/large bench/large.sh                   # keep data, JSON and logs there
#   PROFILE=1 NS=32561 METHODS=svm bench/large.sh    # and a CPU profile per run (top 12 printed)
#
# METHODS may hold "train" (C = 1, γ = 2⁻⁵, --normalize none, beside
# svm-train -c 1 -g 0.03125 -m 200 on the same file: LIBSVM's libsvm-tools
# package) and any tune method. Each run is stopped after LIMIT seconds
# (default 1800). Ends with the growth exponents (log time / log n between
# the first and last size) when NS has more than one size.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
NS=${NS:-8000 16000 32561}
METHODS=${METHODS:-train svm random halving bo spd gi lccp rcsc twolevel}
LIMIT=${LIMIT:-1800}
EXTRA=${EXTRA:-}
FILES=${FILES:-}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench/large.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
if [ -n "${KEEP:-}" ]; then tmp=$KEEP; mkdir -p "$tmp"; else tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; fi
(cd "$root" && go build -o "$tmp/kerneltune" .)
kt=$tmp/kerneltune

sets=()
if [ -n "$FILES" ]; then
  sets=($FILES)
else
  for n in $NS; do
    f=$tmp/adult-$n
    [ -s "$f" ] || "$kt" generate sparse --n "$n" --test-n 16281 --format libsvm -o "$f" --test-output "$f.t" -q
    sets+=("$f:$f.t")
  done
fi

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$3" 2>/dev/null || echo -; }
printf "%-14s %-9s | %8s %8s %7s %7s | %7s %9s %9s %7s | %s\n" data method wall-s cpu-s rss-MB est-MB test-% C gamma learn load
results=$tmp/results.tsv
: >"$results"
for set in "${sets[@]}"; do
  train=${set%%:*} test=${set#*:}
  name=$(basename "$train")
  n=$(grep -c . "$train")
  for m in $METHODS; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    out=$tmp/$name.$m.json err=$tmp/$name.$m.err tm=$tmp/$name.$m.time
    if [ "$m" = train ]; then
      args=(train "$train" --test "$test" -c 1 -g 0.03125 --normalize none --format json -q)
      est=-
    else
      args=(tune "$train" --test "$test" --method "$m" --format json -q $EXTRA)
      est=$("$kt" tune "$train" --method "$m" --mem-mb 1 -q $EXTRA 2>&1 | sed -n 's/.*needs about \([0-9]*\) MB.*/\1/p' || true)
    fi
    prof=
    [ -n "${PROFILE:-}" ] && prof=$tmp/$name.$m.prof
    set +e
    KERNELTUNE_CPUPROFILE=$prof $TIME -f "%e %U %S %M" -o "$tm" timeout "$LIMIT" "$kt" "${args[@]}" >"$out" 2>"$err"
    rc=$?
    set -e
    read -r ew eu es em < <(tail -1 "$tm")
    cpu=$(awk -v u="$eu" -v s="$es" 'BEGIN { printf "%.1f", u + s }')
    acc=- C=- g=- learn=-
    if [ $rc -eq 0 ]; then
      acc=$(json x "round(100*(d.get('test_accuracy') or d.get('accuracies',{}).get('test')),2)" "$out")
      C=$(json x "'%g' % d['C']" "$out")
      g=$(json x "'%g' % (d.get('gamma') or 0)" "$out")
      learn=$(json x "d.get('learned_on_rows') or $n" "$out")
    else
      acc="exit$rc"
    fi
    printf "%-14s %-9s | %8.1f %8s %7d %7s | %7s %9s %9s %7s | %s\n" "$name" "$m" "$ew" "$cpu" $((em / 1024)) "$est" "$acc" "$C" "$g" "$learn" "$load"
    printf "%s\t%s\t%s\t%s\t%s\n" "$name" "$n" "$m" "$ew" $((em / 1024)) >>"$results"
    if [ -n "$prof" ] && [ -s "$prof" ]; then
      go tool pprof -top -nodecount 12 "$kt" "$prof" 2>/dev/null | sed -n '6,18p' | sed 's/^/    /'
    fi
    if [ "$m" = train ] && command -v svm-train >/dev/null; then
      $TIME -f "%e %U %S %M" -o "$tm.libsvm" svm-train -c 1 -g 0.03125 -m 200 "$train" "$tmp/$name.model" >/dev/null
      read -r lw lu ls lm < <(tail -1 "$tm.libsvm")
      $TIME -f "%e %U %S %M" -o "$tm.pred" svm-predict "$test" "$tmp/$name.model" "$tmp/$name.pred" >"$tmp/$name.pred.out"
      read -r pw pu ps pm < <(tail -1 "$tm.pred")
      lacc=$(sed -n 's/Accuracy = \([0-9.]*\)%.*/\1/p' "$tmp/$name.pred.out")
      printf "%-14s %-9s | %8.1f %8s %7d %7s | %7s %9s %9s %7s | predict %.1f s\n" "$name" svm-train "$lw" \
        "$(awk -v u="$lu" -v s="$ls" 'BEGIN { printf "%.1f", u + s }')" $((lm / 1024)) - "$lacc" 1 0.03125 "$n" "$pw"
    fi
  done
done

# Growth exponents: log(time_last / time_first) / log(n_last / n_first).
awk -F'\t' '{ key = $3; if (!(key in n0)) { n0[key] = $2; t0[key] = $4; m0[key] = $5 } n1[key] = $2; t1[key] = $4; m1[key] = $5 }
  END { for (k in n0) if (n1[k] > n0[k] && t0[k] > 0 && t1[k] > 0)
    printf "%-9s time ~ n^%.2f, memory ~ n^%.2f (%d → %d rows)\n", k, log(t1[k] / t0[k]) / log(n1[k] / n0[k]), log(m1[k] / m0[k]) / log(n1[k] / n0[k]), n0[k], n1[k] }' "$results" | sort
