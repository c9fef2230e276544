package experiment

// Resuming a results file checks that its records are of the datasets as
// now opened, not only of a run with the same settings: the run id of a
// list of files does not hold the files' read options (it never did, and
// changing it would change every such run's id), so a resume with another
// --positive, --label-col, --features, ... had the same id and presented
// the old records as the new run's (issue 42, "nothing silently wrong").

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// OtherDataError is a results file to resume whose records of Dataset are
// of another dataset than the one now opened under that name: other data,
// read, partitioned or normalised otherwise. Diff names what differs, one
// "what: the records' → now" each, sorted: an identity field (IDData,
// IDPartitions, ...) or, for the read options, "read option NAME" by the
// name of the flag and study key that sets it (dataio.ReadFlags).
type OtherDataError struct {
	Path, Dataset string
	Diff          []string
}

func (e *OtherDataError) Error() string {
	return fmt.Sprintf("%s holds records of dataset %s that are not of %s as it is now read: %s",
		e.Path, e.Dataset, e.Dataset, strings.Join(e.Diff, "; "))
}

func (e *OtherDataError) Unwrap() error { return ErrMixedRuns }

// checkPriorData checks, after cfg.Identity is set, that each record being resumed (prior, of out)
// whose dataset the run opened is of that dataset as opened: its own
// identity (the one it carries or, for a record written before identities
// were recorded, the one its settings and provenance give) against the
// identity of the dataset now (dataio.Partitioned.Identity, with the
// normalisation as cfg names it). A record without settings (written
// before they were recorded) says nothing to compare and is the run
// fingerprint's to check.
func checkPriorData(out string, prior []Record, sources []Source, cfg *Config) error {
	now := map[string]map[string]string{}
	for _, s := range sources {
		if p, ok := s.(*dataio.Partitioned); ok {
			now[s.Name()] = p.Identity(cfg.fingerprintNormalize([]Source{s}))
		}
	}
	for i := range prior {
		r := &prior[i]
		fields, ok := now[r.Dataset]
		if !ok || r.Identity != "" && (r.Identity == identityOf(fields) || r.Identity == cfg.Identity[r.Dataset]) {
			// Its identity is the dataset's now, as spelled or as it
			// resolves (the run adopted it: Config.adoptIdentities).
			continue
		}
		was := DatasetIdentity(r)
		if was == nil {
			continue
		}
		if r.Identity == "" && was[IDNormalize] == dataio.Auto {
			// What auto meant for this dataset is not in a record of a run
			// with a sparse dataset written before identities: the
			// fingerprint compares the run's normalisation.
			delete(was, IDNormalize)
		}
		// Both as they resolve (canonicalIdentity): a default spelled on
		// one side only is no difference.
		cur := &Record{Dataset: r.Dataset, Grid: cfg.Grid, Provenance: cfg.Provenance[r.Dataset], Identity: identityOf(fields)}
		if diff := dataDiff(canonicalIdentity(r, was), canonicalIdentity(cur, fields)); len(diff) > 0 {
			return &OtherDataError{Path: out, Dataset: r.Dataset, Diff: diff}
		}
	}
	return nil
}

// dataDiff lists what differs between a record's identity fields (was)
// and the dataset's now, "what: was → now", sorted; a field the record
// lacks (an older record) is not compared. The read options are compared
// one by one.
func dataDiff(was, now map[string]string) []string {
	var out []string
	for k, a := range was {
		b, ok := now[k]
		switch {
		case !ok || a == b:
		case k == IDRead:
			for _, d := range DiffSettings(readOptions(a), readOptions(b)) {
				out = append(out, "read option "+d)
			}
		default:
			out = append(out, fmt.Sprintf("%s: %s → %s", k, orNone(a), orNone(b)))
		}
	}
	slices.Sort(out)
	return out
}

// readOptions parses dataio.ReadKey's "k=v k=v" ("(defaults)": none).
func readOptions(key string) map[string]string {
	kv := map[string]string{}
	if key == dataio.ReadKey(nil) {
		return kv
	}
	for _, f := range splitKV(key) {
		k, v, _ := strings.Cut(f, "=")
		kv[k] = v
	}
	return kv
}
