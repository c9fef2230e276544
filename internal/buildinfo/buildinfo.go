// Package buildinfo says which kerneltune wrote a result, and how it was
// called: the version from the build information and a shell-quoted command
// line, both recorded in models, records and reports. It is a package of
// its own, not a part of cmd, because it knows nothing of the commands and
// keeps cmd to flags, one call and rendering.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// version is set by the linker: make build passes
// -ldflags "-X github.com/kerneltune/kerneltune/internal/buildinfo.version=$(git describe --tags --always --dirty)".
var version string

// SetVersionHint says how to give a source build a version, for
// --version when Version has only "(devel)".
const SetVersionHint = "a source build without a version: build with 'make build' (the git description), or go build -ldflags \"-X github.com/kerneltune/kerneltune/internal/buildinfo.version=VERSION\"; 'go install github.com/kerneltune/kerneltune@VERSION' records the module version"

// VersionTemplate is --version's cobra template: the version, and for a
// bare "(devel)" SetVersionHint on a second line.
func VersionTemplate() string {
	if Version() == "(devel)" {
		return "kerneltune version {{.Version}}\n" + SetVersionHint + "\n"
	}
	return "kerneltune version {{.Version}}\n"
}

// Version is the kerneltune version: the one the linker set (make build:
// the git description), else from the build information the module version
// (go install …@v1.2.3), or "(devel)" plus the VCS revision in a source
// build, or "(devel)" alone when the build had no VCS stamping (see
// SetVersionHint).
func Version() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:,@=+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
