package experiment

// Settings and identities as they resolve, not as a run spelled them
// (issue 42, item 16): report's merge and compare --resume compare these,
// so that `--features 13` on a 13-feature file, `--input-format libsvm` on
// a LIBSVM file, `--positive 1` where 1 is the default positive class,
// `--missing drop` and `--categorical onehot` on data with nothing to drop
// or encode, `--normalize maxabs` where auto meant maxabs and grid.py's
// grid spelled out are the run that left them out. Nothing here changes a
// run's id or a dataset's hashed identity (Identity): existing files keep
// theirs; only the comparisons are canonical.

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// The facts of the data a canonical identity holds in place of the read
// options that only name them (canonicalIdentity): compared, never hashed.
const (
	IDFormat   = "format"         // the format the file was read as
	IDWidth    = "features read"  // the feature columns read
	IDPositive = "positive class" // the label read as +1
)

// canonicalIdentity returns identity fields (identityFields of r) as they
// resolve for r's data: the read options --input-format, --features and
// --positive leave IDRead for what they resolved to (IDFormat, IDWidth,
// IDPositive: from r's provenance, or the value spelled where r has none;
// unknown, and so not compared, where neither says it), --missing drop and
// --categorical onehot leave it (a run of the same data and other options
// that read it without them found nothing to drop or encode: the data read
// is the same; an encoding that did encode is IDEncoding), and the
// normalisation auto is maxabs where r says its dataset was sparse
// (sparseAuto). fields is not changed.
func canonicalIdentity(r *Record, fields map[string]string) map[string]string {
	if fields == nil {
		return nil
	}
	out := maps.Clone(fields)
	var prov *DataProvenance
	if r.Provenance != nil {
		prov = r.Provenance.Data
	}
	kv := map[string]string{}
	read, hasRead := fields[IDRead]
	if hasRead && read != "(defaults)" {
		for _, f := range splitKV(read) {
			k, v, _ := strings.Cut(f, "=")
			kv[k] = v
		}
	}
	resolved := readFacts(prov)
	for _, o := range []struct{ flag, field string }{{"input-format", IDFormat}, {"features", IDWidth}, {"positive", IDPositive}} {
		v, spelled := kv[o.flag]
		delete(kv, o.flag)
		if f, ok := resolved[o.field]; ok {
			out[o.field] = f
		} else if spelled {
			out[o.field] = v
		}
	}
	if kv["missing"] == "drop" {
		delete(kv, "missing")
	}
	if kv["categorical"] == "onehot" {
		delete(kv, "categorical")
	}
	if hasRead {
		out[IDRead] = dataio.ReadKey(kv)
	}
	if p, ok := out[IDPartitions]; ok {
		out[IDPartitions] = plainPartitions(p)
	}
	if out[IDNormalize] == dataio.Auto && sparseAuto(r, fields) {
		out[IDNormalize] = dataio.MaxAbs
	}
	return out
}

// plainPartitions returns the partitions of an identity of a run of DATA
// files written without provenance ("random/TRAIN/TEST/FRACTION/STRATIFIED",
// and " test=given/P/T": identityFields) in the form a record with
// provenance gives them (a study dataset's, "test-size=60 train-size=60"),
// so that the two compare; any other form as it is.
func plainPartitions(p string) string {
	main, test, given := strings.Cut(p, " test=given/")
	f := strings.Split(main, "/")
	if len(f) != 5 || f[0] != "random" {
		return p
	}
	kv := map[string]string{"describe.partitions": strings.Join(slices.Insert(f, 1, "0"), "/")}
	if given {
		kv["describe.test"] = "given/" + test
	}
	ds, ok := plainDataset(kv)
	if !ok {
		return p
	}
	return strings.Join(slices.DeleteFunc(splitKV(ds.KeyWith(nil)), func(kv string) bool { return strings.HasPrefix(kv, "partitions=") }), " ")
}

// readFacts are what the provenance says the read options resolved to, by
// canonicalIdentity's fields (none for a record without provenance).
func readFacts(prov *DataProvenance) map[string]string {
	out := map[string]string{}
	if prov == nil {
		return out
	}
	if prov.Format != "" {
		out[IDFormat] = prov.Format
	}
	if prov.FeaturesRead > 0 {
		out[IDWidth] = strconv.Itoa(prov.FeaturesRead)
	}
	switch {
	case prov.Labels.OneVsRest:
		out[IDPositive] = prov.Labels.Positive + " (one-vs-rest)"
	case prov.Labels.Positive != "":
		out[IDPositive] = prov.Labels.Positive
	case len(prov.OneVsOne) > 0 || len(prov.OneVsRest) > 0:
		out[IDPositive] = "(none: multi-class)"
	}
	return out
}

// sparseAuto reports whether the normalisation auto of r (its identity
// fields fields) was maxabs: its dataset was sparse. A run names auto
// only when one of its datasets is sparse (Config.fingerprintNormalize),
// so a run of one dataset says so; a record's identity hashes the name its
// dataset's run alone would give (Config.identities), so an identity that
// hashes "auto" says so too (a dense dataset's hashes "zscore",
// PairSettings). A record of a run of several datasets without an
// identity cannot say.
func sparseAuto(r *Record, fields map[string]string) bool {
	if r.Grid != nil && len(r.Grid.Datasets) == 1 {
		return true
	}
	return r.Identity != "" && identityOf(fields) == r.Identity
}

