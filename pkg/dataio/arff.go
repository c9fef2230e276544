package dataio

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// ARFF attribute types.
const (
	arffNumeric    = iota // numeric, integer, real
	arffNominal           // {a, b, c}
	arffString            // string
	arffDate              // date [format]
	arffRelational        // relational (multi-instance)
)

var arffTypeNames = [...]string{"numeric", "nominal", "string", "date", "relational"}

type arffAttr struct {
	name   string
	kind   int
	levels []string
	index  map[string]int // level → code
	line   int            // line of the @attribute declaration
}

// ReadARFF reads Weka's ARFF format: "@relation NAME", one "@attribute NAME
// TYPE" per column (TYPE numeric, integer, real, a nominal {a,b,c}, string
// or date), then "@data" and one row per line, comma-separated, or sparse
// "{index value, …}" with 0-based indices (omitted values are 0, or a
// nominal attribute's first category, as in Weka). Keywords are
// case-insensitive; '%' starts a comment line; values and names may be
// quoted with ' or " (backslash escapes inside); '?' is a missing value
// (ReadOptions.Missing). The class is the last attribute unless
// ReadOptions.LabelCol names another (by name or 1-based number). Nominal
// features are read as codes or refused (ReadOptions.Categorical); string
// and date attributes cannot be features: they are an error naming them.
// Like Load, it sets Name, Source and SHA256.
func ReadARFF(r io.Reader, name string, opts ReadOptions) (*Dataset, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	opts.Format = "arff"
	return readBytes(data, name, opts)
}

// arffLines returns the content lines of an ARFF file, trimmed: without a
// UTF-8 byte-order mark, \r of CRLF ends, blank lines and '%' comment lines.
func arffLines(data []byte) []textLine { return textLines(data, '%', true, -1) }

// isARFF reports whether the first content line of data is an ARFF
// keyword: @relation (or, for a fragment, @attribute or @data).
func isARFF(data []byte) bool {
	lines := arffLines(data[:min(len(data), 64<<10)])
	if len(lines) == 0 {
		return false
	}
	kw, _ := arffKeyword(lines[0].text)
	return kw == "@relation" || kw == "@attribute" || kw == "@data"
}

// arffKeyword splits "@keyword rest" into the lower-cased keyword and the
// rest ("" when the line does not start with '@').
func arffKeyword(s string) (kw, rest string) {
	if !strings.HasPrefix(s, "@") {
		return "", s
	}
	i := strings.IndexAny(s, " \t{")
	if i < 0 {
		return strings.ToLower(s), ""
	}
	return strings.ToLower(s[:i]), strings.TrimSpace(s[i:])
}

// arffToken reads one name or value from the start of s: quoted with ' or "
// (a backslash escapes the next character), or up to white space or one of
// the stop bytes. It returns the token, the rest and whether it was quoted.
func arffToken(s, stop string) (tok, rest string, quoted bool, err error) {
	s = strings.TrimLeft(s, " \t")
	if s == "" {
		return "", "", false, nil
	}
	if q := s[0]; q == '\'' || q == '"' {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s):
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[i])
				}
			case c == q:
				return b.String(), s[i+1:], true, nil
			default:
				b.WriteByte(c)
			}
		}
		return "", "", true, fmt.Errorf("unterminated quoted value %s", s)
	}
	i := strings.IndexAny(s, " \t"+stop)
	if i < 0 {
		return s, "", false, nil
	}
	return s[:i], s[i:], false, nil
}

