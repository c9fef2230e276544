package model

import (
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

// Save writes the model as indented JSON.
func (m *Model) Save(w io.Writer) error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	c := *m
	sum, err := contentSum(m)
	if err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	c.Checksum = sum
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	if _, err := w.Write(compactNumberArrays(buf.Bytes())); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
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

// SaveFile writes the model to path (created or replaced). The model is
// validated and encoded before the file is written, and it is written
// atomically (outfile.WriteFile: a temporary file renamed onto path), so
// that an invalid model, a full disk or a signal leaves an existing file
// untouched.
func (m *Model) SaveFile(path string) error {
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		return fmt.Errorf("save model %s: %w", path, errors.Unwrap(err))
	}
	if err := outfile.WriteFile(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
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
	var top map[string]json.RawMessage
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
// strings, where an n can begin nothing else): one pass over the bytes,
// where refuseNulls' token walk took half of loading a model of 1,355,191
// features (2.7 of 5.9 s).
func hasNull(raw []byte) bool {
	inString, escaped := false, false
	for _, c := range raw {
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
		case c == 'n':
			return true
		}
	}
	return false
}

// requireModelFields checks the fields of one model (the file's, or one
// pair or class of a multi-class model: "pairs[i]." its prefix), each pair
// as a binary model (issue 34: a pair's lost bias and rho were read as 0).
func requireModelFields(top map[string]json.RawMessage, prefix string, checksum bool) error {
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
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return fmt.Errorf("field %sprobability is not an object", prefix)
		}
		if err := hasKeys(obj, prefix+"probability.", "prob_a", "prob_b"); err != nil {
			return err
		}
	}
	if raw, ok := top["pairs"]; ok {
		var pairs []map[string]json.RawMessage
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
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(top[f.field], &obj); err != nil || obj == nil {
			return fmt.Errorf("field %s%s is not an object", prefix, f.field)
		}
		if err := hasKeys(obj, prefix+f.field+".", f.keys...); err != nil {
			return err
		}
	}
	var svs []map[string]json.RawMessage
	if err := json.Unmarshal(top["support_vectors"], &svs); err != nil || svs == nil {
		return fmt.Errorf("field %ssupport_vectors is not a list", prefix)
	}
	svKeys := []string{"coef", "x"}
	if string(top["sparse_support_vectors"]) == "true" {
		svKeys = []string{"coef", "index", "value"}
	}
	for i, sv := range svs {
		if err := hasKeys(sv, fmt.Sprintf("%ssupport_vectors[%d].", prefix, i), svKeys...); err != nil {
			return err
		}
	}
	return nil
}

// hasKeys returns an error naming the first of keys that obj lacks.
func hasKeys(obj map[string]json.RawMessage, prefix string, keys ...string) error {
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
