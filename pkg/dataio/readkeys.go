package dataio

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ReadKeys are the read options as the command line's flags and a study
// file's keys name them; SetKey parses their values for both.
var ReadKeys = []string{"input-format", "header", "label-col", "positive", "classes", "categorical", "features", "missing", "multiclass", "storage"}

// ReadKeyError is a refused value of one of ReadKeys. Reason is worded
// without the key, which the caller names in its own words: the command
// line as the flag ("--missing: ..."), a study file as its file, line and
// key ("s.yaml:3: missing: ...").
type ReadKeyError struct {
	Key, Value, Reason string
}

func (e *ReadKeyError) Error() string { return e.Key + ": " + e.Reason }

// SetKey parses value, the text of the read option key (one of ReadKeys; a
// list's items joined by commas), into o. An empty value and "auto" are the
// default; the categorical setting "onehot" reads nominal features as
// "codes"; the multiclass setting "ovo", the default, is "" (a one-vs-one
// run keeps its id). It is the one parser of read options of the command
// line and study files; a bad value is a *ReadKeyError, and is left in o as
// given (a bad number of features as -1), so that reading with o anyway is
// refused too.
func (o *ReadOptions) SetKey(key, value string) error {
	bad := func(format string, a ...any) error {
		return &ReadKeyError{Key: key, Value: value, Reason: fmt.Sprintf(format, a...)}
	}
	// oneOf sets *field to value, or to what value stands for (as); a
	// refused value is set as given, which ReadOptions' own check refuses
	// should a caller read with it anyway.
	oneOf := func(field *string, noun string, allowed []string, as map[string]string) error {
		*field = value
		if v, ok := as[value]; ok {
			*field = v
		}
		if value == "" || slices.Contains(allowed, value) {
			return nil
		}
		return bad("unknown %s %q (want %s or %s)", noun, value, strings.Join(allowed[:len(allowed)-1], ", "), allowed[len(allowed)-1])
	}
	var err error
	switch key {
	case "input-format":
		err = oneOf(&o.Format, "format", []string{"auto", "csv", "arff", "libsvm", "ida"}, map[string]string{"auto": ""})
	case "header":
		err = oneOf(&o.Header, "setting", []string{"auto", "yes", "no"}, map[string]string{"auto": ""})
	case "label-col":
		o.LabelCol = value
	case "positive":
		o.Positive = value
	case "classes":
		o.Classes = nil
		if value != "" {
			o.Classes = strings.Split(value, ",")
		}
		if o.Classes != nil && (len(o.Classes) != 2 || o.Classes[0] == o.Classes[1]) {
			err = bad("want two different classes A,B, got %q", value)
		}
	case "categorical":
		err = oneOf(&o.Categorical, "setting", []string{"error", "onehot"}, map[string]string{"error": "", "onehot": "codes"})
	case "features":
		n, e := strconv.Atoi(cmp.Or(value, "0"))
		if e != nil || n < 0 {
			n, err = -1, bad("want a number ≥ 0, got %s", value)
		}
		o.Features = n
	case "missing":
		err = oneOf(&o.Missing, "policy", []string{"error", "drop"}, nil)
	case "storage":
		err = oneOf(&o.Storage, "storage", []string{StorageAuto, StorageDense, StorageSparse}, map[string]string{StorageAuto: ""})
	case "multiclass":
		err = oneOf(&o.Multiclass, "setting", []string{OneVsOne, OneVsRest}, map[string]string{OneVsOne: ""})
	default:
		err = bad("unknown read option (want one of %s)", strings.Join(ReadKeys, ", "))
	}
	return err
}

// CheckKeys checks the read options that depend on each other, as SetKey
// left them: Positive must be one of Classes (a *ReadKeyError of the key
// "positive").
func (o ReadOptions) CheckKeys() error {
	if len(o.Classes) == 2 && o.Positive != "" && !slices.Contains(o.Classes, o.Positive) {
		return &ReadKeyError{Key: "positive", Value: o.Positive, Reason: fmt.Sprintf("%q is not one of the classes %s", o.Positive, strings.Join(o.Classes, ","))}
	}
	return nil
}
