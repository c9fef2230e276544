package dataio

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// BuiltinPrefix starts the name of an embedded data set: "builtin:heart".
const BuiltinPrefix = "builtin:"

// Load reads a data set: "builtin:NAME" (see Builtins), an IDA set (a prefix
// such as data/banana or any of its four files), or a CSV, ARFF or LIBSVM file,
// the format detected from the name and content unless opts.Format is set.
// It sets Name, Source, Format, SHA256 (of the raw bytes), FeatureNames and
// Notes. Parse problems are *ParseError values naming the file and line.
func Load(path string, opts ReadOptions) (*Dataset, error) {
	return loadContext(context.Background(), path, opts)
}

// loadContext is Load stopped by ctx: a read of the file that blocks (a
// pipe) ends when ctx is done, and the parsing of a CSV, ARFF or LIBSVM
// file checks ctx every checkRows rows; either returns ctx's error.
func loadContext(ctx context.Context, path string, opts ReadOptions) (*Dataset, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if name, ok := strings.CutPrefix(path, BuiltinPrefix); ok {
		return loadBuiltin(name, opts)
	}
	if opts.Format == "ida" || ((opts.Format == "" || opts.Format == "auto") && isIDA(path)) {
		if opts.Storage == StorageSparse {
			return nil, &StorageError{Name: path, Format: "ida"}
		}
		return ReadIDA(path, opts)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, dirError(path)
	}
	if err := checkFileSize(path, opts); err != nil {
		return nil, err
	}
	data, err := readFileContext(ctx, path, MaxInputBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("read data: %w", err)
	}
	opts.ctx = ctx
	d, err := parseBytes(data, path, opts)
	if err != nil {
		return nil, err
	}
	d.Name = baseName(path)
	return d, nil
}

// LoadReader reads a CSV, ARFF or LIBSVM data set from r (standard input, say),
// named name in messages and Source. The format is detected from the content
// unless opts.Format is set; IDA sets need files (use Load).
func LoadReader(r io.Reader, name string, opts ReadOptions) (*Dataset, error) {
	return loadReader(context.Background(), r, name, opts)
}

// loadReader is LoadReader whose parsing ctx stops (loadContext); r itself
// is the caller's to stop (a command's standard input stops with it).
func loadReader(ctx context.Context, r io.Reader, name string, opts ReadOptions) (*Dataset, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if opts.Format == "ida" {
		return nil, fmt.Errorf("read %s: an IDA set is four files; give its path", name)
	}
	data, err := ReadAllLimited(r, name, MaxInputBytes)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	opts.ctx = ctx
	return readBytes(data, name, opts)
}

// readBytes parses data as Load does a file, naming it name.
func readBytes(data []byte, name string, opts ReadOptions) (*Dataset, error) {
	d, err := parseBytes(data, name, opts)
	if err != nil {
		return nil, err
	}
	d.Name = baseName(name)
	return d, nil
}

// parseBytes parses a CSV or LIBSVM file held in memory and sets Source and
// SHA256.
func parseBytes(data []byte, path string, opts ReadOptions) (*Dataset, error) {
	if err := checkText(data); err != nil {
		return nil, perr(path, 0, 0, err)
	}
	format := opts.Format
	if format == "" || format == "auto" {
		format = DetectFormat(path, data)
	}
	if opts.Storage == StorageSparse && format != "libsvm" {
		return nil, &StorageError{Name: path, Format: format}
	}
	var (
		d   *Dataset
		err error
	)
	switch format {
	case "libsvm":
		d, err = parseLIBSVM(data, path, opts)
	case "arff":
		d, err = parseARFF(data, path, opts)
	default:
		d, err = parseCSV(data, path, opts)
	}
	if err == nil {
		err = opts.interrupted(0)
	}
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	d.SHA256 = hex.EncodeToString(sum[:])
	d.Source = path
	setScheme(d, opts)
	return d, nil
}

// setScheme records opts.Multiclass in multi-class data d (Multiclass):
// one-vs-one is the zero value.
func setScheme(d *Dataset, opts ReadOptions) {
	if d.MultiClass() && opts.Multiclass == OneVsRest {
		d.Multiclass = OneVsRest
	}
}

