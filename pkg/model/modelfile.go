package model

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/outfile"
)

// Save writes the model as indented JSON, every array of numbers on one
// line (a support vector's point, a row of Q). The JSON is encoded once,
// compact, and indented as it streams to w (indenter): a model of 15.9 MB
// (ten classes of 778 features) took the indented text, its compacted copy
// and SaveFile's buffer at once, 77 MB beside the model, where now it takes
// the one compact encoding.
func (m *Model) Save(w io.Writer) error {
	c, err := m.checksummed()
	if err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(&indenter{w: bw})
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// checksummed validates m and returns a copy of it with its Checksum set:
// what Save writes.
func (m *Model) checksummed() (*Model, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	sum, err := contentSum(m)
	if err != nil {
		return nil, err
	}
	c := *m
	c.Checksum = sum
	return &c, nil
}

// indenter writes the compact JSON written to it as encoding/json's
// Encoder with SetIndent("", " ") would, with every array that holds only
// numbers then put on one line (the earlier Save's two passes over the
// whole text: saveRef in the tests, the same bytes), without holding
// either form whole. An array is held back from its '[' while it holds only
// numbers and commas; its ']' writes it on one line ("[1, -0.5]"),
// anything else writes it as any other array. Errors of w are w's
// (bufio.Writer keeps the first; Save's Flush returns it).
type indenter struct {
	w        *bufio.Writer
	depth    int
	need     bool // a container opened: its newline waits for its first element (none: "{}", "[]")
	inString bool
	escaped  bool
	array    []byte // a '[' and its numbers and commas so far, while pending
	pending  bool
}

func (in *indenter) Write(p []byte) (int, error) {
	for _, c := range p {
		in.put(c)
	}
	return len(p), nil
}

func (in *indenter) put(c byte) {
	if in.pending {
		switch {
		case c == ']':
			in.pending = false
			in.open()
			in.w.WriteByte('[')
			for k, f := range bytes.Split(in.array[1:], []byte(",")) {
				if k > 0 {
					in.w.WriteString(", ")
				}
				in.w.Write(f)
			}
			in.w.WriteByte(']')
			return
		case c == ',' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || '0' <= c && c <= '9':
			in.array = append(in.array, c)
			return
		}
		// Not an array of numbers: it opens as any container, and what
		// was held back after its '[' goes as usual.
		in.pending = false
		in.open()
		in.w.WriteByte('[')
		in.need = true
		for _, b := range in.array[1:] {
			in.plain(b)
		}
	}
	in.plain(c)
}

// open writes the newline and indent that wait for a container's first
// element.
func (in *indenter) open() {
	if in.need {
		in.need = false
		in.depth++
		in.newline()
	}
}

func (in *indenter) newline() {
	in.w.WriteByte('\n')
	for range in.depth {
		in.w.WriteByte(' ')
	}
}

// plain is encoding/json's appendIndent for one byte of compact JSON.
func (in *indenter) plain(c byte) {
	if in.inString {
		in.w.WriteByte(c)
		switch {
		case in.escaped:
			in.escaped = false
		case c == '\\':
			in.escaped = true
		case c == '"':
			in.inString = false
		}
		return
	}
	switch c {
	case '[':
		in.pending, in.array = true, append(in.array[:0], c)
	case '{':
		in.open()
		in.w.WriteByte(c)
		in.need = true
	case '}', ']':
		if in.need {
			in.need = false
		} else {
			in.depth--
			in.newline()
		}
		in.w.WriteByte(c)
	case ',':
		in.w.WriteByte(c)
		in.newline()
	case ':':
		in.w.WriteString(": ")
	case ' ', '\t', '\r', '\n':
		if in.depth == 0 && !in.need {
			in.w.WriteByte(c) // the Encoder's newline after the value
		}
	case '"':
		in.open()
		in.inString = true
		in.w.WriteByte(c)
	default:
		in.open()
		in.w.WriteByte(c)
	}
}

// SaveFile writes the model to path (created or replaced). The model is
// validated before the file is touched and written atomically
// (outfile.WriteFile: a temporary file renamed onto path), so that an
// invalid model, a full disk or a signal leaves an existing file untouched.
func (m *Model) SaveFile(path string) error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("save model %s: %w", path, err)
	}
	if err := outfile.WriteFile(path, m.Save); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// Load reads a model written by Save and validates it. A file of another
