package dataio

import (
	"errors"
	"reflect"
	"testing"
)

// SetKey is the one parser of read options: each key's text becomes its
// field, "auto" and "" are the defaults, and a bad value is a
// *ReadKeyError naming the key with the reason the command line and study
// files both print.
func TestSetKey(t *testing.T) {
	t.Parallel()
	ok := []struct {
		key, value string
		want       ReadOptions
	}{
		{"input-format", "auto", ReadOptions{}},
		{"input-format", "arff", ReadOptions{Format: "arff"}},
		{"header", "auto", ReadOptions{}},
		{"header", "no", ReadOptions{Header: "no"}},
		{"label-col", "7", ReadOptions{LabelCol: "7"}},
		{"positive", "M", ReadOptions{Positive: "M"}},
		{"classes", "a,b", ReadOptions{Classes: []string{"a", "b"}}},
		{"classes", "", ReadOptions{}},
		{"categorical", "onehot", ReadOptions{Categorical: "codes"}},
		{"categorical", "error", ReadOptions{}},
		{"features", "123", ReadOptions{Features: 123}},
		{"features", "", ReadOptions{}},
		{"missing", "drop", ReadOptions{Missing: "drop"}},
		{"missing", "error", ReadOptions{Missing: "error"}},
		{"multiclass", "ovr", ReadOptions{Multiclass: OneVsRest}},
		{"multiclass", "ovo", ReadOptions{}},
		{"storage", "auto", ReadOptions{}},
		{"storage", "dense", ReadOptions{Storage: StorageDense}},
		{"storage", "sparse", ReadOptions{Storage: StorageSparse}},
	}
	for _, c := range ok {
		var o ReadOptions
		if err := o.SetKey(c.key, c.value); err != nil || !reflect.DeepEqual(o, c.want) {
			t.Errorf("SetKey(%s, %q): %+v, %v; want %+v", c.key, c.value, o, err, c.want)
		}
		if err := o.check(); err != nil {
			t.Errorf("SetKey(%s, %q) made options dataio refuses: %v", c.key, c.value, err)
		}
	}
	bad := []struct{ key, value, want string }{
		{"input-format", "xml", `unknown format "xml" (want auto, csv, arff, libsvm or ida)`},
		{"header", "maybe", `unknown setting "maybe" (want auto, yes or no)`},
		{"classes", "a", `want two different classes A,B, got "a"`},
		{"classes", "a,a", `want two different classes A,B, got "a,a"`},
		{"classes", "a,b,c", `want two different classes A,B, got "a,b,c"`},
		{"categorical", "ordinal", `unknown setting "ordinal" (want error or onehot)`},
		{"features", "-1", "want a number ≥ 0, got -1"},
		{"features", "99999999999999999999", "want a number ≥ 0, got 99999999999999999999"},
		{"missing", "skip", `unknown policy "skip" (want error or drop)`},
		{"multiclass", "ova", `unknown setting "ova" (want ovo or ovr)`},
		{"storage", "csr", `unknown storage "csr" (want auto, dense or sparse)`},
		{"delimiter", ",", "unknown read option (want one of input-format, header, label-col, positive, classes, categorical, features, missing, multiclass, storage)"},
	}
	for _, c := range bad {
		var o ReadOptions
		err := o.SetKey(c.key, c.value)
		var ke *ReadKeyError
		if !errors.As(err, &ke) || ke.Key != c.key || ke.Value != c.value || ke.Reason != c.want || err.Error() != c.key+": "+c.want {
			t.Errorf("SetKey(%s, %q): %v, want %s: %s", c.key, c.value, err, c.key, c.want)
		}
		if c.key != "delimiter" && o.check() == nil {
			t.Errorf("SetKey(%s, %q) refused the value but left options dataio reads with: %+v", c.key, c.value, o)
		}
	}
}

// CheckKeys refuses a positive class that is not one of the two classes.
func TestCheckKeys(t *testing.T) {
	t.Parallel()
	var o ReadOptions
	if err := errors.Join(o.SetKey("classes", "x,y"), o.SetKey("positive", "y"), o.CheckKeys()); err != nil {
		t.Errorf("positive among the classes: %v", err)
	}
	if err := errors.Join(o.SetKey("positive", "z"), o.CheckKeys()); err == nil || err.Error() != `positive: "z" is not one of the classes x,y` {
		t.Errorf("positive z of classes x,y: %v", err)
	}
}
