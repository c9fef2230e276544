#!/usr/bin/env bash
# Installs Debian's chromium when it is missing, so that the HTML report is
# checked in a real browser (cmd's TestHTMLReportInChromium, make
# report-check). Without root or without apt it says so and carries on: the
# browser test then skips with a message.
set -uo pipefail
if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-chromium: chromium is not installed and this is not a root Debian machine: the HTML report's browser check will be skipped (apt-get install chromium to run it)" >&2
	exit 0
fi
echo "ensure-chromium: installing Debian's chromium for the HTML report's browser check" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q chromium >/tmp/ensure-chromium.log 2>&1; then
	apt-get update -q >>/tmp/ensure-chromium.log 2>&1
	if ! apt-get install -y -q chromium >>/tmp/ensure-chromium.log 2>&1; then
		echo "ensure-chromium: apt-get install chromium failed (log: /tmp/ensure-chromium.log): the browser check will be skipped" >&2
		tail -5 /tmp/ensure-chromium.log >&2
	fi
fi
exit 0
