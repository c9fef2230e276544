// Package suggest finds the known name closest to a mistyped one, for "did
// you mean" hints on unknown flags (cobra suggests only for commands).
package suggest

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Flag adds "did you mean --NAME?" to pflag's unknown-flag error err when a
// flag of fs (hidden ones left out) is within 2 edits of the one typed;
// other errors come back as they are.
func Flag(fs *pflag.FlagSet, err error) error {
	typed := UnknownFlag(err.Error())
	if typed == "" {
		return err
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if n := Closest(typed, names, 2); n != "" {
		return fmt.Errorf("%w; did you mean --%s?", err, n)
	}
	return err
}

// Closest returns the name of names at the smallest Levenshtein distance
// from typed (--method for --methods: 1), if that is at most maxDist; ""
// when none is near enough. Ties go to the first in names.
func Closest(typed string, names []string, maxDist int) string {
	best, bestD := "", maxDist+1
	for _, n := range names {
		if n == typed {
			continue
		}
		if d := distance(typed, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// UnknownFlag is the flag name in pflag's "unknown flag: --NAME" (or
// "unknown shorthand flag: 'x' in -x"), "" for other messages; only long
// flags get a suggestion.
func UnknownFlag(msg string) string {
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, "=")
	return name
}
