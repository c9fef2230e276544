//go:build !unix

package experiment

import "os"

// lockFile does nothing where flock is not available: the file is written
// unguarded.
func lockFile(*os.File, string) error { return nil }