// format_version fails with ErrVersion, an inconsistent one with ErrInvalid.
func Load(r io.Reader) (*Model, error) {
	m, err := load(r)
	if err != nil {
		return nil, fmt.Errorf("read model: %w", err)
	}
	return m, nil
}

// MaxFileBytes bounds what LoadFile reads: a model of 100,000 support
// vectors of 100 features is some 100 MB; /dev/zero given as a model was
// read until the memory ran out. Tests lower it.
var MaxFileBytes int64 = 256 << 20

// LoadFile reads the model file at path; errors name the file.
func LoadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read model: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("read model %s: %w", path, &dataio.TooLargeError{Name: path, Limit: MaxFileBytes})
	}
	m, err := load(f)
	if err != nil {
		return nil, fmt.Errorf("read model %s: %w", path, err)
	}
	return m, nil
}

func load(r io.Reader) (*Model, error) {
	raw, err := dataio.ReadAllLimited(r, "the model", MaxFileBytes)
	if err != nil {
		return nil, err
	}
	// The version first, so that a future file fails with a clear message
	// rather than with whatever its new fields make of the v1 decoder.
	var head struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("%w: not a kerneltune model (%v)", ErrInvalid, jsonErr(err))
	}
	if head.FormatVersion == nil {
		return nil, fmt.Errorf("%w: not a kerneltune model (no format_version)", ErrInvalid)
	}
	if *head.FormatVersion < 1 || *head.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("%w %d (this kerneltune reads %s)", ErrVersion, *head.FormatVersion, readsVersions)
	}
	m := new(Model)
	if err := json.Unmarshal(raw, m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, jsonErr(err))
	}
	if err := requireFields(raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := m.prepare(); err != nil {
		return nil, err
	}
	return m, nil
}

// requireFields checks that a model file has every field the writer always
// writes, so that a lost one is refused rather than read as zero (a bias of
// 0, no support vectors). "normalizer" (null for none) is required of the
// files that carry a checksum: older writers left it out for none.
func requireFields(raw []byte) error {
	var top map[string]rawRef
	if err := json.Unmarshal(raw, &top); err != nil {
		return err
	}
	_, checksum := top["checksum"]
	if err := requireModelFields(top, "", checksum); err != nil {
		return err
	}
	return refuseNulls(raw)
}

// refuseNulls refuses a null anywhere in a model file but where the writer
// writes one ("normalizer": null, a model without one) and inside the
// tuning result, which nothing predicts with: encoding/json reads a null
// into a number as 0, so a coefficient, a support vector's value, a
// normaliser's shift or a sigmoid's A edited to null was applied as 0 by a
// model without a checksum (issue 42). The field is named by its path.
func refuseNulls(raw []byte) error {
	if !hasNull(raw) {
		return nil // the token walk below names the field; without a null there is none to name
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type level struct {
		object bool
		key    string // the last key of an object
		index  int    // the next index of an array
	}
	var stack []level
	path := func() string {
		var b strings.Builder
		for i, l := range stack {
			switch {
			case l.object && i > 0:
				b.WriteString("." + l.key)
			case l.object:
				b.WriteString(l.key)
			default:
				fmt.Fprintf(&b, "[%d]", l.index-1)
			}
		}
		return b.String()
	}
	expectKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			expectKey = len(stack) > 0 && stack[len(stack)-1].object
			continue
		}
		if expectKey {
			stack[len(stack)-1].key = tok.(string)
			expectKey = false
			if k := tok.(string); k == "tuning" && len(stack) == 1 {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
				expectKey = true
			}
			continue
		}
		// A value: in an array it takes the next index.
		if n := len(stack); n > 0 && !stack[n-1].object {
			stack[n-1].index++
		}
		switch d, _ := tok.(json.Delim); {
		case tok == nil && (len(stack) == 0 || !stack[len(stack)-1].object || stack[len(stack)-1].key != "normalizer"):
			return fmt.Errorf("field %s is null, not a value (every model file kerneltune writes has one; it would be read as 0)", path())
		case d == '{':
			stack = append(stack, level{object: true})
			expectKey = true
			continue
		case d == '[':
			stack = append(stack, level{})
			continue
		}
		expectKey = len(stack) > 0 && stack[len(stack)-1].object
	}
}

