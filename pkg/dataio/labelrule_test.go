package dataio

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The label rule at its edges (labelVerdict): two values are always
// classes; numbers with fractions are a feature from three values on;
// many classes are a feature only when most have one or two rows, from
// ten classes on; missing values do not count.
func TestLabelRule(t *testing.T) {
	// csvOf writes one feature column and a label column of labels.
	csvOf := func(labels ...string) []byte {
		var b strings.Builder
		for i, l := range labels {
			fmt.Fprintf(&b, "%d,%s\n", i%7, l)
		}
		return []byte(b.String())
	}
	repeat := func(n int, vals ...string) []string {
		var out []string
		for range n {
			out = append(out, vals...)
		}
		return out
	}
	seq := func(from, n, each int) []string {
		var out []string
		for i := range n {
			for range each {
				out = append(out, fmt.Sprint(from+i))
			}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		labels  []string
		refused bool
	}{
		{"two fractional values", repeat(5, "0.5", "1.5"), false},
		{"three fractional values", repeat(5, "0.5", "1.5", "2.5"), true},
		{"integer-valued floats", repeat(5, "1.0", "2.0", "3.0"), false},
		{"nine singleton classes", seq(1, 9, 1), false},
		{"ten singleton classes", seq(1, 10, 1), true},
		{"ten classes of two rows", seq(1, 10, 2), true},
		{"ten classes of three rows", seq(1, 10, 3), false},
		{"26 classes of 3 rows (letter, small)", seq(1, 26, 3), false},
		{"half tiny is not most", append(seq(1, 5, 1), seq(10, 5, 4)...), false},
		{"most tiny", append(seq(1, 6, 1), seq(10, 5, 4)...), true},
		{"text ids", append(repeat(1, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"), "a"), true},
		{"text classes", repeat(4, "cat", "dog", "eel"), false},
		{"missing values skipped", append(repeat(5, "1", "2", "3"), "?", "?"), false},
	} {
		_, err := readBytes(csvOf(tc.labels...), "t.csv", ReadOptions{Missing: "drop"})
		var le *LabelColumnError
		got := errors.As(err, &le)
		if got != tc.refused || (got && !errors.Is(err, ErrLabelLooksLikeFeature)) {
			t.Errorf("%s: refused %v (%v), want %v", tc.name, got, err, tc.refused)
		}
		// A label column given is the user's: never refused.
		if _, err := readBytes(csvOf(tc.labels...), "t.csv", ReadOptions{Missing: "drop", LabelCol: "2"}); errors.As(err, &le) {
			t.Errorf("%s with label-col=2: %v", tc.name, err)
		}
	}
}
