package cmd

// The results schema (docs/records.schema.json, described in
// docs/output.md): every record the commands write validates against it,
// and it names every field they write (additionalProperties: false).

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

const recordsSchema = "../docs/records.schema.json"

// compileRecordsSchema compiles docs/records.schema.json.
func compileRecordsSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(recordsSchema)
	if err != nil {
		t.Fatalf("compile %s: %v", recordsSchema, err)
	}
	return sch
}

// validateRecords validates every line of the results file path against
// sch and returns the records, decoded as JSON.
func validateRecords(t *testing.T, sch *jsonschema.Schema, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
		if err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, v.(map[string]any))
	}
	return out
}

// TestRecordsValidateAgainstTheSchema: the records of a default compare
// (its datasets and methods; 2 partitions, whose second has an
// iteration-limit status the first lacks), of a study (eight datasets
// each read its own way: CSV with a label column, ARFF with nominal
// features and missing values, a class subset, a given test file, one-
// vs-rest), of a multi-class run one-vs-one (pairs), of Laanaya's
// selection (baselines) and of a preset (generated data), each written by
// the command, validate against docs/records.schema.json, and carry what
// compare always writes: the schema version, the dataset's identity (the
// hash of dataset_identity), the run's settings (run: their hash), the
// grid and the provenance. So do the records testdata keeps.
func TestRecordsValidateAgainstTheSchema(t *testing.T) {
	t.Parallel()
	sch := compileRecordsSchema(t)
	dir := t.TempDir()
	runs := map[string][]string{
		"default": {"compare", "--partitions", "2"},
		// One partition: its records name the same fields, of the same
		// types and statuses, as the study's three partitions' (72 jobs,
		// twolevel's among them, took half of this test's race run).
		"study":    {"compare", "--study", studyFile, "--partitions", "1"},
		"ovo":      {"compare", filepath.Join(mcDir, "iris.scale"), "--train-fraction", "0.5", "--partitions", "1", "--methods", "svm,lccp"},
		"laanaya":  {"compare", "builtin:heart", "--select", "laanaya", "--methods", "svm,spd", "--partitions", "5", "--train-size", "40", "--test-size", "40"},
		"preset":   {"compare", "--preset", "laanaya-weston", "--methods", "svm", "--partitions", "1", "--train-size", "40", "--test-size", "40"},
		"weighted": {"compare", "builtin:heart", "--methods", "svm,random", "--budget", "6", "--class-weight", "balanced", "--log2c", "-1,3,2", "--partitions", "1", "--train-size", "40", "--test-size", "40"},
	}
	for name, args := range runs {
		out := filepath.Join(dir, name+".jsonl")
		mustRun(t, append(args, "--out", out, "-q")...)
		recs := validateRecords(t, sch, out)
		if len(recs) == 0 {
			t.Fatalf("%s: no records", name)
		}
		typed, err := experiment.ReadRecordsFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range typed {
			if r.SchemaVersion != experiment.SchemaVersion || r.DatasetIdentity == nil || r.Identity != r.DatasetIdentity.ID() ||
				r.Settings == nil || r.Run != r.Settings.ID() || r.Grid == nil || r.Provenance == nil {
				t.Errorf("%s: record %d (%s/%s/%d) lacks what compare always writes: %+v", name, i, r.Dataset, r.Entry, r.Partition, r)
			}
		}
		switch name {
		case "ovo":
			if _, ok := recs[0]["pairs"]; !ok {
				t.Errorf("ovo: no pairs in %v", recs[0])
			}
		case "laanaya":
			if d := typed[0].Settings.Datasets[0]; typed[0].Settings.Select != "laanaya" || d.Baseline == nil {
				t.Errorf("laanaya: settings %+v", typed[0].Settings)
			}
		case "preset":
			if d := typed[0].DatasetIdentity; d.Preset != "laanaya-weston" || d.Source == "" {
				t.Errorf("preset: identity %+v", d)
			}
		}
	}
	for _, f := range []string{"latex/default-3.jsonl", "crossdata/run.jsonl"} {
		validateRecords(t, sch, filepath.Join(cmdTestdata, f))
	}
}

// The schema is strict where the reader is: a record without a
// schema_version, of another version, or with a field the schema does not
// name fails it; and report refuses the first two, naming the file and
// line and what to do.
func TestRecordsSchemaRefuses(t *testing.T) {
	t.Parallel()
	sch := compileRecordsSchema(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	mustRun(t, "compare", "builtin:heart", "--methods", "svm", "--partitions", "1", "--train-size", "40", "--test-size", "40", "--out", out, "-q")
	good, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, line, report string
	}{
		{"no version", strings.Replace(string(good), `"schema_version":1,`, "", 1),
			":1: a record without a schema_version, written by a pre-release kerneltune: this version reads records of schema version 1 only; rerun the comparison to write them anew"},
		{"version 2", strings.Replace(string(good), `"schema_version":1,`, `"schema_version":2,`, 1),
			":1: a record of schema_version 2: this kerneltune reads schema version 1 only; read it with the kerneltune that wrote it, or rerun the comparison"},
		{"unknown field", strings.Replace(string(good), `"schema_version":1,`, `"schema_version":1,"colour":"red",`, 1), ""},
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(c.line))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err == nil {
			t.Errorf("%s: the schema accepts %.80s...", c.name, c.line)
		}
		if c.report == "" {
			continue
		}
		f := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".jsonl")
		if err := os.WriteFile(f, []byte(c.line), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := runCLI(t, "report", f); code != ExitError || !strings.Contains(errOut, f+c.report) {
			t.Errorf("%s: report: exit %d, %q; want 1 and %q", c.name, code, errOut, f+c.report)
		}
	}
	// The schema's own JSON is well formed and names its version.
	var s struct {
		Properties map[string]struct {
			Const int `json:"const"`
		} `json:"properties"`
	}
	b, err := os.ReadFile(recordsSchema)
	if err != nil || json.Unmarshal(b, &s) != nil || s.Properties["schema_version"].Const != experiment.SchemaVersion {
		t.Errorf("%s: schema_version const %d, want %d (%v)", recordsSchema, s.Properties["schema_version"].Const, experiment.SchemaVersion, err)
	}
}
