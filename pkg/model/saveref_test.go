package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// saveRef is Save as it was before the indenter, the reference for its
// bytes: the indented JSON in memory, then every array of numbers put on
// one line (compactNumberArrays).
func saveRef(m *Model, w io.Writer) error {
	c, err := m.checksummed()
	if err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return indentRef(w, c)
}

// indentRef writes v as the earlier Save did.
func indentRef(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(compactNumberArrays(buf.Bytes()))
	return err
}

// compactNumberArrays puts every JSON array that holds only numbers on one
// line ("x": [0.1, -0.5, 1]), so that a support vector or a row of Q reads
// as one line instead of d. It leaves strings alone.
func compactNumberArrays(js []byte) []byte {
	out := make([]byte, 0, len(js))
	inString, escaped := false, false
	for i := 0; i < len(js); i++ {
		c := js[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			out = append(out, c)
		case '[':
			end := numberArrayEnd(js, i)
			if end < 0 {
				out = append(out, c)
				continue
			}
			out = append(out, '[')
			for k, f := range bytes.Split(js[i+1:end], []byte(",")) {
				if k > 0 {
					out = append(out, ", "...)
				}
				out = append(out, bytes.TrimSpace(f)...)
			}
			out = append(out, ']')
			i = end
		default:
			out = append(out, c)
		}
	}
	return out
}

// numberArrayEnd returns the index of the ']' closing the array opened at
// js[i] if everything in between is numbers, commas and white space, or -1.
func numberArrayEnd(js []byte, i int) int {
	for k := i + 1; k < len(js); k++ {
		switch c := js[k]; {
		case c == ']':
			return k
		case c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r' ||
			c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || ('0' <= c && c <= '9'):
		default:
			return -1
		}
	}
	return -1
}

// TestSaveStreamsTheSameBytes: Save's indenter writes, byte for byte, what
// the earlier Save wrote (saveRef): for models of every kind the tests fit (dense binary with a full Q, multi-class,
// sparse, with probability), and for JSON values that try the indenter's
// corners (brackets and escapes in strings, empty and nested arrays and
// objects, arrays of numbers beside mixed ones, a top-level array).
func TestSaveStreamsTheSameBytes(t *testing.T) {
	check := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			k := 0
			for k < min(len(got), len(want)) && got[k] == want[k] {
				k++
			}
			t.Fatalf("%s: differs at byte %d of %d/%d:\n got …%q\nwant …%q", what, k, len(got), len(want),
				got[max(0, k-40):min(len(got), k+40)], want[max(0, k-40):min(len(want), k+40)])
		}
	}
	d := loadHeart(t)
	q := make([][]float64, 13)
	for i := range q {
		q[i] = make([]float64, 13)
		q[i][i] = 0.1 + float64(i)/100
	}
	q[0][1], q[1][0] = 0.01, 0.01
	full, _, err := fitSVM(context.Background(), d, nil, kernel.Spec{Kind: kernel.KindGaussian, Q: q}, solver.SVCParams{C: 1}, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	binary, _, err := fitSVM(context.Background(), d, nil, iso(0.5), solver.SVCParams{C: 1}, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	wine, _ := wineModel(t)
	sp, _ := textSets(t, 300)
	fs, err := Fit(context.Background(), FitSettings{Train: sp, Kernel: iso(0.01), Margin: L1, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]*Model{"full Q": full, "binary": binary, "wine": wine, "sparse": fs.Model}
	for name, m := range models {
		var got, want bytes.Buffer
		if err := m.Save(&got); err != nil {
			t.Fatal(err)
		}
		if err := saveRef(m, &want); err != nil {
			t.Fatal(err)
		}
		check(name, got.Bytes(), want.Bytes())
	}
	values := []any{
		map[string]any{"s": "x\"[1,  2]\\", "e": []any{}, "o": map[string]any{}, "n": []any{1, -2.5e-3, 1e300},
			"q": [][]float64{{1, 0}, {}, {3}}, "m": []any{1, "a", nil, true, []any{2, 3}, map[string]any{"k": []int{}}},
			"html": "<a href=\"x\">&</a>", "u": "é\u2028", "nested": [][][]int{{{1}}, {{}}}},
		[]any{[]int{1, 2}, []any{}, "]", map[string]any{"z": false}},
		[]int{},
		"plain",
		json.RawMessage(`{"a": [1, 2], "b": {"c": [ "x", 3 ]}}`),
	}
	for i, v := range values {
		var got, want bytes.Buffer
		bw := bufio.NewWriter(&got)
		enc := json.NewEncoder(&indenter{w: bw})
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		bw.Flush()
		if err := indentRef(&want, v); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("value %d", i), got.Bytes(), want.Bytes())
	}
}

// TestSaveStreams: Save hands the file its text in pieces of at most 64
// kB as it indents it, where the earlier Save wrote the whole indented text
// at once (it held it, its compacted copy and SaveFile's buffer together:
// 141-165 MB for a ten-class model of 15.9 MB, against 81-82 MB now;
// BENCHMARKS.md). The model is heart's with its support vectors 100 times
// over (a 2.3 MB file).
func TestSaveStreams(t *testing.T) {
	d := loadHeart(t)
	m, _, err := fitSVM(context.Background(), d, nil, iso(0.5), solver.SVCParams{C: 100}, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	svs := m.SupportVectors
	for range 99 {
		m.SupportVectors = append(m.SupportVectors, svs...)
	}
	m.Training.NSV = len(m.SupportVectors)
	m.Training.N *= 100
	m.Training.NPos *= 100
	m.Training.NBSV *= 100
	var w pieces
	if err := m.Save(&w); err != nil {
		t.Fatal(err)
	}
	var ref pieces
	if err := saveRef(m, &ref); err != nil {
		t.Fatal(err)
	}
	if w.total != ref.total || w.total < 2<<20 {
		t.Fatalf("Save wrote %d bytes, the earlier Save %d", w.total, ref.total)
	}
	if w.largest > 64<<10 {
		t.Errorf("Save wrote a piece of %d bytes of %d", w.largest, w.total)
	}
	t.Logf("%d bytes in pieces of at most %d (the earlier Save: %d at once)", w.total, w.largest, ref.largest)
}

// pieces counts what is written to it: the bytes and the largest write.
type pieces struct{ total, largest int }

func (p *pieces) Write(b []byte) (int, error) {
	p.total += len(b)
	p.largest = max(p.largest, len(b))
	return len(b), nil
}

// TestHasNull: the byte scan that spares loading refuseNulls' token walk
// passes a file whose only nulls are normalizers' (top level or a pair's,
// indented or compact) and sends every other null to the walk: a
// coefficient's, one in a string that ends in normalizer", one after a
// key that only ends in normalizer.
func TestHasNull(t *testing.T) {
	for _, c := range []struct {
		json string
		want bool
	}{
		{`{"a": 1, "normalizer": null, "b": "null"}`, false},
		{`{"normalizer":null,"pairs":[{"c":1,"normalizer" :  null}]}`, false},
		{"{\n \"x\": [1, 2],\n \"normalizer\": null\n}\n", false},
		{`{"normalizer": null, "coef": null}`, true},
		{`{"a": [1, null]}`, true},
		{`{"a": "x\"normalizer": null}`, true},
		{`{"xnormalizer": null}`, true},
		{`["normalizer", null]`, true},
		{`{"s": "no null here: \"normalizer\": null"}`, false},
	} {
		if got := hasNull([]byte(c.json)); got != c.want {
			t.Errorf("hasNull(%s) = %v, want %v", c.json, got, c.want)
		}
	}
}
