package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

func sampleTable() *Table {
	return &Table{
		Title:  "heart (n=270, d=13)",
		Header: []string{"method", "accuracy", "#SV"},
		Rows: [][]string{
			{"svm", "83.70 ± 2.10", "101"},
			{"spd_diag", "85.19", "99"},
			{"a&b_c", "-", "7"},
		},
		Notes: []string{"note: times in seconds"},
	}
}

func TestRenderFormats(t *testing.T) {
	tests := []struct {
		format string
		want   []string // substrings, in order
	}{
		{"table", []string{"heart (n=270, d=13)\n", "method", "accuracy", "#SV", "svm", "83.70 ± 2.10", "101", "spd_diag", "note: times in seconds\n"}},
		{"markdown", []string{"**heart (n=270, d=13)**\n", "| method", "|:--", "--:|", "| svm", "83.70 ± 2.10 |", "note: times in seconds\n"}},
		{"csv", []string{"method,accuracy,#SV\n", "svm,83.70 ± 2.10,101\n", "spd_diag,85.19,99\n", "a&b_c,-,7\n"}},
		{"latex", []string{`\begin{table}[htbp]`, "\\caption{heart (n=270, d=13)}\n\\label{tab:heart-n-270-d-13}\n", `\begin{tabular}{lrr}`, `\toprule`, `method & accuracy & \#SV \\`, `\midrule`, `svm & 83.70 $\pm$ 2.10 & 101 \\`, `a\&b\_c & - & 7 \\`, `\bottomrule`, `\end{tabular}`, `\end{table}`, "% note: times in seconds\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, tc.format, sampleTable()); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			pos := 0
			for _, w := range tc.want {
				i := strings.Index(out[pos:], w)
				if i < 0 {
					t.Fatalf("output lacks %q after offset %d:\n%s", w, pos, out)
				}
				pos += i + len(w)
			}
			if tc.format == "csv" && strings.Contains(out, "heart") {
				t.Errorf("csv output carries the title:\n%s", out)
			}
		})
	}
}

func TestRenderHeaderNotUpperCased(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, "table", &Table{Header: []string{"gamma", "C"}, Rows: [][]string{{"0.5", "1"}}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "GAMMA") || !strings.Contains(b.String(), "gamma") {
		t.Errorf("header was reformatted:\n%s", b.String())
	}
}

func TestRenderNumericRightAligned(t *testing.T) {
	var b bytes.Buffer
	tb := &Table{Header: []string{"name", "value"}, Rows: [][]string{{"a", "1"}, {"bbbbbb", "123.25"}}}
	if err := Render(&b, "table", tb); err != nil {
		t.Fatal(err)
	}
	// "1" is right-aligned under "123.25": preceded by five more spaces.
	if !strings.Contains(b.String(), "      1 ") {
		t.Errorf("numeric column not right-aligned:\n%s", b.String())
	}
	if !strings.Contains(b.String(), " a      ") {
		t.Errorf("text column not left-aligned:\n%s", b.String())
	}
}

func TestRenderSeveral(t *testing.T) {
	var b bytes.Buffer
	t1 := &Table{Header: []string{"a"}, Rows: [][]string{{"1"}}}
	t2 := &Table{Header: []string{"b"}, Rows: [][]string{{"2"}}}
	if err := Render(&b, "csv", t1, t2); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "a\n1\n\nb\n2\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A CSV of one table reads back as the same cells.
	b.Reset()
	if err := Render(&b, "csv", sampleTable()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || recs[1][1] != "83.70 ± 2.10" || recs[3][0] != "a&b_c" {
		t.Errorf("csv round trip: %q", recs)
	}
}

func TestRenderUnknownFormat(t *testing.T) {
	if err := Render(&bytes.Buffer{}, "xml", sampleTable()); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestCheckFormat(t *testing.T) {
	if err := CheckFormat("json", "table", "json"); err != nil {
		t.Errorf("json rejected: %v", err)
	}
	err := CheckFormat("yaml", "table", "json")
	if !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("want ErrUnknownFormat, got %v", err)
	}
	if want := `--format: unknown format "yaml" (want table, json)`; flagWords(err) != want {
		t.Errorf("message %q, want %q", flagWords(err), want)
	}
}

// flagWords is err's message with its settings spelled as the command
// line's flags (cmd's spelling).
func flagWords(err error) string {
	return hint.Spell(err, func(s hint.Setting) string { return strings.TrimSpace("--" + s.Key + " " + s.Value) }).Error()
}

func TestRenderJSON(t *testing.T) {
	var b bytes.Buffer
	v := map[string]any{"b": 1.5, "a": "x<y"}
	if err := RenderJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "{\n  \"a\": \"x<y\",\n  \"b\": 1.5\n}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["b"] != 1.5 {
		t.Errorf("round trip: %v %v", back, err)
	}
	if err := RenderJSON(&b, math.NaN()); err == nil {
		t.Error("NaN encoded without error")
	}
}

func TestFmt(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{Fixed(0.837037, 4), "0.8370"},
		{Fixed(math.NaN(), 2), "-"},
		{Fixed(math.Inf(1), 2), "inf"},
		{Sig(0.0769230769, 4), "0.07692"},
		{Sig(1e-7, 3), "1e-07"},
		{Sig(math.Inf(-1), 3), "-inf"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
