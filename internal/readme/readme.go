// Package readme keeps the pasted output in README.md and docs/*.md true: it finds the
// blocks of commands and their output, reruns the commands, compares or
// replaces the output, and checks the dates of numbers measured by hand.
//
// A block is a fenced code block right after a marker comment:
//
//	<!-- readme: run -->             cheap: rerun and compared by `make test`,
//	                                 rewritten by `make readme`
//	<!-- readme: measured 2026-11-24 -->
//	                                 expensive: not rerun by the check; rewritten,
//	                                 and the date with it, by `make readme-all`
//
// Inside, each line "$ kerneltune ARGS" is a command and the lines up to the
// next "$ " line are its output (standard output and standard error, as a
// terminal shows them). A command may be piped through head -n N, tail -n N
// and grep [-E] [-v] 'RE' (RE2 syntax), which the checker applies itself, so
// a README shows part of a long output with a command the reader can type; a
// trailing "# comment" is kept as written. Commands run in order in one
// directory, so a block can use a file an earlier one wrote.
//
// Prose numbers that are not pasted output say where they come from:
// "(measured YYYY-MM-DD with `command`)"; DatedClaims finds those.
package readme

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Marker kinds.
const (
	Run      = "run"      // rerun by the check
	Measured = "measured" // expensive: command and date only
)

// Doc is a README split into lines, with its blocks.
type Doc struct {
	Lines  []string
	Blocks []*Block
}

// Block is one marked fenced block.
type Block struct {
	Kind string // Run or Measured
	Date string // YYYY-MM-DD, Measured only
	// MarkerLine is the 0-based line of the marker comment; the fence
	// opens on the next line and closes on line Close.
	MarkerLine, Close int
	Commands          []*Command
	// Indent is the spaces before the marker, the fences and every line of
	// a block inside a list item; the block's lines are read without it.
	Indent string
}

// Command is one "$ " line of a block and its output.
type Command struct {
	Line    int    // 0-based line of the "$ " line
	Indent  string // its block's Indent, put back before new output lines
	Text    string // the command as written after "$ ", comment included
	Args    []string
	Filters []Filter
	Output  []string // the lines pasted after it
	// Exit is the exit code the command must end with: 0, or N from a
	// trailing "# exit N" comment (e.g. report on an incomplete run).
	Exit int
}

var exitRE = regexp.MustCompile(`#.*\bexit ([0-9]+)\b`)

// Filter is one stage of a pipe after the command.
type Filter struct {
	Name string // head, tail or grep
	N    int    // head, tail: -n N
	RE   *regexp.Regexp
	Not  bool // grep -v
}

var (
	markerRE  = regexp.MustCompile(`^<!-- readme: (run|measured (\d{4}-\d{2}-\d{2})) -->$`)
	anyMarker = regexp.MustCompile(`^<!-- readme:`)
	// DatedClaim is the form of a prose number measured by hand.
	datedRE = regexp.MustCompile("measured\\s+([0-9]{4}-[0-9-]+)\\s+with\\s+`([^`]+)`")
)

// Parse is ParseFile of README.md.
func Parse(text string) (*Doc, error) { return ParseFile("README.md", text) }

