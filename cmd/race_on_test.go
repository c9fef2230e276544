//go:build race

package cmd

// raceBuild: the tests run under the race detector (make test), whose
// processes are several times slower; the fault suite tries fewer points.
const raceBuild = true
