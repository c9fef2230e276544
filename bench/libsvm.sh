#!/usr/bin/env bash
# Time kerneltune's SMO against LIBSVM's svm-train on the same files with the
# same C-SVC problem: Gaussian kernel with the same γ and C, the same eps, cache
# size (MB) and shrinking. Called by `make bench-libsvm`; run from anywhere.
#
#   bench/libsvm.sh            # 3 alternating repetitions per case, min taken
#   REPS=5 EPS=1e-3 CACHE=200 bench/libsvm.sh
#
# Both sides are timed as whole processes (read the file, train, and for
# svm-train write the model), by /usr/bin/time: wall seconds and CPU seconds
# (user+sys). On a busy machine the CPU ratio is the steadier number. The
# kerneltune side is bench/svmbench (the solver package through kernel.Rows),
# so the comparison does not depend on the train command.
#
# The train columns time the command a user runs, `kerneltune train FILE
# --normalize none -g G -c C --eps E --cache-mb M` (file parse, the solve,
# the final model with its ‖w‖, train accuracy), against the same svm-train
# run: --normalize none because train z-scores the features by default, and
# svm-train trains on the file as it is, so only then is it the same problem
# (the bench checks that train reports svm-train's #iter and objective up to
# the float32 rounding, as svmbench does). TRAIN=0 skips them.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-3}
EPS=${EPS:-1e-3}
CACHE=${CACHE:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

TRAIN=${TRAIN:-1}
(cd "$root" && go build -o "$tmp/svmbench" ./bench/svmbench)
[ "$TRAIN" = 1 ] && (cd "$root" && go build -o "$tmp/kerneltune" .)
"$tmp/svmbench" gen -n 5000 -d 20 -seed 1 -o "$tmp/mixture-5000x20"
"$tmp/svmbench" gen -n 2000 -d 50 -seed 2 -o "$tmp/mixture-2000x50"
cp "$root/testdata/libsvm/a1a" "$tmp/a1a"

# file C gamma (powers of two: Debian's svm-train reads -c and -g as float32)
cases=(
  "mixture-5000x20 1 0.0625"
  "mixture-5000x20 16 0.0625"
  "mixture-2000x50 1 0.015625"
  "mixture-2000x50 16 0.015625"
  "a1a 1 0.03125"
  "a1a 16 0.03125"
)

have_libsvm=1
command -v svm-train >/dev/null || have_libsvm=0
[ "$have_libsvm" = 1 ] || echo "svm-train not found (apt-get install libsvm-tools): timing kerneltune only"
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench/libsvm.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

printf "%-16s %3s %9s | %7s %7s | %7s %7s %6s | %7s %7s %6s | %7s %6s %7s %6s | %s\n" \
  file C gamma kt-iter lib-iter kt-wall lib-wall wall× kt-cpu lib-cpu cpu× tr-wall tr× tr-cpu trcpu× "obj kerneltune / LIBSVM (train's iter, obj)"
for c in "${cases[@]}"; do
  set -- $c
  f=$1 C=$2 g=$3
  kw= kc= lw= lc= kobj= lobj= kit= lit= tw= tc= tobj=- tit=-
  for _ in $(seq "$REPS"); do
    if [ "$TRAIN" = 1 ]; then
      $TIME -f "%e %U %S" -o "$tmp/t" "$tmp/kerneltune" train "$tmp/$f" --normalize none -g "$g" -c "$C" \
        --eps "$EPS" --cache-mb "$CACHE" --format json -q >"$tmp/out"
      read -r w u s <"$tmp/t"
      tw=$(min "$tw" "$w"); tc=$(min "$tc" "$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')")
      tobj=$(sed -n 's/.*"obj": \([^,]*\),.*/\1/p' "$tmp/out"); tit=$(sed -n 's/.*"iterations": \([0-9]*\).*/\1/p' "$tmp/out")
    fi
    $TIME -f "%e %U %S" -o "$tmp/t" "$tmp/svmbench" train -c "$C" -g "$g" -e "$EPS" -m "$CACHE" "$tmp/$f" >"$tmp/out"
    read -r w u s <"$tmp/t"
    kw=$(min "$kw" "$w"); kc=$(min "$kc" "$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')")
    kobj=$(sed -n 's/.*obj \([^ ]*\).*/\1/p' "$tmp/out"); kit=$(sed -n 's/.*#iter \([0-9]*\).*/\1/p' "$tmp/out")
    if [ "$have_libsvm" = 1 ]; then
      $TIME -f "%e %U %S" -o "$tmp/t" svm-train -s 0 -t 2 -c "$C" -g "$g" -e "$EPS" -m "$CACHE" "$tmp/$f" "$tmp/model" >"$tmp/out"
      read -r w u s <"$tmp/t"
      lw=$(min "$lw" "$w"); lc=$(min "$lc" "$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')")
      lobj=$(sed -n 's/^obj = \([^,]*\),.*/\1/p' "$tmp/out"); lit=$(sed -n 's/.*#iter = \([0-9]*\).*/\1/p' "$tmp/out")
    fi
  done
  trw=- trc=-
  if [ "$have_libsvm" = 1 ]; then
    rw=$(awk -v a="$kw" -v b="$lw" 'BEGIN{printf "%.2f", a/b}')
    rc=$(awk -v a="$kc" -v b="$lc" 'BEGIN{printf "%.2f", a/b}')
    if [ "$TRAIN" = 1 ]; then
      trw=$(awk -v a="$tw" -v b="$lw" 'BEGIN{printf "%.2f", a/b}')
      trc=$(awk -v a="$tc" -v b="$lc" 'BEGIN{printf "%.2f", a/b}')
    fi
  else
    rw=- rc=- lw=- lc=- lit=- lobj=-
  fi
  [ "$TRAIN" = 1 ] || tw=- tc=-
  printf "%-16s %3s %9s | %7s %7s | %7s %7s %6s | %7s %7s %6s | %7s %6s %7s %6s | %s / %s (%s, %s)\n" \
    "$f" "$C" "$g" "$kit" "$lit" "$kw" "$lw" "$rw" "$kc" "$lc" "$rc" "$tw" "$trw" "$tc" "$trc" "$kobj" "$lobj" "$tit" "$tobj"
done
echo "eps $EPS, cache $CACHE MB, shrinking on, best of $REPS; ×: kerneltune / LIBSVM (< 1 is faster);"
echo "kt: bench/svmbench (the solver); tr: kerneltune train --normalize none (the whole command)"
