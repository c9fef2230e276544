package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A task's time: ten minutes and four times its shard's expected time on
// its cores, rounded up to a minute, in Slurm's form.
func TestTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		seconds float64
		workers int
		want    string
	}{
		{0, 1, "00:10:00"},
		{1, 1, "00:11:00"},          // 10 min 4 s, rounded up
		{3600, 2, "02:10:00"},       // 4 × 1800 s
		{6 * 3600, 1, "1-00:10:00"}, // 24 h 10 min
	} {
		if got := slurmTime(TimeLimit(tc.seconds, tc.workers)); got != tc.want {
			t.Errorf("TimeLimit(%v, %d) = %s, want %s", tc.seconds, tc.workers, got, tc.want)
		}
	}
}

// A task's memory: the estimate and a quarter, in MB rounded up, at least
// 256 MB.
func TestMemMB(t *testing.T) {
	for _, tc := range []struct {
		peak int64
		want int64
	}{{0, 256}, {100 << 20, 256}, {400 << 20, 500}, {400<<20 + 1, 501}} {
		if got := MemMB(tc.peak); got != tc.want {
			t.Errorf("MemMB(%d) = %d, want %d", tc.peak, got, tc.want)
		}
	}
}

// A path an #SBATCH line cannot hold is refused, naming it.
func TestSlurmScriptsRefuseUnsafePaths(t *testing.T) {
	j := &Job{Name: "kerneltune-x", Binary: "/bin/kt", WorkDir: "/home/a b", Dir: "/home/a b/d", Shards: 2, Workers: 1}
	_, _, err := j.SlurmScripts()
	var pe *PathError
	if !errors.As(err, &pe) || pe.Path != "/home/a b" || !strings.Contains(err.Error(), `the working directory "/home/a b"`) {
		t.Errorf("err = %v", err)
	}
}

// sbatch --parsable prints the id, with the cluster after a ";" on a
// federation; a warning on stderr is not the id, and an answer without an
// id is an error that says what sbatch printed.
func TestSbatchID(t *testing.T) {
	dir := t.TempDir()
	script := func(body string) string {
		p := filepath.Join(dir, "sbatch")
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	id, err := sbatch(context.Background(), []string{script("echo 'sbatch: warning: x' >&2\necho '4242;cluster'\n")})
	if err != nil || id != "4242" {
		t.Errorf("id %q, err %v", id, err)
	}
	_, err = sbatch(context.Background(), []string{script("echo 'Submitted to nowhere'\n")})
	if err == nil || !strings.Contains(err.Error(), "no job id in its output: Submitted to nowhere") {
		t.Errorf("no id: %v", err)
	}
	_, err = sbatch(context.Background(), []string{script("echo 'sbatch: error: invalid partition' >&2\nexit 1\n")})
	if err == nil || !strings.Contains(err.Error(), "sbatch: error: invalid partition") {
		t.Errorf("a failed sbatch: %v", err)
	}
}
