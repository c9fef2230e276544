package dataio

// The records of a delimited file, read by encoding/csv: RFC 4180 quoting,
// a quoted field may hold the delimiter, doubled quotes and line breaks.
// Fields are trimmed of the blanks around them (not of those inside
// quotes), blank lines and lines whose first non-blank is '#' are skipped,
// and each record keeps the line it starts on, for errors. A file
// delimited by runs of white space is read line by line (strings.Fields),
// without quotes, as before.

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// csvRecords are the content records of a delimited file: rows[i] its
// fields, lines[i] the line it starts on (1-based).
type csvRecords struct {
	rows  [][]string
	lines []int
	delim byte
}

// csvScanner reads a file's records one at a time (next), with the
// delimiter delim: encoding/csv's reader, or for whitespace the file's
// content lines split at runs of blanks.
type csvScanner struct {
	data  []byte // without a UTF-8 byte-order mark
	delim byte
	r     *csv.Reader
	cur   lineCursor
	// whitespace-delimited files: their content lines, and the next one
	ws   []textLine
	wsAt int
}

func newCSVScanner(data []byte, delim byte) *csvScanner {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	s := &csvScanner{data: data, delim: delim, cur: lineCursor{data: data, line: 1}}
	if delim == whitespace {
		s.ws = textLines(data, '#', false, -1)
		return s
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.Comment = rune(delim), '#'
	r.FieldsPerRecord = -1             // a ragged row is ErrRagged, worded here
	r.TrimLeadingSpace = delim != '\t' // blanks before a field, but not a tab between tab-delimited fields
	s.r = r
	return s
}

// next returns the next content record and the line it starts on; io.EOF
// after the last. A quoting error is a *ParseError naming the line.
func (s *csvScanner) next(name string) ([]string, int, error) {
	if s.r == nil {
		if s.wsAt >= len(s.ws) {
			return nil, 0, io.EOF
		}
		l := s.ws[s.wsAt]
		s.wsAt++
		return strings.Fields(l.text), l.num, nil
	}
	for {
		rec, err := s.r.Read()
		if err != nil {
			return nil, 0, s.quoteError(name, err)
		}
		line, _ := s.r.FieldPos(0)
		if s.blankOrComment(rec) {
			continue
		}
		for j, f := range rec {
			if t := strings.TrimSpace(f); len(t) != len(f) && !s.quoted(j) {
				rec[j] = t
			}
		}
		return rec, line, nil
	}
}

// blankOrComment reports whether rec is a line encoding/csv does not skip
// but the reader does: one of blanks only, or one whose first non-blank
// is '#' (a comment indented by blanks), its first field unquoted.
func (s *csvScanner) blankOrComment(rec []string) bool {
	t := strings.TrimSpace(rec[0])
	if !(len(rec) == 1 && t == "" || strings.HasPrefix(t, "#")) {
		return false
	}
	return !s.quoted(0)
}

// quoted reports whether field j of the record just read was quoted: its
// first byte in the file is a quote.
func (s *csvScanner) quoted(j int) bool {
	line, col := s.r.FieldPos(j)
	at := s.cur.start(line) + col - 1
	return at >= 0 && at < len(s.data) && s.data[at] == '"'
}

// quoteError words encoding/csv's error as the reader's: a *ParseError
// naming the line (io.EOF is returned as it is).
func (s *csvScanner) quoteError(name string, err error) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	switch {
	case errors.Is(pe.Err, csv.ErrQuote) && s.r.InputOffset() >= int64(len(s.data)):
		return perr(name, pe.StartLine, 0, fmt.Errorf("unterminated quoted field: the quote opened on line %d is not closed before the end of the file", pe.StartLine))
	case errors.Is(pe.Err, csv.ErrQuote):
		return perr(name, pe.Line, 0, fmt.Errorf("text after the closing quote of a quoted field, at byte %d of the line (a quote inside a quoted field is written twice: \"\")", pe.Column))
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return perr(name, pe.Line, 0, fmt.Errorf("a quote inside an unquoted field, at byte %d of the line: quote the whole field and write the quote twice inside it", pe.Column))
	}
	return perr(name, pe.Line, 0, pe.Err)
}

