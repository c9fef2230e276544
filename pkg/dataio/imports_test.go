package dataio

import (
	"go/build"
	"strings"
	"testing"
)

// dataio sits at the bottom of the import graph: it imports no other
// package of this module (STYLE.md).
func TestNoInternalImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range append(pkg.Imports, pkg.TestImports...) {
		if strings.HasPrefix(imp, "github.com/kerneltune/kerneltune/") {
			t.Errorf("dataio imports %s", imp)
		}
	}
}
