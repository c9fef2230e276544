package experiment

import (
	"slices"
	"testing"
)

func TestEntryOrder(t *testing.T) {
	rec := func(method, param string) Record {
		e := method
		if param != "" {
			e += ":" + param
		}
		return Record{Dataset: "heart", Entry: e, Method: method, Param: param}
	}
	// As a merged results file has them: shards interleaved, entries
	// repeated once per partition.
	rs := []Record{
		rec("spd", "full"), rec("gi", "B"), rec("svm", ""), rec("custom", ""),
		rec("spd", "diag"), rec("gi", "A"), rec("svm", ""), rec("spd", "full"),
		rec("rcsc", ""), rec("aaa", ""),
	}
	names := []string{"svm", "spd", "gi", "lccp", "rcsc", "twolevel"}
	want := []string{"svm", "spd:diag", "spd:full", "gi:A", "gi:B", "rcsc", "aaa", "custom"}
	if got := EntryOrder(rs, names); !slices.Equal(got, want) {
		t.Errorf("EntryOrder = %q, want %q", got, want)
	}
	// The order of the records does not matter.
	slices.Reverse(rs)
	if got := EntryOrder(rs, names); !slices.Equal(got, want) {
		t.Errorf("EntryOrder of reversed records = %q, want %q", got, want)
	}
	// Without a registry, entries are in name order.
	if got, want := EntryOrder(rs, nil), []string{"aaa", "custom", "gi:A", "gi:B", "rcsc", "spd:diag", "spd:full", "svm"}; !slices.Equal(got, want) {
		t.Errorf("EntryOrder without names = %q, want %q", got, want)
	}
	if got := EntryOrder(nil, names); len(got) != 0 {
		t.Errorf("EntryOrder of no records = %q", got)
	}
}