// arffSplit splits s at commas outside quotes into trimmed fields, each
// unquoted; quoted reports which fields were quoted (a quoted '?' is a
// value, not a missing one).
func arffSplit(s string) (fields []string, quoted []bool, err error) {
	rest := s
	for {
		rest = strings.TrimLeft(rest, " \t")
		var tok string
		var q bool
		if rest != "" && (rest[0] == '\'' || rest[0] == '"') {
			tok, rest, q, err = arffToken(rest, ",")
			if err != nil {
				return nil, nil, err
			}
			rest = strings.TrimLeft(rest, " \t")
			if rest != "" && rest[0] != ',' {
				return nil, nil, fmt.Errorf("text %q after the closing quote of value %d", rest, len(fields)+1)
			}
		} else {
			i := strings.IndexByte(rest, ',')
			if i < 0 {
				tok, rest = strings.TrimSpace(rest), ""
			} else {
				tok, rest = strings.TrimSpace(rest[:i]), rest[i:]
			}
		}
		fields = append(fields, tok)
		quoted = append(quoted, q)
		if rest == "" {
			return fields, quoted, nil
		}
		rest = rest[1:] // the comma
	}
}

// parseARFFAttribute parses the text after "@attribute".
func parseARFFAttribute(rest string) (arffAttr, error) {
	name, rest, _, err := arffToken(rest, "{")
	if err != nil {
		return arffAttr{}, err
	}
	if name == "" {
		return arffAttr{}, errors.New("@attribute without a name")
	}
	a := arffAttr{name: name}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "{") {
		end := strings.LastIndexByte(rest, '}')
		if end < 0 {
			return a, fmt.Errorf("attribute %q: nominal values {…} without the closing }", name)
		}
		if tail := strings.TrimSpace(rest[end+1:]); tail != "" {
			return a, fmt.Errorf("attribute %q: text %q after the nominal values", name, tail)
		}
		levels, quoted, err := arffSplit(rest[1:end])
		if err != nil {
			return a, fmt.Errorf("attribute %q: %w", name, err)
		}
		if len(levels) == 1 && levels[0] == "" && !quoted[0] {
			levels = nil
		}
		for i, l := range levels {
			if l == "" && !quoted[i] && len(levels) > 1 {
				return a, fmt.Errorf("attribute %q: empty nominal value %d in {…} (a stray comma? quote it as '' if it is meant)", name, i+1)
			}
		}
		a.kind, a.levels, a.index = arffNominal, levels, make(map[string]int, len(levels))
		for i, l := range levels {
			if _, dup := a.index[l]; dup {
				return a, fmt.Errorf("attribute %q: nominal value %q declared twice", name, l)
			}
			a.index[l] = i
		}
		if len(levels) == 0 {
			return a, fmt.Errorf("attribute %q: no nominal values between { and }", name)
		}
		return a, nil
	}
	typ := ""
	if f := strings.Fields(rest); len(f) > 0 {
		typ = strings.ToLower(f[0])
	}
	switch typ {
	case "numeric", "integer", "real":
		a.kind = arffNumeric
	case "string":
		a.kind = arffString
	case "date":
		a.kind = arffDate
	case "relational":
		a.kind = arffRelational
	case "":
		return a, fmt.Errorf("attribute %q has no type (want numeric, integer, real, {a,b,…}, string or date)", name)
	default:
		return a, fmt.Errorf("attribute %q: unknown type %q (want numeric, integer, real, {a,b,…}, string or date)", name, typ)
	}
	return a, nil
}

// parseARFF reads an ARFF file: its header (arffHeader), the class and
// the features of its attributes (arffFeatures), and its data rows
// (arffData).
func parseARFF(data []byte, name string, opts ReadOptions) (*Dataset, error) {
	lines := arffLines(data)
	attrs, dataAt, err := arffHeader(lines, name)
	if err != nil {
		return nil, err
	}
	rows := lines[dataAt:]
	if len(rows) == 0 {
		return nil, perr(name, lines[dataAt-1].num, 0, errf(ErrEmpty, "no data rows after @data"))
	}
	l, err := arffFeatures(attrs, name, opts)
	if err != nil {
		return nil, err
	}
	if len(rows) > opts.maxCells()/max(l.d, 1) {
		return nil, perr(name, 0, 0, errf(ErrTooLarge, "%d rows × %d features exceed the limit of %d values", len(rows), l.d, opts.maxCells()))
	}
	if err := checkReadCost(name, opts, int64(len(data)), len(rows), 0, 0, l.d, -1); err != nil {
		return nil, err // a row's fields are held one row at a time
	}
	return arffData(rows, attrs, l, name, opts)
}