// ParseFile splits text, the content of the file name (README.md or a page
// of docs/), into lines and finds its marked blocks. Errors name the file
// and line: a marker without a fenced block after it, a block without
// commands, a command it cannot parse, or pasted output after
// "$ kerneltune" in a block without a marker.
func ParseFile(name, text string) (*Doc, error) {
	d := &Doc{Lines: strings.Split(text, "\n")}
	errf := func(i int, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, a...))
	}
	marked := -1 // line of a marker whose block comes next
	indentOf := func(l string) string { return l[:len(l)-len(strings.TrimLeft(l, " "))] }
	for i := 0; i < len(d.Lines); i++ {
		// A block inside a list item is indented: its marker, fences and
		// lines all by the marker's (or the fence's) indentation.
		ind := indentOf(d.Lines[i])
		l := d.Lines[i][len(ind):]
		if anyMarker.MatchString(l) {
			m := markerRE.FindStringSubmatch(l)
			if m == nil {
				return nil, errf(i, "marker %q: want <!-- readme: run --> or <!-- readme: measured YYYY-MM-DD -->", l)
			}
			if m[2] != "" {
				if _, err := time.Parse(time.DateOnly, m[2]); err != nil {
					return nil, errf(i, "marker date %q is not a date YYYY-MM-DD", m[2])
				}
			}
			if i+1 >= len(d.Lines) || !strings.HasPrefix(d.Lines[i+1], ind+"```") {
				return nil, errf(i, "a readme marker must be followed by a fenced code block at its indentation")
			}
			marked = i
			continue
		}
		if !strings.HasPrefix(l, "```") {
			continue
		}
		// A fence opens on line i.
		end := i + 1
		for end < len(d.Lines) && !strings.HasPrefix(d.Lines[end], ind+"```") {
			end++
		}
		if end == len(d.Lines) {
			return nil, errf(i, "code block is not closed")
		}
		if marked == i-1 && marked >= 0 {
			b := &Block{Kind: Run, MarkerLine: marked, Close: end, Indent: ind}
			if m := markerRE.FindStringSubmatch(d.Lines[marked][len(ind):]); m[2] != "" {
				b.Kind, b.Date = Measured, m[2]
			}
			var cur *Command
			for j := i + 1; j < end; j++ {
				line, ok := strings.CutPrefix(d.Lines[j], ind)
				if !ok && strings.TrimSpace(d.Lines[j]) != "" {
					return nil, errf(j, "a line of a block indented by %d spaces has less", len(ind))
				}
				if t, ok := strings.CutPrefix(line, "$ "); ok {
					c, err := parseCommand(t)
					if err != nil {
						return nil, errf(j, "%v", err)
					}
					c.Line, c.Indent = j, ind
					b.Commands = append(b.Commands, c)
					cur = c
					continue
				}
				if cur == nil {
					return nil, errf(j, "output before the first \"$ kerneltune …\" line of a readme block")
				}
				cur.Output = append(cur.Output, line)
			}
			if len(b.Commands) == 0 {
				return nil, errf(marked, "readme block without a \"$ kerneltune …\" line")
			}
			d.Blocks = append(d.Blocks, b)
		} else {
			// Unmarked: command listings are fine, pasted output is not.
			for j := i + 1; j < end; j++ {
				if l := strings.TrimLeft(d.Lines[j], " "); strings.HasPrefix(l, "$ kerneltune") && j+1 < end && !strings.HasPrefix(strings.TrimLeft(d.Lines[j+1], " "), "$ ") {
					return nil, errf(j, "output pasted after %q in a block without a readme marker: mark it <!-- readme: run --> (or measured YYYY-MM-DD) so the check reruns it", d.Lines[j])
				}
			}
		}
		marked = -1
		i = end
	}
	return d, nil
}

// parseCommand parses "kerneltune ARGS [| filter]... [# comment]".
func parseCommand(text string) (*Command, error) {
	words, err := shellWords(text)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", text, err)
	}
	if len(words) == 0 || words[0] != "kerneltune" {
		return nil, fmt.Errorf("%q: a readme block runs kerneltune commands only", text)
	}
	c := &Command{Text: text}
	if m := exitRE.FindStringSubmatch(text); m != nil {
		c.Exit, _ = strconv.Atoi(m[1])
	}
	stages := [][]string{nil}
	for _, w := range words[1:] {
		if w == "|" {
			stages = append(stages, nil)
			continue
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], w)
	}
	c.Args = stages[0]
	for _, st := range stages[1:] {
		f, err := parseFilter(st)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", text, err)
		}
		c.Filters = append(c.Filters, f)
	}
	return c, nil
}