// checkText recognises bytes that no reader can take line by line, so the
// error names the real problem instead of a "not a number" in line 1 or 2:
// UTF-16, binary data (a gzip or zip file: a NUL byte), and lines ended by a
// lone \r (classic Mac), which would read as one long line.
func checkText(data []byte) error {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return errf(ErrNotText, "the file is UTF-16 text (it starts with a UTF-16 byte-order mark): save it as UTF-8")
	}
	head := data[:min(len(data), 8192)]
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return errf(ErrNotText, "not a text file (a NUL byte at offset %d): CSV or LIBSVM text is needed; decompress a .gz or .zip file, export a spreadsheet as CSV", i)
	}
	if !bytes.Contains(data, []byte{'\n'}) {
		if i := bytes.IndexByte(data, '\r'); i >= 0 && i < len(bytes.TrimRight(data, "\r"))-1 {
			return errf(ErrNotText, "lines end in a lone carriage return (\\r, classic Mac): convert the line ends to \\n")
		}
	}
	return nil
}

// DetectFormat guesses "csv", "arff" or "libsvm" from a file name and its
// content: .csv and .tsv are CSV, .arff ARFF, .libsvm and .svm LIBSVM;
// otherwise a file is ARFF when its first line (after % comments) is an ARFF
// keyword such as @relation, LIBSVM
// when, on its first content lines, every token after the first is
// index:value and some line has such a token. A line whose first token is
// index:value too (LIBSVM without labels, see ReadOptions.Unlabeled) counts
// as such a line.
func DetectFormat(path string, data []byte) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv", ".tsv":
		return "csv"
	case ".libsvm", ".svm":
		return "libsvm"
	case ".arff":
		return "arff"
	}
	if isARFF(data) {
		return "arff"
	}
	sparse := false
	for _, l := range textLines(data, '#', false, 20) {
		f := strings.Fields(l.text)
		toks := f[1:]
		if isIndexValue(f[0]) {
			toks = f // no label
		}
		for _, tok := range toks {
			i := strings.IndexByte(tok, ':')
			if i <= 0 || i == len(tok)-1 {
				return "csv"
			}
			sparse = true
		}
		if len(f) == 1 && strings.ContainsAny(f[0], ",;") {
			return "csv"
		}
	}
	if sparse {
		return "libsvm"
	}
	return "csv"
}

// baseName is the file name without directory and data extension.
func baseName(path string) string {
	b := filepath.Base(path)
	switch strings.ToLower(filepath.Ext(b)) {
	case ".csv", ".tsv", ".txt", ".dat", ".data", ".libsvm", ".svm", ".asc", ".arff":
		b = strings.TrimSuffix(b, filepath.Ext(b))
	}
	return b
}

func loadBuiltin(name string, opts ReadOptions) (*Dataset, error) {
	b, ok := lookupBuiltin(name)
	if !ok {
		return nil, fmt.Errorf("unknown builtin data set %q (known: %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	data, err := builtinFS.ReadFile("builtin/" + b.File)
	if err != nil {
		return nil, fmt.Errorf("read builtin %s: %w", name, err)
	}
	if opts.Format == "csv" || opts.Format == "arff" || opts.Format == "ida" {
		return nil, fmt.Errorf("builtin %s is a LIBSVM file, not %s", name, opts.Format)
	}
	if opts.Unlabeled {
		return nil, fmt.Errorf("builtin %s is labelled; read it with its labels", name)
	}
	opts.Format = "libsvm"
	d, err := parseBytes(bytes.Clone(data), BuiltinPrefix+name, opts)
	if err != nil {
		return nil, err
	}
	d.Name = name
	d.Notes = append(d.Notes, hint.Texts(b.Notes)...)
	return d, nil
}

// dirError explains that DATA is a directory and names the IDA sets in it.
func dirError(dir string) error {
	matches, _ := filepath.Glob(filepath.Join(dir, "*"+idaSuffixes[0]))
	if len(matches) == 0 {
		return fmt.Errorf("%s is a directory; give a data file", dir)
	}
	var sets []string
	for _, m := range matches {
		p, _ := IDAPrefix(m)
		sets = append(sets, p)
	}
	return fmt.Errorf("%s is a directory; give a file or an IDA set in it: %s", dir, strings.Join(sets, ", "))
}
