package dataio

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// Sentinel errors. Readers wrap them in a *ParseError (or return them wrapped
// with the file name), so test with errors.Is.
var (
	// ErrEmpty: the input holds no data rows.
	ErrEmpty = errors.New("no data rows")
	// ErrOneClass: all rows carry the same label.
	ErrOneClass = errors.New("only one class")
	// ErrTooManyClasses: more than two distinct labels.
	ErrTooManyClasses = errors.New("more than two classes")
	// ErrNotNumber: a value that should be a number is not one.
	ErrNotNumber = errors.New("not a number")
	// ErrNotFinite: a value is NaN or ±Inf.
	ErrNotFinite = errors.New("not a finite number")
	// ErrMissing: a missing-value marker ("?", "NA" or an empty field).
	ErrMissing = errors.New("missing value")
	// ErrRagged: a row has a different number of fields from the first row.
	ErrRagged = errors.New("wrong number of fields")
	// ErrIndex: a bad LIBSVM feature index (not ≥ 1, not ascending, too large).
	ErrIndex = errors.New("bad feature index")
	// ErrUnknownLabel: a label outside a fixed label mapping (e.g. a test file
	// with a class the training file does not have).
	ErrUnknownLabel = errors.New("unknown label")
	// ErrTooLarge: the dense matrix the file describes would be too large.
	ErrTooLarge = errors.New("data too large")
	// ErrNotText: the bytes are not UTF-8 text with \n or \r\n line ends
	// (a compressed or binary file, UTF-16, lone-CR line ends).
	ErrNotText = errors.New("not a text file")
)

// ParseError is a problem at a place in an input file. Line and Col are
// 1-based; Col is the field (token) number on the line, 0 when the problem is
// the whole line, and Line is 0 when the problem is the whole file (for
// example only one class). Its message reads like a compiler's:
//
//	heart.csv:12:3: "abc" is not a number
type ParseError struct {
	File string
	Line int
	Col  int
	Err  error
}

func (e *ParseError) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos += ":" + strconv.Itoa(e.Line)
		if e.Col > 0 {
			pos += ":" + strconv.Itoa(e.Col)
		}
	}
	return pos + ": " + e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// valueError is a message about a value that still matches a sentinel.
type valueError struct {
	msg string
	err error
}

func (e *valueError) Error() string { return e.msg }
func (e *valueError) Unwrap() error { return e.err }

// errf builds an error with a formatted message that wraps sentinel.
func errf(sentinel error, format string, a ...any) error {
	return &valueError{msg: fmt.Sprintf(format, shortArgs(format, a)...), err: sentinel}
}

// errh builds an error whose message is the Text of parts (hint.Text: the
// read options it suggests are hint.Settings) and that wraps sentinel.
func errh(sentinel error, parts ...any) error { return hint.Errorf(sentinel, parts...) }

// textf is fmt.Sprintf with the quoted strings cut as errf cuts them.
func textf(format string, a ...any) string { return fmt.Sprintf(format, shortArgs(format, a)...) }

// maxQuoted bounds the bytes of a value that a message quotes (%q): a
// malformed token of megabytes is cut, not echoed whole.
const maxQuoted = 80

// shortArgs returns a with every string that format quotes (%q) and that
// is longer than maxQuoted cut to it (on a UTF-8 boundary), marked with
// "…" and its length.
func shortArgs(format string, a []any) []any {
	var out []any
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.", format[j]) >= 0 {
			j++
		}
		if j == len(format) || format[j] == '%' {
			i = j
			continue
		}
		if s, ok := argString(a, arg); ok && format[j] == 'q' && len(s) > maxQuoted {
			if out == nil {
				out = append([]any(nil), a...)
			}
			cut := maxQuoted
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			out[arg] = fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
		}
		arg++
		i = j
	}
	if out == nil {
		return a
	}
	return out
}

func argString(a []any, i int) (string, bool) {
	if i >= len(a) {
		return "", false
	}
	s, ok := a[i].(string)
	return s, ok
}

func perr(file string, line, col int, err error) *ParseError {
	return &ParseError{File: file, Line: line, Col: col, Err: err}
}

// SparseError is an operation on dense rows only (Op: "one-hot encoding")
// asked of sparse data (Dataset.Sparse: Rows × Features in compressed
// rows, read from Source), which it refuses rather than densify.
type SparseError struct {
	Op, Source     string
	Rows, Features int
}

func (e *SparseError) Error() string {
	return fmt.Sprintf("%s works on dense rows: %s holds %d rows × %d features in compressed rows (sparse data)", e.Op, e.Source, e.Rows, e.Features)
}