// lineCursor finds the offset of a line's first byte in data, moving
// forward only (the records are read in order).
type lineCursor struct {
	data      []byte
	line, off int // off is where line (1-based) starts
}

func (c *lineCursor) start(line int) int {
	for c.line < line {
		i := bytes.IndexByte(c.data[c.off:], '\n')
		if i < 0 {
			break
		}
		c.off += i + 1
		c.line++
	}
	return c.off
}

// countContentLines counts data's content lines as contentLines does
// (not blank, not a '#' comment), without holding them: a delimited
// file's rows before they are read, for the memory bound.
func countContentLines(data []byte) int {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	n := 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			n++
		}
	}
	return n
}

// firstRecords returns up to k content records of data read with delim
// (an error when they cannot be read so).
func firstRecords(data []byte, delim byte, k int) ([][]string, error) {
	s := newCSVScanner(data, delim)
	var out [][]string
	for len(out) < k {
		rec, _, err := s.next("")
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// detectDelimiter picks the CSV delimiter from the first records: among
// comma, tab and semicolon, the one that splits every sampled record
// into the same number (≥ 2) of fields, preferring more fields; else the
// candidate most frequent on the first content line (so a ragged row is
// reported as such); else runs of white space.
func detectDelimiter(data []byte) byte {
	best, bestN := byte(0), 1
	for _, c := range []byte{',', '\t', ';'} {
		recs, err := firstRecords(data, c, 20)
		n := -1
		for _, f := range recs {
			if len(f) < 2 || (n >= 0 && len(f) != n) {
				n = -2
				break
			}
			n = len(f)
		}
		if err == nil && n > bestN {
			best, bestN = c, n
		}
	}
	if best != 0 {
		return best
	}
	mostC, most := byte(whitespace), 0
	if first := textLines(data, '#', false, 1); len(first) > 0 {
		for _, c := range []byte{',', '\t', ';'} {
			if k := strings.Count(first[0].text, string(c)); k > most {
				mostC, most = c, k
			}
		}
	}
	return mostC
}

// csvDelimiter is the delimiter of data read with opts: the given one, or
// the detected one.
func csvDelimiter(data []byte, opts ReadOptions) byte {
	delim, _ := delimiterOf(opts.Delimiter)
	if delim == 0 {
		delim = detectDelimiter(data)
	}
	return delim
}

// readCSVRecords reads every content record of data, after checking the
// memory bound on the content lines and the first record's fields (before
// the rows are held). A record of another number of fields than the first
// is an ErrRagged *ParseError.
func readCSVRecords(data []byte, name string, opts ReadOptions) (*csvRecords, error) {
	rowsBound := countContentLines(data)
	if rowsBound == 0 {
		return nil, perr(name, 0, 0, ErrEmpty)
	}
	delim := csvDelimiter(data, opts)
	s := newCSVScanner(data, delim)
	first, firstLine, err := s.next(name)
	if err == io.EOF {
		return nil, perr(name, 0, 0, ErrEmpty)
	} else if err != nil {
		return nil, err
	}
	ncol := len(first)
	if err := checkReadCost(name, opts, int64(len(data)), rowsBound, ncol, 0, csvFeatures(ncol, opts), -1); err != nil {
		return nil, err
	}
	t := &csvRecords{rows: make([][]string, 1, rowsBound), lines: make([]int, 1, rowsBound), delim: delim}
	t.rows[0], t.lines[0] = first, firstLine
	for i := 1; ; i++ {
		if err := opts.interrupted(i); err != nil {
			return nil, err
		}
		fields, line, err := s.next(name)
		if err == io.EOF {
			return t, nil
		} else if err != nil {
			return nil, err
		}
		if len(fields) != ncol {
			return nil, perr(name, line, 0, errf(ErrRagged, "%d fields, want %d as on line %d (delimiter %s)", len(fields), ncol, firstLine, delimName(delim)))
		}
		t.rows, t.lines = append(t.rows, fields), append(t.lines, line)
	}
}
