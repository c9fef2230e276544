package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// NoResultsError is a directory given as results that holds no results
// file (no *.jsonl).
type NoResultsError struct{ Dir string }

func (e *NoResultsError) Error() string {
	return fmt.Sprintf("%s is a directory without results files (*.jsonl)", e.Dir)
}

// ResultsFiles returns the results files of paths: a file as it is, a
// directory as the *.jsonl files in it (not in its subdirectories), sorted
// by name: the shards' files of compare --slurm and --k8s, say.
func ResultsFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			out = append(out, p) // a file, or an error MergeFiles words
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var files []string
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".jsonl") && e.Type().IsRegular() {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
		if len(files) == 0 {
			return nil, &NoResultsError{p}
		}
		slices.Sort(files)
		out = append(out, files...)
	}
	return out, nil
}
