#!/usr/bin/env bash
# Installs the Debian packages that the tests check real components with,
# when they are missing and this is a root Debian machine:
#   chromium                      the HTML report in a real browser
#   libsvm-tools                  svm-scale / svm-train / svm-predict round trips
#   texlive-latex-base,
#   texlive-latex-recommended     pdflatex on report --format latex (booktabs)
#   slurm-wlm, munge              a single-node Slurm (scripts/slurm-localhost.sh) for
#                                 compare --slurm's test (cmd/slurm_test.go)
# Elsewhere it says what is missing and carries on: each test that needs a
# missing tool then skips with a message naming it. A failed install is said
# on stderr with the log's tail, never hidden.
set -uo pipefail
declare -A need=(
	[chromium]=chromium
	[svm-scale]=libsvm-tools
	[pdflatex]=texlive-latex-base
	[sbatch]=slurm-wlm
	[munged]=munge
)
pkgs=()
for cmd in "${!need[@]}"; do
	command -v "$cmd" >/dev/null 2>&1 || pkgs+=("${need[$cmd]}")
done
# booktabs comes with texlive-latex-recommended.
if command -v kpsewhich >/dev/null 2>&1 && [ -z "$(kpsewhich booktabs.sty 2>/dev/null)" ]; then
	pkgs+=(texlive-latex-recommended)
elif ! command -v pdflatex >/dev/null 2>&1; then
	pkgs+=(texlive-latex-recommended)
fi
[ ${#pkgs[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-tools: missing ${pkgs[*]} and this is not a root Debian machine: the tests that need them will skip (apt-get install ${pkgs[*]} to run them)" >&2
	exit 0
fi
echo "ensure-tools: installing Debian's ${pkgs[*]} for the tests that check real components" >&2
export DEBIAN_FRONTEND=noninteractive
log=/tmp/ensure-tools.log
: >"$log"
# chromium with its recommended fonts; the TeX packages and Slurm without
# the (large) documentation, extra fonts and tools they recommend.
install() {
	apt-get install -y -q "$@" >>"$log" 2>&1 && return 0
	apt-get update -q >>"$log" 2>&1
	apt-get install -y -q "$@" >>"$log" 2>&1
}
for p in "${pkgs[@]}"; do
	case "$p" in
	texlive-* | slurm-wlm | munge) opt=(--no-install-recommends) ;;
	*) opt=() ;;
	esac
	if ! install "${opt[@]}" "$p"; then
		echo "ensure-tools: apt-get install $p failed (log: $log): the tests that need it will skip" >&2
		tail -5 "$log" >&2
	fi
done
exit 0