// uncheckedIdentity lists the fields one of two canonical identities holds
// and the other does not (a record written without provenance says
// neither how its data was read nor what the read resolved to): merged,
// not refused, and said.
func uncheckedIdentity(a, b map[string]string) []string {
	var out []string
	for _, k := range keysOfBoth(a, b) {
		_, oka := a[k]
		_, okb := b[k]
		if oka != okb {
			out = append(out, k)
		}
	}
	return out
}

// canonicalRun returns a run's settings as they resolve (compare --resume
// compares these where the run ids differ, sameRun): grid.py's grid
// spelled out is no grid given; the normalisation is what it meant for
// each dataset of the grid ("normalize" lists them, by dataset, as
// normalize(name) says); a study dataset's read options
// ("describe.dataset.N") are canonicalIdentity's, with what they resolved
// to from facts(name). settings is not changed.
func canonicalRun(settings map[string]string, grid *Grid, normalize func(name string) string, facts func(name string) *DataProvenance) map[string]string {
	out := maps.Clone(settings)
	for k, v := range settings {
		if f := k[strings.LastIndex(k, ".")+1:]; (f == "Log2C" || f == "Log2Gamma") && methods.DefaultGrid(v, f == "Log2Gamma") {
			delete(out, k)
		}
	}
	if grid == nil {
		return out
	}
	var norms []string
	for i, d := range grid.Datasets {
		norms = append(norms, d.Name+"="+normalize(d.Name))
		key := "describe.dataset." + strconv.Itoa(i)
		ds, ok := settings[key]
		if !ok {
			continue
		}
		var read, rest []string
		for _, kv := range splitKV(ds) {
			switch k, _, _ := strings.Cut(kv, "="); k {
			case "partitions", "train-size", "test-size", "train-fraction", "stratified", "test", "splits":
				rest = append(rest, kv)
			default:
				read = append(read, kv)
			}
		}
		r := &Record{Provenance: &Provenance{Data: facts(d.Name)}}
		c := canonicalIdentity(r, map[string]string{IDRead: dataio.ReadKey(kvMap(read))})
		out[key] = strings.Join(rest, " ") + " | " + c[IDRead] + " | " + c[IDFormat] + "/" + c[IDWidth] + "/" + c[IDPositive]
	}
	out["normalize"] = strings.Join(norms, " ")
	return out
}

func kvMap(kvs []string) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// sameRun reports whether prior, the records of a results file being
// resumed, are of another run id than run but of a run whose settings
// resolve as settings (the run's, RunSettings) do for sources
// (canonicalRun): a default spelled out (grid.py's grid, --normalize
// maxabs where auto meant maxabs, a study dataset's read option that
// names what its file resolves to). Every prior record must be of one run
// and carry its settings.
func (c *Config) sameRun(prior []Record, settings map[string]string, run string, sources []Source) bool {
	if len(prior) == 0 || prior[0].Run == run || prior[0].Settings == nil || prior[0].Grid == nil {
		return false
	}
	for _, r := range prior {
		if r.Run != prior[0].Run {
			return false
		}
	}
	of := func(name string) *Record {
		for i := range prior {
			if prior[i].Dataset == name && prior[i].Provenance != nil && prior[i].Provenance.Data != nil {
				return &prior[i]
			}
		}
		for i := range prior {
			if prior[i].Dataset == name {
				return &prior[i]
			}
		}
		return nil
	}
	theirs := canonicalRun(prior[0].Settings, prior[0].Grid, func(name string) string {
		r := of(name)
		if r == nil {
			return prior[0].Settings["normalize"]
		}
		ps := PairSettings(r)
		if ps["normalize"] == dataio.Auto && sparseAuto(r, identityFields(r, ps)) {
			return dataio.MaxAbs
		}
		return ps["normalize"]
	}, func(name string) *DataProvenance {
		if r := of(name); r != nil && r.Provenance != nil {
			return r.Provenance.Data
		}
		return nil
	})
	source := map[string]Source{}
	for _, s := range sources {
		source[s.Name()] = s
	}
	ours := canonicalRun(settings, c.Grid, func(name string) string {
		if f, ok := fixedOf(source[name]); ok {
			return dataio.ResolveNormalizer(c.normalize(), f.data.X)
		}
		return c.normalize()
	}, func(name string) *DataProvenance {
		if p := c.Provenance[name]; p != nil {
			return p.Data
		}
		return nil
	})
	return maps.Equal(theirs, ours)
}

// adoptIdentities gives each dataset of the run (ids, by name) the
// identity of the resumed records (c.resumed) of its name where theirs
// resolve as its own (canonicalIdentity): the run's identity hashes its
// read options as spelled, and a file keeps one identity per dataset.
func (c *Config) adoptIdentities(sources []Source, ids map[string]Identity) {
	for _, s := range sources {
		name := s.Name()
		i := slices.IndexFunc(c.resumed, func(r Record) bool { return r.Dataset == name && r.Identity != "" })
		if i < 0 || c.resumed[i].Identity == ids[name] {
			continue
		}
		r := Record{Dataset: name, Settings: c.Settings, Grid: c.Grid, Provenance: c.Provenance[name], Identity: ids[name]}
		ps := runPairSettings(&r)
		if ps["normalize"] == dataio.Auto {
			ps["normalize"] = c.fingerprintNormalize([]Source{s})
		}
		ours := canonicalIdentity(&r, identityFields(&r, ps))
		p := &c.resumed[i]
		theirs := canonicalIdentity(p, identityFields(p, PairSettings(p)))
		if ours != nil && len(diffIdentity(theirs, ours)) == 0 && len(diffIdentity(ours, theirs)) == 0 {
			ids[name] = p.Identity
		}
	}
}
