#!/bin/bash
# Interrupts a tune at several steps and resumes it, and checks that the
# model is the uninterrupted tune's (docs/long-runs.md, "A tune that
# resumes"). Usage:
#   CUTS="INT@9 KILL@25 TERM@40" scripts/tune-resume-evidence.sh KERNELTUNE DATA TUNE-FLAGS...
# Each CUTS entry is SIGNAL@STEPS: a run is sent SIGNAL once its checkpoint
# holds STEPS steps; every run after the first has --resume. It prints the
# CPU seconds (user + system) of each run.
set -u
KT=$(realpath "$1") DATA=$(realpath "$2"); shift 2
W=$(mktemp -d); mkdir -p "$W/whole" "$W/cut"
cpu() { tail -n 1 "$1" | awk '{printf "%.1f s CPU, %.1f s wall", $1+$2, $3}'; }
steps() { local f="$W/cut/m.json.checkpoint"; [ -f "$f" ] && echo $(($(wc -l < "$f") - 1)) || echo 0; }
(cd "$W/whole" && /usr/bin/time -f "%U %S %e" -o "$W/t" "$KT" tune "$DATA" "$@" -o m.json > /dev/null 2>> "$W/stderr")
echo "uninterrupted: $(cpu "$W/t") (load $(cut -d' ' -f1 /proc/loadavg))"
i=0
for cut in ${CUTS:-INT@5}; do
	sig=${cut%@*} at=${cut#*@} resume=""
	[ $i -gt 0 ] && resume=--resume
	(cd "$W/cut" && exec /usr/bin/time -f "%U %S %e" -o "$W/c$i" "$KT" tune "$DATA" "$@" -o m.json $resume > /dev/null 2>> "$W/stderr") &
	tp=$!
	until [ "$(steps)" -ge "$at" ]; do
		kill -0 $tp 2> /dev/null || { echo "run $((i+1)) ended before $at steps:"; cat "$W/stderr"; exit 1; }
		sleep 0.2
	done
	kill -"$sig" "$(pgrep -P $tp | head -n 1)"
	wait $tp
	echo "run $((i+1)): SIG$sig at $(steps) steps kept: $(cpu "$W/c$i") (load $(cut -d' ' -f1 /proc/loadavg))"
	i=$((i+1))
done
(cd "$W/cut" && /usr/bin/time -f "%U %S %e" -o "$W/t" "$KT" tune "$DATA" "$@" -o m.json --resume > /dev/null 2>> "$W/stderr")
echo "run $((i+1)): to the end: $(cpu "$W/t")"
grep -h "resuming" "$W/stderr"
mask() { sed -E 's/"elapsed_ns": ?[0-9]+/"elapsed_ns":0/g; s/"checksum": ?"sha256:[0-9a-f]+"//' "$1"; }
if cmp -s <(mask "$W/whole/m.json") <(mask "$W/cut/m.json"); then
	echo "the models are identical (timings and their checksum aside)"
else
	echo "the models DIFFER: $W/whole/m.json $W/cut/m.json"; exit 1
fi
ls "$W/cut" | grep -q checkpoint && { echo "a checkpoint is left"; exit 1; }
rm -rf "$W"
