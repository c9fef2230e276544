# kerneltune — build, test and benchmark targets.
GO      ?= go
PKGS    := ./...
BIN     := kerneltune

.PHONY: all build test fmt-check vet browser report-check fuzz bench bench-libsvm readme readme-all docs clean

all: build

# The version records, models and reports carry: the git description, set
# through the linker (a plain go build says "(devel)").
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)

build:
	$(GO) build -ldflags "-X github.com/kerneltune/kerneltune/internal/buildinfo.version=$(VERSION)" -o $(BIN) .

# The README's test command; .ci/run calls it. gofmt check + vet + race tests
# (with Debian's chromium, libsvm-tools and pdflatex installed first, when they
# can be, so that the HTML report, the LIBSVM export and the LaTeX tables are
# checked with the real tools), then the README check (readme_test.go,
# built without -race: it reruns the quick commands of README.md and docs/*.md
# and compares their output). The solver, sqp and kernel packages are tested once more with
# -tags purego: their Go loops instead of the AVX2 assembly, what machines
# without AVX2 and other architectures run (the LIBSVM goldens included).
test: fmt-check vet browser
	$(GO) test -race -count=1 -timeout 12m $(PKGS)
	$(GO) vet -tags purego ./pkg/solver/... ./pkg/kernel
	$(GO) test -count=1 -tags purego ./pkg/solver/... ./pkg/kernel
	$(GO) test -count=1 -run '^TestREADME$$' .

# Paste the output of the <!-- readme: run --> blocks of README.md and of
# every page of docs/ anew (seconds); readme-all also reruns the
# <!-- readme: measured DATE --> blocks (minutes) and dates them today.
# Review the diff: only blocks whose output changed beyond wall times are
# rewritten.
readme:
	$(GO) test -count=1 -run '^TestREADME$$' . -args -readme-update

readme-all:
	$(GO) test -count=1 -timeout 60m -run '^TestREADME$$' . -args -readme-update -readme-all

# Generate the command reference from the commands (spf13/cobra/doc): one
# Markdown page per command in docs/cli, one man page in docs/man. `go test
# ./internal/gendocs` (part of make test) fails when they are stale.
docs:
	$(GO) run ./internal/gendocs -dir docs

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

# Install the Debian packages the tests check real components with (chromium,
# libsvm-tools, pdflatex with booktabs) when missing: root on Debian only;
# elsewhere the tests that need them skip with a message.
browser:
	@./scripts/ensure-tools.sh

# The HTML report in headless Chromium: screenshot, no console message, not
# blank; fails (instead of skipping) when no browser can be installed.
report-check: browser
	KERNELTUNE_REQUIRE_BROWSER=1 $(GO) test ./cmd -count=1 -v -run 'TestHTMLReportInChromium|TestChromiumCheckCatchesErrorsAndBlankPages'

# Run each fuzz target for FUZZTIME (the seed corpora already run in `make test`).
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./pkg/dataio -run '^$$' -fuzz '^FuzzReadLIBSVM$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/dataio -run '^$$' -fuzz '^FuzzReadCSV$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/dataio -run '^$$' -fuzz '^FuzzReadUnlabeled$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/dataio -run '^$$' -fuzz '^FuzzReadARFF$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/model -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/experiment -run '^$$' -fuzz '^FuzzReadRecords$$' -fuzztime $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Time kerneltune against LIBSVM's svm-train on the same files (needs libsvm-tools).
bench-libsvm: build
	./bench/libsvm.sh

clean:
	rm -f $(BIN)
