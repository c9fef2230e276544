# kerneltune — build, test and benchmark targets.
GO      ?= go
PKGS    := ./...
BIN     := kerneltune

.PHONY: all build test fmt-check vet fuzz bench bench-libsvm clean

all: build

build:
	$(GO) build -o $(BIN) .

# The README's test command; .ci/run calls it. gofmt check + vet + race tests.
test: fmt-check vet
	$(GO) test -race -count=1 -timeout 12m $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

# Run each fuzz target for FUZZTIME (the seed corpora already run in `make test`).
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./pkg/dataio -run '^$$' -fuzz '^FuzzReadLIBSVM$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/dataio -run '^$$' -fuzz '^FuzzReadCSV$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/dataio -run '^$$' -fuzz '^FuzzReadUnlabeled$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/dataio -run '^$$' -fuzz '^FuzzReadARFF$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/model -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Time kerneltune against LIBSVM's svm-train on the same files (needs libsvm-tools).
bench-libsvm: build
	./bench/libsvm.sh

clean:
	rm -f $(BIN)
