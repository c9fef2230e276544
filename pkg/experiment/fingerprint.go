package experiment

// The run fingerprint: the identifier every record of a run carries, so that
// --resume and report never mix the records of runs with other settings.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// RunSettings returns the canonical form of every setting of the run that
// changes results, as sorted "key" → "value" pairs: the protocol ("seed",
// "normalize", Describe's keys under "describe.", each source under
// "source.N"), the shared method settings ("base.C", "base.Folds", ...),
// and each entry's own settings ("entry.N" is its name, "entry.N.Rho", ...).
// Settings at their zero value (the default) are left out, so that a field
// added later keeps every earlier run's settings, and so its fingerprint;
// the workers, the shard and the progress recorder are left out, since the
// records do not depend on them, and so is the base seed (each job's is
// drawn from the run's).
func (c *Config) RunSettings(entries []Entry, sources []Source) map[string]string {
	kv := map[string]string{
		"seed":      strconv.FormatUint(c.Seed, 10),
		"normalize": c.fingerprintNormalize(sources),
	}
	for k, v := range c.Describe {
		kv["describe."+k] = v
	}
	for i, s := range sources {
		kv[fmt.Sprintf("source.%d", i)] = sourceKey(s)
	}
	base := c.Base
	base.Seed, base.Workers, base.Recorder, base.Progress = 0, 0, nil, nil
	// A class weight of 1 is no weight (C × 1): the same run as none.
	if base.WeightPos == 1 {
		base.WeightPos = 0
	}
	if base.WeightNeg == 1 {
		base.WeightNeg = 0
	}
	canonical(kv, "base.", reflect.ValueOf(base))
	for i, e := range entries {
		p := fmt.Sprintf("entry.%d", i)
		kv[p] = e.String()
		if e.Spec != nil {
			// The entry's own settings: its Common is replaced by Base in
			// every job.
			canonical(kv, p+".", reflect.ValueOf(e.Spec.WithBase(methods.Common{})))
		}
	}
	return kv
}

// canonical adds the non-zero fields of the struct v to kv under prefix,
// flattening embedded structs (a spec's Common) and leaving out functions.
func canonical(kv map[string]string, prefix string, v reflect.Value) {
	if v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f, fv := t.Field(i), v.Field(i)
		switch {
		case !f.IsExported(), fv.Kind() == reflect.Func:
		case f.Anonymous && fv.Kind() == reflect.Struct:
			canonical(kv, prefix, fv)
		case !fv.IsZero():
			kv[prefix+f.Name] = fmt.Sprint(fv.Interface())
		}
	}
}

// sourceKey names a source for the fingerprint: its name and number of
// partitions and, for a fixed dataset, the SHA-256 of its data (and of its
// test file), so that --resume after the file was edited does not mix
// results of two data sets (a one-hot encoded set too, and it says it is
// encoded).
func sourceKey(s Source) string {
	name := fmt.Sprintf("%s/%d", s.Name(), s.Len())
	if f, ok := fixedOf(s); ok {
		name += "/" + f.data.SHA256
		if f.test != nil {
			name += "/test=" + f.test.SHA256
		}
		if f.onehot {
			name += "/onehot"
		}
	}
	return name
}

// Fingerprint returns the run identifier written into every record: a hash
// of the canonical encoding of RunSettings (sorted keys, zero values left
// out).
func (c *Config) Fingerprint(entries []Entry, sources []Source) string {
	return hashSettings(c.RunSettings(entries, sources))
}

func hashSettings(kv map[string]string) string {
	b, _ := json.Marshal(kv) // a map's keys are written sorted
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// DiffSettings lists the settings that differ between two runs' settings,
// one "key: a → b" per line, sorted ("(default)" for a setting left out).
func DiffSettings(a, b map[string]string) []string {
	var out []string
	for k, va := range a {
		if vb, ok := b[k]; !ok || vb != va {
			out = append(out, fmt.Sprintf("%s: %s → %s", k, va, orDefault(vb, ok)))
		}
	}
	for k, vb := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("%s: (default) → %s", k, vb))
		}
	}
	slices.Sort(out)
	return out
}