func parseFilter(w []string) (Filter, error) {
	if len(w) == 0 {
		return Filter{}, fmt.Errorf("empty pipe stage")
	}
	switch w[0] {
	case "head", "tail":
		if len(w) != 3 || w[1] != "-n" {
			return Filter{}, fmt.Errorf("want %s -n N", w[0])
		}
		n, err := strconv.Atoi(w[2])
		if err != nil || n < 0 {
			return Filter{}, fmt.Errorf("%s -n %s: not a count", w[0], w[2])
		}
		return Filter{Name: w[0], N: n}, nil
	case "grep":
		f := Filter{Name: "grep"}
		rest := w[1:]
		for len(rest) > 1 && strings.HasPrefix(rest[0], "-") {
			switch rest[0] {
			case "-E":
			case "-v":
				f.Not = true
			default:
				return Filter{}, fmt.Errorf("grep option %s: want -E or -v", rest[0])
			}
			rest = rest[1:]
		}
		if len(rest) != 1 {
			return Filter{}, fmt.Errorf("want grep [-E] [-v] 'RE'")
		}
		re, err := regexp.Compile(rest[0])
		if err != nil {
			return Filter{}, fmt.Errorf("grep: %v", err)
		}
		f.RE = re
		return f, nil
	}
	return Filter{}, fmt.Errorf("pipe stage %q: the checker knows head -n, tail -n and grep", w[0])
}

// shellWords splits a command line as sh does for plain words, '…' and
// "…" quotes and | pipes, and drops a trailing # comment.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			return words, nil
		case c == '|':
			flush()
			words = append(words, "|")
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c quote", c)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}