// arffHeader reads the declarations before @data: the attributes, and
// the index of the first line after @data.
func arffHeader(lines []textLine, name string) (attrs []arffAttr, dataAt int, err error) {
	dataAt = -1
	relation := false
	for i, l := range lines {
		kw, rest := arffKeyword(l.text)
		switch kw {
		case "@relation":
			if relation || len(attrs) > 0 {
				return nil, 0, perr(name, l.num, 0, errors.New("@relation must come once, before the attributes"))
			}
			relation = true
		case "@attribute":
			a, err := parseARFFAttribute(rest)
			if err != nil {
				return nil, 0, perr(name, l.num, 0, err)
			}
			if a.kind == arffRelational {
				return nil, 0, perr(name, l.num, 0, fmt.Errorf("attribute %q is relational (multi-instance data), which kerneltune does not read", a.name))
			}
			a.line = l.num
			attrs = append(attrs, a)
		case "@end":
			return nil, 0, perr(name, l.num, 0, errors.New("@end outside a relational attribute"))
		case "@data":
			if rest != "" {
				return nil, 0, perr(name, l.num, 0, fmt.Errorf("text %q after @data (rows start on the next line)", rest))
			}
			dataAt = i + 1
		default:
			return nil, 0, perr(name, l.num, 0, fmt.Errorf("%q before @data: want @relation, @attribute or @data (or a %% comment)", truncate(l.text, 40)))
		}
		if dataAt >= 0 {
			break
		}
	}
	if dataAt < 0 {
		return nil, 0, perr(name, 0, 0, errf(ErrEmpty, "no @data section"))
	}
	if len(attrs) == 0 {
		return nil, 0, perr(name, lines[dataAt-1].num, 0, errors.New("@data without any @attribute"))
	}
	return attrs, dataAt, nil
}

// arffLayout is which attribute is the class (labelCol, -1 unlabelled)
// and which are the d features: featureOf[j] is attribute j's feature
// (-1 for none), names their names, nominal the nominal ones.
type arffLayout struct {
	unlabeled   bool
	labelCol, d int
	featureOf   []int
	names       []string
	nominal     []NominalFeature
}

// arffFeatures resolves the class attribute and the features: a string
// or date feature is refused, and nominal ones without categorical=codes.
func arffFeatures(attrs []arffAttr, name string, opts ReadOptions) (*arffLayout, error) {
	l := &arffLayout{labelCol: -1, featureOf: make([]int, len(attrs))}
	l.unlabeled = opts.Unlabeled || (opts.AutoUnlabeled > 0 && opts.LabelCol == "" && len(attrs) == opts.AutoUnlabeled)
	if !l.unlabeled {
		names := make([]string, len(attrs))
		for j, a := range attrs {
			names[j] = a.name
		}
		var err error
		if l.labelCol, err = resolveLabelCol(opts.LabelCol, names, true, name); err != nil {
			return nil, err
		}
		if len(attrs) < 2 {
			return nil, perr(name, attrs[0].line, 0, errors.New("one attribute only: need at least one feature and the class"))
		}
	}
	for j, a := range attrs {
		l.featureOf[j] = -1
		if j == l.labelCol {
			continue
		}
		switch a.kind {
		case arffString, arffDate:
			how := hint.T("drop it from the file")
			if !l.unlabeled {
				how = append(how, ", or make it the class with ", hint.S("label-col", strconv.Itoa(j+1)))
			}
			return nil, perr(name, a.line, 0, errh(nil, append(hint.T(fmt.Sprintf("attribute %d %q is a %s attribute: kerneltune reads numeric and nominal features only (", j+1, a.name, arffTypeNames[a.kind])), append(how, ")")...)...))
		case arffNominal:
			l.nominal = append(l.nominal, NominalFeature{Index: len(l.names), Name: a.name, Levels: a.levels})
		}
		l.featureOf[j] = len(l.names)
		l.names = append(l.names, a.name)
	}
	l.d = len(l.names)
	if len(l.nominal) > 0 && opts.Categorical != "codes" {
		attrNo := func(nf NominalFeature) int {
			for j, k := range l.featureOf {
				if k == nf.Index {
					return j + 1
				}
			}
			return 0
		}
		a := attrs[attrNo(l.nominal[0])-1]
		return nil, perr(name, a.line, 0, errh(ErrNominal, "features must be numbers; "+strings.Replace(nominalList(l.nominal, attrNo), "column", "attribute", 1)+"; encode them with ", hint.S("categorical", "onehot")))
	}
	return l, nil
}

