package suggest

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// LIBSVMDoc is the page that maps every option of svm-train, svm-predict,
// svm-scale and grid.py to kerneltune's flags.
const LIBSVMDoc = "docs/libsvm-users.md"

// libsvmHints says, for each single-dash option of svm-train, svm-predict,
// svm-scale and grid.py that is not a shorthand of kerneltune, what it is
// here: the flag, or why there is none. The keys are the option without its
// dash; a letter option is matched on its first letter (pflag reads "-v5" as
// the shorthand v), a word option (grid.py's) on the whole word. The table
// of LIBSVMDoc is the same, with the options kerneltune shares (-c, -g, -q).
var libsvmHints = map[string]string{
	// svm-train (and svm-predict's -b)
	"s": "svm-train's -s selects the SVM type: kerneltune trains C-SVC classifiers only (LIBSVM's -s 0, the default; --margin l1, or l2 or hard); nu-SVC (-s 1), one-class (-s 2), epsilon-SVR (-s 3) and nu-SVR (-s 4) have no equivalent. svm-scale's -s FILE (save the scaling) has none either: the model file holds its normaliser",
	"t": "svm-train's -t is --kernel: -t 0 (linear) is --kernel linear, -t 2 (RBF) is --kernel gaussian (the default); kerneltune adds --kernel l1; polynomial (-t 1), sigmoid (-t 3) and precomputed (-t 4) kernels have no equivalent",
	"d": "svm-train's -d is the degree of the polynomial kernel, which kerneltune does not offer (--kernel gaussian, l1 or linear)",
	"r": "svm-train's -r is coef0 of the polynomial and sigmoid kernels, which kerneltune does not offer; svm-scale's -r FILE (restore a scaling) has no equivalent either: predict applies the model's own normaliser",
	"n": "svm-train's -n is ν of nu-SVC and nu-SVR, which kerneltune does not train (C-SVC only; --margin l2's ν = 1/C is another ν)",
	"p": "svm-train's -p is ε of epsilon-SVR, which has no equivalent: kerneltune does classification only",
	"m": "svm-train's -m is --cache-mb (the kernel cache in MB)",
	"e": "svm-train's -e is --eps (the SMO stopping tolerance)",
	"b": "LIBSVM's -b 1 (probability estimates) is --probability (train, tune and predict)",
	"w": "svm-train's -wi is --weight-pos (-w1) and --weight-neg (-w-1) on binary data, or --class-weight balanced",
	"v": "svm-train's and grid.py's -v n (n-fold cross-validation) is --folds n (tune, compare); `kerneltune tune DATA --method svm` is grid.py's search",
	"g": "svm-train's -g is --gamma (train -g G); tune and compare learn γ, and --log2g begin,end,step is grid.py's range",
	// svm-scale
	"l": "svm-scale's -l/-u (the feature range) is --normalize minmax11 (-l -1 -u 1) or minmax01 (-l 0 -u 1); --normalize none keeps a file svm-scale has already scaled",
	"u": "svm-scale's -l/-u (the feature range) is --normalize minmax11 (-l -1 -u 1) or minmax01 (-l 0 -u 1); --normalize none keeps a file svm-scale has already scaled",
	"y": "svm-scale's -y scales the target values of regression, which kerneltune does not do: class labels are read as they are (--positive names the +1 class)",
	// grid.py
	"log2c":    "grid.py's -log2c begin,end,step is --log2c begin,end,step",
	"log2g":    "grid.py's -log2g begin,end,step is --log2g begin,end,step",
	"svmtrain": "grid.py's -svmtrain has no equivalent: kerneltune runs its own solver, LIBSVM's SMO in Go",
	"gnuplot":  "grid.py's -gnuplot has no equivalent: compare --plot draws the figures",
	"png":      "grid.py's -png has no equivalent: compare --plot DIR --plot-format png draws the figures",
	"resume":   "grid.py's -resume is compare --out FILE --resume",
}

// Hint is Flag and LIBSVM: what pflag's error err on the flags fs may be
// missing (a near flag's name, a LIBSVM option's flag).
func Hint(fs *pflag.FlagSet, err error) error { return LIBSVM(Flag(fs, err)) }

// LIBSVM adds, to pflag's "unknown shorthand flag: 'x' in -xyz" error err,
// what the LIBSVM option -xyz is in kerneltune (a flag, or why there is
// none) and where the whole map is; other errors come back as they are.
func LIBSVM(err error) error {
	letter, token := unknownShorthand(err.Error())
	if token == "" {
		return err
	}
	hint, ok := libsvmHints[token]
	if !ok {
		hint, ok = libsvmHints[letter]
	}
	if !ok {
		return err
	}
	return fmt.Errorf("%w; %s (%s maps every LIBSVM option)", err, hint, LIBSVMDoc)
}

// unknownShorthand is the letter pflag did not know and the option it was
// in, without its dash and any "=value", in pflag's "unknown shorthand
// flag: 'l' in -log2c": "l", "log2c"; "", "" for other messages.
func unknownShorthand(msg string) (letter, token string) {
	rest, ok := strings.CutPrefix(msg, "unknown shorthand flag: ")
	if !ok {
		return "", ""
	}
	quoted, token, ok := strings.Cut(rest, " in -")
	if !ok {
		return "", ""
	}
	letter = strings.Trim(quoted, "'")
	token, _, _ = strings.Cut(token, "=")
	if letter == "" || token == "" {
		return "", ""
	}
	return letter, token
}