// hasNull reports whether the JSON text raw holds a null literal (outside
// strings, where an n can begin nothing else) other than the value of a
// key "normalizer", which the writer writes for a model without one: one
// pass over the bytes, where refuseNulls' token walk took half of loading
// a model of 1,355,191 features (2.7 of 5.9 s), and 1.6 s of loading a
// 15.9 MB model trained with --normalize none, whose one null is its
// normalizer's.
func hasNull(raw []byte) bool {
	inString, escaped := false, false
	for i, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == 'n' && !normalizerValue(raw[:i]):
			return true
		}
	}
	return false
}

// normalizerValue reports whether what precedes a value, before, ends in
// the key "normalizer" and its colon, the key opening a member ('{' or ','
// before it, so that the quote is not an escaped one inside a string).
func normalizerValue(before []byte) bool {
	b := bytes.TrimRight(before, " \t\r\n")
	b, ok := bytes.CutSuffix(b, []byte(":"))
	if !ok {
		return false
	}
	b, ok = bytes.CutSuffix(bytes.TrimRight(b, " \t\r\n"), []byte(`"normalizer"`))
	if !ok {
		return false
	}
	b = bytes.TrimRight(b, " \t\r\n")
	return len(b) > 0 && (b[len(b)-1] == '{' || b[len(b)-1] == ',')
}

// requireModelFields checks the fields of one model (the file's, or one
// pair or class of a multi-class model: "pairs[i]." its prefix), each pair
// as a binary model (issue 34: a pair's lost bias and rho were read as 0).
func requireModelFields(top map[string]rawRef, prefix string, checksum bool) error {
	need := []string{"kernel", "margin", "C", "labels", "num_features", "bias", "support_vectors", "training", "provenance"}
	if checksum {
		need = append(need, "normalizer")
	}
	if _, ok := top["classes"]; ok {
		need = append(need, "pairs")
	}
	if err := hasKeys(top, prefix, need...); err != nil {
		return err
	}
	if raw, ok := top["probability"]; ok {
		var obj map[string]rawRef
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return fmt.Errorf("field %sprobability is not an object", prefix)
		}
		if err := hasKeys(obj, prefix+"probability.", "prob_a", "prob_b"); err != nil {
			return err
		}
	}
	if raw, ok := top["pairs"]; ok {
		var pairs []map[string]rawRef
		if err := json.Unmarshal(raw, &pairs); err != nil {
			return fmt.Errorf("field %spairs is not a list of models", prefix)
		}
		for i, p := range pairs {
			if p == nil {
				return fmt.Errorf("field %spairs[%d] is not a model", prefix, i)
			}
			if err := requireModelFields(p, fmt.Sprintf("%spairs[%d].", prefix, i), checksum); err != nil {
				return err
			}
		}
	}
	sub := []struct {
		field string
		keys  []string
	}{
		{"labels", []string{"positive", "negative"}},
		{"training", []string{"n", "n_pos", "n_sv", "n_bsv", "obj", "rho", "w2", "iter", "status", "eps"}},
		{"kernel", []string{"kind"}},
	}
	for _, f := range sub {
		var obj map[string]rawRef
		if err := json.Unmarshal(top[f.field], &obj); err != nil || obj == nil {
			return fmt.Errorf("field %s%s is not an object", prefix, f.field)
		}
		if err := hasKeys(obj, prefix+f.field+".", f.keys...); err != nil {
			return err
		}
	}
	// A support vector's fields are only noted as present (svFields), not
	// copied: a map of copies per support vector took 53 of the 70 MB
	// that predict held loading a 15.9 MB model.
	var svs []svFields
	if err := json.Unmarshal(top["support_vectors"], &svs); err != nil || svs == nil {
		return fmt.Errorf("field %ssupport_vectors is not a list", prefix)
	}
	sparse := string(top["sparse_support_vectors"]) == "true"
	for i, sv := range svs {
		var missing string
		switch {
		case !bool(sv.Coef):
			missing = "coef"
		case !sparse && !bool(sv.X):
			missing = "x"
		case sparse && !bool(sv.Index):
			missing = "index"
		case sparse && !bool(sv.Value):
			missing = "value"
		default:
			continue
		}
		return fmt.Errorf("no field %ssupport_vectors[%d].%s (every model file has one)", prefix, i, missing)
	}
	return nil
}