// arffData reads the data rows: each row's values (arffRow), a missing
// one an error or with missing=drop its row dropped, and the row's
// features and class (arffRowValues).
func arffData(rows []textLine, attrs []arffAttr, l *arffLayout, name string, opts ReadOptions) (*Dataset, error) {
	drop := opts.dropsMissing()
	missing := newMissingTally(len(attrs), func(j int) string { return attrs[j].name })
	x := make([]float64, 0, len(rows)*l.d)
	row := make([]float64, l.d)
	var labels rawLabels
	n := 0
	values := make([]string, len(attrs))
	quoted := make([]bool, len(attrs))
	given := make([]bool, len(attrs))
	for i, ln := range rows {
		if err := opts.interrupted(i); err != nil {
			return nil, err
		}
		if kw, _ := arffKeyword(ln.text); kw != "" {
			return nil, perr(name, ln.num, 0, fmt.Errorf("%s after @data", kw))
		}
		if err := arffRow(ln.text, attrs, values, quoted, given); err != nil {
			return nil, perr(name, ln.num, 0, err)
		}
		if drop && missing.row(func(j int) bool { return !quoted[j] && values[j] == "?" }) {
			continue
		}
		label, err := arffRowValues(row, attrs, l, values, quoted, given)
		if err != nil {
			return nil, perr(name, ln.num, err.col, err.err)
		}
		x = append(x, row...)
		n++
		if !l.unlabeled {
			labels.add(label, ln.num)
		}
	}
	return finishDataset(name, "arff", x, n, l.d, l.names, l.nominal, &labels, missing, l.unlabeled, opts)
}

// fieldError is an error in a row's field col (1-based).
type fieldError struct {
	col int
	err error
}

// arffRowValues fills row with the features of one data row's values and
// returns its class: a nominal value is its code, a value a sparse row
// omits (not given) 0 or a nominal attribute's first category, as in Weka.
func arffRowValues(row []float64, attrs []arffAttr, l *arffLayout, values []string, quoted, given []bool) (string, *fieldError) {
	label := ""
	for j, a := range attrs {
		v := values[j]
		if !quoted[j] && v == "?" {
			return "", &fieldError{j + 1, errh(ErrMissing, textf("missing value \"?\" of attribute %q (rows with missing values can be dropped: ", a.name), hint.S("missing", "drop"), ")")}
		}
		k := l.featureOf[j]
		if k < 0 {
			if j == l.labelCol {
				if a.kind == arffNominal && !given[j] && len(a.levels) > 0 {
					v = a.levels[0] // sparse row: omitted means the first category, as in Weka
				}
				if a.kind == arffNominal {
					if _, ok := a.index[v]; !ok {
						return "", &fieldError{j + 1, errf(ErrUnknownLabel, "class %q is not one of the declared values {%s} of attribute %q", v, strings.Join(a.levels, ","), a.name)}
					}
				}
				label = v
			}
			continue
		}
		switch {
		case !given[j]: // sparse row: omitted means 0, or the first category (code 0)
			row[k] = 0
		case a.kind == arffNominal:
			c, ok := a.index[v]
			if !ok {
				return "", &fieldError{j + 1, errf(ErrNotNumber, "%q is not one of the declared values {%s} of attribute %q", v, truncate(strings.Join(a.levels, ","), 80), a.name)}
			}
			row[k] = float64(c)
		default:
			f, err := parseValue(v)
			if err != nil {
				return "", &fieldError{j + 1, fmt.Errorf("%w (attribute %q is numeric)", err, a.name)}
			}
			row[k] = f
		}
	}
	return label, nil
}