func orDefault(v string, ok bool) string {
	if !ok {
		return "(default)"
	}
	return v
}

// legacyFingerprint is the run identifier kerneltune wrote before the
// settings became typed specs (up to 3f182cd): a hash of the flat options'
// printed form. Compare accepts records that carry it for --resume, and
// goes on writing it into the file, so that a run started by that version
// can be finished by this one (TestResumeRecordsOfTheFlatOptionsVersion).
// It is computed from today's settings: entries whose own settings cannot
// be written in the old form (different iteration limits per entry, or a
// setting the old command line could not give to compare) have none.
func (c *Config) legacyFingerprint(entries []Entry, sources []Source) (string, bool) {
	// The old methods.Options, field for field: its %+v form is what was
	// hashed. compare gave it C, Folds, GridRows, Eps, CacheMB and MaxIter;
	// Param and Mode were set per job, Seed and Workers were zeroed.
	type Options struct {
		Param    string
		Seed     uint64
		C        float64
		Margin   string
		MaxIter  int
		Tol      float64
		Rho      float64
		Init     string
		Mode     string
		Folds    int
		Workers  int
		Eps      float64
		CacheMB  int
		GridRows int
		Recorder func(methods.Step)
	}
	o := Options{C: c.Base.C, Folds: c.Base.Folds, Eps: c.Base.Eps, CacheMB: c.Base.CacheMB, GridRows: c.Base.GridRows}
	margins := map[string]string{}
	maxIter := -1
	for _, e := range entries {
		var it int
		switch s := e.Spec.(type) {
		case methods.SVMSettings:
		case methods.SPDSettings:
			if s.Rho != 0 || s.Init != "" || s.Tol != 0 {
				return "", false
			}
			it = s.MaxIter
		case methods.GISettings:
			if s.Tol != 0 {
				return "", false
			}
			if s.Margin != "" {
				margins["gi"] = s.Margin
			}
			it = s.Steps
		case methods.LCCPSettings:
			if s.Tol != 0 {
				return "", false
			}
			if s.Margin != "" {
				margins["lccp"] = s.Margin
			}
			it = s.MaxIter
		case methods.RCSCSettings:
			if s.Tol != 0 {
				return "", false
			}
			it = s.MaxIter
		case methods.TwoLevelSettings:
			if s.Tol != 0 {
				return "", false
			}
			it = s.MaxIter
		default:
			return "", false
		}
		if _, ok := e.Spec.(methods.SVMSettings); ok {
			continue
		}
		if maxIter >= 0 && it != maxIter {
			return "", false
		}
		maxIter = it
	}
	o.MaxIter = max(maxIter, 0)
	keys := make([]string, 0, len(c.Describe))
	for k := range c.Describe {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	desc := make([]string, 0, len(keys))
	for _, k := range keys {
		desc = append(desc, k+"="+c.Describe[k])
	}
	names := make([]string, 0, len(sources))
	for _, s := range sources {
		names = append(names, sourceKey(s))
	}
	ents := make([]string, 0, len(entries))
	for _, e := range entries {
		ents = append(ents, e.String())
	}
	opts := fmt.Sprintf("%+v", o)
	if o.GridRows == 0 {
		opts = strings.Replace(opts, " GridRows:0 ", " ", 1)
	}
	var ms map[string]string
	if len(margins) > 0 {
		ms = margins
	}
	b := fmt.Appendf(nil, "seed=%d normalize=%s options=%s margins=%v describe=%q sources=%q entries=%q",
		c.Seed, c.fingerprintNormalize(sources), opts, ms, desc, names, ents)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6]), true
}

// fingerprintNormalize is the normalisation as the fingerprint names it:
// the default (auto) on sources none of which is sparse fits a z-score on
// every training part, as every run did before auto existed, and is named
// zscore, so that those runs' fingerprints still match; on sparse data it
// is named auto (it fits maxabs there: another experiment).
func (c *Config) fingerprintNormalize(sources []Source) string {
	kind := c.normalize()
	if kind != dataio.Auto {
		return kind
	}
	for _, s := range sources {
		if f, ok := fixedOf(s); ok && dataio.SparseData(f.data.X) {
			return kind
		}
	}
	return dataio.ZScore
}