// rawRef is a JSON value's text within the buffer being decoded, not a
// copy (json.RawMessage copies): requireFields keeps it only while it
// reads that buffer.
type rawRef []byte

// UnmarshalJSON keeps b, a slice of requireFields' buffer.
func (r *rawRef) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// present notes that a field is there, whatever its value (a null too:
// refuseNulls refuses those).
type present bool

// UnmarshalJSON sets p.
func (p *present) UnmarshalJSON([]byte) error {
	*p = true
	return nil
}

// svFields are the fields of a support vector that a model file must
// have: coef and x, or coef, index and value (sparse). Like the decoding
// of the model itself, the names match regardless of case.
type svFields struct {
	Coef  present `json:"coef"`
	X     present `json:"x"`
	Index present `json:"index"`
	Value present `json:"value"`
}

// hasKeys returns an error naming the first of keys that obj lacks.
func hasKeys(obj map[string]rawRef, prefix string, keys ...string) error {
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			return fmt.Errorf("no field %s%s (every model file has one)", prefix, k)
		}
	}
	return nil
}

// ChecksumError is a model whose content does not match its checksum (the
// file was edited after kerneltune wrote it), or that has none.
type ChecksumError struct{ Missing bool }

func (e *ChecksumError) Error() string {
	if e.Missing {
		return "the model has no checksum (written by a kerneltune before checksums, or edited): an edit cannot be told"
	}
	return "the model's content does not match its checksum: the file was edited after kerneltune wrote it"
}

// ChecksumStatus is Verify's answer in one word, as predict's JSON output
// gives it: "ok", "missing" or "mismatch".
func (m *Model) ChecksumStatus() string {
	var ce *ChecksumError
	switch err := m.Verify(); {
	case err == nil:
		return "ok"
	case errors.As(err, &ce) && ce.Missing:
		return "missing"
	}
	return "mismatch"
}

// CheckChecksum applies the checksum policy of predict: a model whose
// content does not match its checksum (edited after kerneltune wrote it) is
// an error unless ignore, whatever else is asked; one without a checksum
// (written before them) is an error with strict. What is not an error is
// returned as warn (nil for a model that matches).
func (m *Model) CheckChecksum(ignore, strict bool) (warn, err error) {
	status, v := m.ChecksumStatus(), m.Verify()
	switch {
	case status == "mismatch" && !ignore:
		return nil, hint.Errorf(v, v, "; pass ", hint.S("ignore-checksum", ""), " to apply it anyway")
	case status != "ok" && strict:
		return nil, hint.Errorf(v, v, " (", hint.S("strict", ""), ")")
	}
	return v, nil
}

// Verify checks the model's content against its checksum (Checksum, written
// by Save): nil when they match, a *ChecksumError when they do not or the
// model has none. A model that passes Validate but fails Verify is
// consistent, but not what kerneltune wrote.
func (m *Model) Verify() error {
	if m.Checksum == "" {
		return &ChecksumError{Missing: true}
	}
	sum, err := contentSum(m)
	if err != nil {
		return err
	}
	if sum != m.Checksum {
		return &ChecksumError{}
	}
	return nil
}

// contentSum returns "sha256:" and the hex SHA-256 of m's compact JSON with
// Checksum empty.
func contentSum(m *Model) (string, error) {
	c := *m
	c.Checksum = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:]), nil
}

// jsonErr makes encoding/json's errors read as "field X: ..." where it can.
func jsonErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %s: %v is not a %v", te.Field, te.Value, te.Type)
	}
	return err.Error()
}