// Apply runs the filters over out, line by line, as the shell pipe would.
func Apply(out string, fs []Filter) string {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if out == "" {
		lines = nil
	}
	for _, f := range fs {
		switch f.Name {
		case "head":
			lines = lines[:min(f.N, len(lines))]
		case "tail":
			lines = lines[max(0, len(lines)-f.N):]
		case "grep":
			var kept []string
			for _, l := range lines {
				if f.RE.MatchString(l) != f.Not {
					kept = append(kept, l)
				}
			}
			lines = kept
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

var (
	// Wall times: "0.397 s", "2 min 12 s", `"tune_time_s": 0.39`.
	secondsRE  = regexp.MustCompile(`[0-9]+(\.[0-9]+)?( ?(s|ms|min)\b)`)
	jsonTimeRE = regexp.MustCompile(`("[a-z_]*(time|seconds)[a-z_]*": )[0-9.eE+-]+`)
	spacesRE   = regexp.MustCompile(` {2,}`)
	rulesRE    = regexp.MustCompile(`[─━═-]{2,}`)
)

// Normalize masks what differs between two runs of the same command —
// wall times: "0.4 s", a JSON "…time…"/"…seconds…" value, and the cells of a
// table column headed "time s" — and the table layout that follows from
// them: runs of spaces and of rule characters become one, so a wider time
// cell that widens a column compares equal.
func Normalize(s string) string {
	s = maskTimeColumns(s)
	s = secondsRE.ReplaceAllString(s, "X$2")
	s = jsonTimeRE.ReplaceAllString(s, "${1}X")
	s = spacesRE.ReplaceAllString(s, " ")
	s = rulesRE.ReplaceAllString(s, "─")
	return strings.TrimRight(s, "\n")
}

// timeHeaders are the headers of table columns that hold wall times.
var timeHeaders = map[string]bool{"time s": true, "time (s)": true, "mean seconds": true}

// maskTimeColumns replaces the digits of the cells under a time header by X,
// in every row of that table (rows of │-separated cells with as many cells
// as the header).
func maskTimeColumns(s string) string {
	lines := strings.Split(s, "\n")
	col, width := -1, 0
	for i, l := range lines {
		cells := strings.Split(l, "│")
		if len(cells) < 3 {
			if !strings.HasPrefix(l, "├") { // a rule inside the table keeps it
				col = -1
			}
			continue
		}
		if col >= 0 && len(cells) == width {
			cells[col] = digitsRE.ReplaceAllString(cells[col], "X")
			lines[i] = strings.Join(cells, "│")
			continue
		}
		col = -1
		for k, c := range cells {
			if timeHeaders[strings.TrimSpace(c)] {
				col, width = k, len(cells)
			}
		}
	}
	return strings.Join(lines, "\n")
}

var digitsRE = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// SetOutput replaces the output of command c with out. The lines of the
// commands after it move: set outputs last to first.
func (d *Doc) SetOutput(c *Command, out string) {
	start := c.Line + 1
	end := start + len(c.Output)
	var lines []string
	if out != "" {
		lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	}
	indented := make([]string, len(lines))
	for k, l := range lines {
		indented[k] = c.Indent + l
	}
	d.Lines = append(d.Lines[:start:start], append(indented, d.Lines[end:]...)...)
	c.Output = lines
}

// SetDate rewrites the date of a measured block's marker.
func (d *Doc) SetDate(b *Block, date string) {
	b.Date = date
	d.Lines[b.MarkerLine] = b.Indent + "<!-- readme: measured " + date + " -->"
}

// String joins the lines back.
func (d *Doc) String() string { return strings.Join(d.Lines, "\n") }

// DatedClaim is a prose "(measured YYYY-MM-DD with `command`)".
type DatedClaim struct {
	Line    int // 1-based
	Date    string
	Command string
}

// DatedClaims is DatedClaimsIn of README.md.
func DatedClaims(text string, today time.Time) ([]DatedClaim, error) {
	return DatedClaimsIn("README.md", text, today)
}

// DatedClaimsIn finds the dated claims of text, the content of the file
// name, "measured YYYY-MM-DD with `command`" (line breaks allowed between
// the words), and checks their form: a real date, not after today. Errors
// name the file and line.
func DatedClaimsIn(name, text string, today time.Time) ([]DatedClaim, error) {
	var out []DatedClaim
	for _, m := range datedRE.FindAllStringSubmatchIndex(text, -1) {
		line := 1 + strings.Count(text[:m[0]], "\n")
		date, command := text[m[2]:m[3]], text[m[4]:m[5]]
		day, err := time.Parse(time.DateOnly, date)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: measured %s: not a date YYYY-MM-DD", name, line, date)
		}
		if day.After(today) {
			return nil, fmt.Errorf("%s:%d: measured %s is in the future", name, line, date)
		}
		out = append(out, DatedClaim{Line: line, Date: date, Command: command})
	}
	return out, nil
}

// Runner runs kerneltune with args and returns what it printed (standard
// output and standard error together) and its exit code.
type Runner func(args []string) (output string, code int)

// Result is one rerun command.
type Result struct {
	Block   *Block
	Cmd     *Command
	Output  string // what it prints now, through its filters
	Code    int    // exit code
	Changed bool   // Output differs from the pasted output beyond wall times
}

// Rerun runs the commands of the run blocks (and of the measured ones too
// when all is set), in README order, through run.
func (d *Doc) Rerun(run Runner, all bool) []Result {
	var out []Result
	for _, b := range d.Blocks {
		if b.Kind == Measured && !all {
			continue
		}
		for _, c := range b.Commands {
			o, code := run(c.Args)
			got := Apply(o, c.Filters)
			out = append(out, Result{
				Block: b, Cmd: c, Output: got, Code: code,
				Changed: Normalize(got) != Normalize(strings.Join(c.Output, "\n")),
			})
		}
	}
	return out
}

// Update pastes the output of every changed result into d, and dates the
// measured blocks that were rerun with today's date. It returns the number
// of outputs replaced.
func (d *Doc) Update(results []Result, today string) int {
	// Dates first: a new output moves the lines after it, markers included.
	seen := map[*Block]bool{}
	for _, r := range results {
		if r.Block.Kind == Measured && !seen[r.Block] {
			seen[r.Block] = true
			d.SetDate(r.Block, today)
		}
	}
	// Outputs last to first, so that each command's line is still right.
	n := 0
	for i := len(results) - 1; i >= 0; i-- {
		if results[i].Changed {
			d.SetOutput(results[i].Cmd, results[i].Output)
			n++
		}
	}
	return n
}