// arffRow reads one data line into values (one per attribute), quoted and
// given (false for a value a sparse row omits).
func arffRow(s string, attrs []arffAttr, values []string, quoted, given []bool) error {
	if strings.HasPrefix(s, "{") {
		end := strings.LastIndexByte(s, '}')
		if end < 0 {
			return errors.New("sparse row without the closing }")
		}
		if tail := strings.TrimSpace(s[end+1:]); tail != "" && !strings.HasPrefix(tail, ",") {
			return fmt.Errorf("text %q after the sparse row's }", tail)
		} else if tail != "" {
			return errors.New("instance weights ({w} after a row) are not supported")
		}
		for j := range values {
			values[j], quoted[j], given[j] = "0", false, false
		}
		body := strings.TrimSpace(s[1:end])
		if body == "" {
			return nil
		}
		entries, _, err := arffSplitRaw(body)
		if err != nil {
			return err
		}
		last := -1
		for _, e := range entries {
			e = strings.TrimSpace(e)
			idxText, rest, _, _ := arffToken(e, "")
			idx, err := strconv.Atoi(idxText)
			if err != nil {
				return fmt.Errorf("sparse entry %q: want \"index value\" with a 0-based index", e)
			}
			if idx < 0 || idx >= len(attrs) {
				return fmt.Errorf("sparse index %d is out of range: %d attributes, indices 0…%d", idx, len(attrs), len(attrs)-1)
			}
			if idx <= last {
				return fmt.Errorf("sparse index %d after %d: indices must ascend", idx, last)
			}
			last = idx
			v, tail, q, err := arffToken(rest, "")
			if err != nil {
				return err
			}
			if strings.TrimSpace(tail) != "" || (v == "" && !q) {
				return fmt.Errorf("sparse entry %q: want \"index value\"", e)
			}
			values[idx], quoted[idx], given[idx] = v, q, true
		}
		return nil
	}
	fields, q, err := arffSplit(s)
	if err != nil {
		return err
	}
	if len(fields) == len(attrs)+1 && strings.HasPrefix(fields[len(fields)-1], "{") {
		return errors.New("instance weights ({w} after a row) are not supported")
	}
	if len(fields) != len(attrs) {
		return errf(ErrRagged, "%d values, want %d (one per @attribute)", len(fields), len(attrs))
	}
	for j := range fields {
		values[j], quoted[j], given[j] = fields[j], q[j], true
	}
	return nil
}

// arffSplitRaw splits s at commas outside quotes, keeping quotes, so a
// sparse entry "3 'a,b'" stays whole.
func arffSplitRaw(s string) ([]string, bool, error) {
	var out []string
	var q byte
	startAt := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0 && c == '\\':
			i++
		case q != 0 && c == q:
			q = 0
		case q == 0 && (c == '\'' || c == '"'):
			q = c
		case q == 0 && c == ',':
			out = append(out, s[startAt:i])
			startAt = i + 1
		}
	}
	if q != 0 {
		return nil, false, fmt.Errorf("unterminated quoted value in %q", truncate(s, 40))
	}
	return append(out, s[startAt:]), false, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
