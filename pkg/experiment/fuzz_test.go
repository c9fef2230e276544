package experiment

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// FuzzReadRecords: a results file, however damaged, reads or fails with an
// error that names the file and line; it never panics. What it reads passes
// CheckRecord, holds each job once, and reads back the same when written
// again.
func FuzzReadRecords(f *testing.F) {
	grid := strings.Replace(goodLine, "}", `,`+gridJSON+`}`, 1)
	for _, s := range []string{
		goodLine + "\n",
		goodLine,
		goodLine + "\n" + strings.Replace(goodLine, `"partition":2`, `"partition":3`, 1)[:40],
		grid + "\n" + strings.Replace(grid, `"partition":2`, `"partition":23`, 1) + "\n",
		grid + "\n" + strings.Replace(grid, "0.8", "0.9", 1) + "\n",
		strings.Replace(goodLine, "0.8", "1.7", 1) + "\n",
		`{"foo": 1}` + "\n",
		"\n\n",
	} {
		f.Add([]byte(s))
	}
	where := regexp.MustCompile(`^(x\.jsonl:[0-9]+: |read x\.jsonl: )`)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ReadRecords(bytes.NewReader(data), "x.jsonl")
		if err != nil {
			if !where.MatchString(err.Error()) {
				t.Fatalf("error %q does not start with the file and line", err)
			}
			return
		}
		seen := map[Key]bool{}
		var again bytes.Buffer
		for i := range recs {
			if err := CheckRecord(&recs[i]); err != nil {
				t.Fatalf("record %d read, but CheckRecord: %v", i, err)
			}
			if seen[recs[i].Key()] {
				t.Fatalf("job %v read twice", recs[i].Key())
			}
			seen[recs[i].Key()] = true
			b, err := json.Marshal(&recs[i])
			if err != nil {
				t.Fatal(err)
			}
			again.Write(append(b, '\n'))
		}
		back, err := ReadRecords(&again, "x.jsonl")
		if err != nil || len(back) != len(recs) {
			t.Fatalf("written again: %d records, %v; read %d", len(back), err, len(recs))
		}
	})
}
