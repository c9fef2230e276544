// Package cluster writes the batch scripts and manifests that run the
// shards of a comparison on a cluster and merge them (compare --slurm N and
// --k8s N, issue 45), and submits the Slurm ones with sbatch.
//
// It lives in internal/, not pkg/: what it writes are command lines of the
// kerneltune binary itself (compare's --shard, --out and --resume, report
// over a directory of results files), plumbing of the command line that a
// Go program calling the library has no use for. The numbers in them come
// from the library: the shards' expected costs and a task's peak memory
// (experiment.Prepared.ShardPlan). It prints nothing; cmd words its errors.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
)

// Job is a comparison to run as Shards tasks, one shard each, and a merge.
type Job struct {
	// Name names the jobs (kerneltune-RUN, RUN the run's fingerprint).
	Name string
	// Binary is the kerneltune the tasks run (an absolute path for Slurm;
	// the container's command for Kubernetes), WorkDir the directory they
	// run in (the submitting one: the paths of Compare are relative to
	// it) and Dir the results directory, absolute.
	Binary, WorkDir, Dir string
	// Compare are compare's flags for every shard (those of the run's
	// settings), without the ones the task adds (--shard, --out, --resume,
	// --workers, --format), and Data its DATA arguments.
	Compare, Data []string
	// Report are report's flags after the directory (--format, --html,
	// --plot, ...), and ReportFile the file its output goes to.
	Report     []string
	ReportFile string
	// Shards and Workers: the tasks and each one's cores (compare
	// --workers, Slurm's --cpus-per-task).
	Shards, Workers int
	// Jobs are the run's jobs; MemMB a task's memory (--mem) and Time its
	// wall-time limit (--time).
	Jobs  int
	MemMB int64
	Time  time.Duration
	// Expected are the shards' expected seconds on their Workers cores
	// (experiment.ShardLoad's costs), said in the scripts' header.
	Expected []float64
	// Version is the kerneltune that wrote the scripts.
	Version string
}

// expected says the range of the shards' expected seconds.
func (j *Job) expected() string {
	if len(j.Expected) == 0 {
		return ""
	}
	lo, hi := slices.Min(j.Expected), slices.Max(j.Expected)
	return fmt.Sprintf("# Expected time of a shard on its %d core(s): %.1f to %.1f s (the shards are balanced\n"+
		"# by kerneltune's cost model; --time allows 10 minutes and 4 times the longest).\n", j.Workers, lo, hi)
}

// MemMB is a task's memory request for an estimated peak of bytes (one
// task: its Workers jobs at once): the estimate and a quarter more, since
// a scheduler that enforces it kills the task that exceeds it, and at least
// 256 MB.
func MemMB(peak int64) int64 {
	mb := int64(math.Ceil(float64(peak) * 1.25 / (1 << 20)))
	return max(mb, 256)
}

// TimeLimit is a task's wall-time limit for a shard of expected cost
// seconds (experiment.ShardLoad's, the longest shard's) run on workers
// cores: ten minutes (starting, reading the data, a requeue's wait) and
// four times the expected time, since the cost model orders jobs better
// than it predicts their seconds on another machine; rounded up to a
// minute. A cluster's own limit is set at submission (SBATCH_TIMELIMIT).
func TimeLimit(seconds float64, workers int) time.Duration {
	t := 10*time.Minute + time.Duration(4*seconds/float64(max(workers, 1))*float64(time.Second))
	return (t + time.Minute - 1).Truncate(time.Minute)
}

// slurmTime formats d as Slurm's [days-]hours:minutes:seconds.
func slurmTime(d time.Duration) string {
	s := int64(d / time.Second)
	days, h, m, sec := s/86400, s/3600%24, s/60%60, s%60
	if days > 0 {
		return fmt.Sprintf("%d-%02d:%02d:%02d", days, h, m, sec)
	}
	return fmt.Sprintf("%02d:%02d:%02d", h, m, sec)
}

// PathError is a path that an #SBATCH line cannot hold (white space, a
// quote, Slurm's % patterns).
type PathError struct{ What, Path string }

func (e *PathError) Error() string {
	return fmt.Sprintf("%s %q: a Slurm batch script's #SBATCH line cannot hold a path with white space, quotes or %%", e.What, e.Path)
}

// checkPaths refuses a WorkDir or Dir an #SBATCH line cannot hold.
func (j *Job) checkPaths() error {
	for _, p := range []struct{ what, path string }{{"the working directory", j.WorkDir}, {"the results directory", j.Dir}} {
		if strings.ContainsAny(p.path, " \t\n'\"%\\") {
			return &PathError{p.what, p.path}
		}
	}
	return nil
}

// Paths of the files a Job writes in Dir.
const (
	SlurmScript = "job.sh"
	MergeScript = "merge.sh"
	K8sJob      = "job.yaml"
	K8sMerge    = "merge.yaml"
)

// ShardFile is the results file of shard i (1-based) in dir.
func ShardFile(dir string, i int) string {
	return filepath.Join(dir, "shard-"+strconv.Itoa(i)+".jsonl")
}

// taskShell is the shell of one task, shard "$i" (set before): compare
// on the shard, resuming its results file, its summary (--format json) in
// shard-$i.json. compare exits 1 when a job failed (a method that failed
// on a partition, recorded as such) as when the run could not go on; it
// writes its summary only when every job of the shard is recorded, so a 1
// with a summary is a finished shard, whose failures the merged report
// shows, and the task succeeds.
func (j *Job) taskShell() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dir=%s\n", buildinfo.ShellQuote(j.Dir))
	b.WriteString(`summary="$dir/shard-$i.json"` + "\n")
	b.WriteString(buildinfo.ShellQuote(j.Binary) + " compare")
	for _, a := range j.Compare {
		b.WriteString(" " + buildinfo.ShellQuote(a))
	}
	fmt.Fprintf(&b, ` --shard "$i/%d" --out "$dir/shard-$i.jsonl" --resume --workers %d --format json`, j.Shards, j.Workers)
	if len(j.Data) > 0 {
		b.WriteString(" --")
		for _, a := range j.Data {
			b.WriteString(" " + buildinfo.ShellQuote(a))
		}
	}
	b.WriteString(` >"$summary"` + "\n")
	b.WriteString(`rc=$?
# 1 with a summary: every job of the shard is recorded, some as failures,
# which the merged report shows; the shard is done.
if [ "$rc" = 1 ] && [ -s "$summary" ]; then exit 0; fi
exit "$rc"
`)
	return b.String()
}

// reportShell is the merge's command: report over Dir into ReportFile.
func (j *Job) reportShell() string {
	var b strings.Builder
	b.WriteString("exec " + buildinfo.ShellQuote(j.Binary) + " report " + buildinfo.ShellQuote(j.Dir))
	for _, a := range j.Report {
		b.WriteString(" " + buildinfo.ShellQuote(a))
	}
	b.WriteString(" >" + buildinfo.ShellQuote(j.ReportFile) + "\n")
	return b.String()
}

// SlurmScripts returns the array job's script (DIR/job.sh: one task a
// shard, each resuming its results file, requeued when preempted) and the
// merge's (DIR/merge.sh, submitted with --dependency=afterok on the array
// job).
func (j *Job) SlurmScripts() (job, merge string, err error) {
	if err := j.checkPaths(); err != nil {
		return "", "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, `#!/bin/bash
# The %d shards of kerneltune run %s (%d jobs), one array task a shard,
# written by kerneltune %s (compare --slurm). Each task resumes its shard's
# results file, so a task that is requeued (preempted, scontrol requeue, a
# node that failed) goes on where it stopped. merge.sh merges the shards.
%s#SBATCH --job-name=%s
#SBATCH --array=1-%d
#SBATCH --cpus-per-task=%d
#SBATCH --mem=%dM
#SBATCH --time=%s
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --chdir=%s
#SBATCH --output=%s
set -u
i=$SLURM_ARRAY_TASK_ID
`, j.Shards, strings.TrimPrefix(j.Name, "kerneltune-"), j.Jobs, j.Version, j.expected(), j.Name, j.Shards, j.Workers, j.MemMB,
		slurmTime(j.Time), j.WorkDir, filepath.Join(j.Dir, "shard-%a.log"))
	b.WriteString(j.taskShell())
	job = b.String()
	b.Reset()
	fmt.Fprintf(&b, `#!/bin/bash
# Merges the shards of job.sh into %s once every task has
# ended well (sbatch --dependency=afterok on the array job).
#SBATCH --job-name=%s-merge
#SBATCH --cpus-per-task=1
#SBATCH --mem=%dM
#SBATCH --time=00:30:00
#SBATCH --chdir=%s
#SBATCH --output=%s
set -u
`, filepath.Base(j.ReportFile), j.Name, mergeMemMB(j.Jobs), j.WorkDir, filepath.Join(j.Dir, "merge.log"))
	b.WriteString(j.reportShell())
	return job, b.String(), nil
}

// mergeMemMB is the merge's memory: 1 GB and 16 KB a record.
func mergeMemMB(jobs int) int64 { return 1024 + int64(jobs)/64 }

// SbatchCommands are the commands that submit the scripts in Dir, the
// merge's dependency on the array job's id (ArrayID, a placeholder when it
// is not known yet).
func (j *Job) SbatchCommands(arrayID string) [2][]string {
	return [2][]string{
		{"sbatch", "--parsable", filepath.Join(j.Dir, SlurmScript)},
		{"sbatch", "--parsable", "--dependency=afterok:" + arrayID, "--kill-on-invalid-dep=yes", filepath.Join(j.Dir, MergeScript)},
	}
}

// ErrNoSbatch: sbatch is not on the PATH.
var ErrNoSbatch = errors.New("sbatch is not on the PATH (is this a Slurm login node?)")

// SbatchError is an sbatch that failed; Submitted is the array job when
// the merge's submission failed after it.
type SbatchError struct {
	Command   []string
	Output    string
	Err       error
	Submitted string
}

func (e *SbatchError) Error() string {
	msg := fmt.Sprintf("%s: %v", strings.Join(e.Command, " "), e.Err)
	if out := strings.TrimSpace(e.Output); out != "" {
		msg += ": " + out
	}
	if e.Submitted != "" {
		msg += fmt.Sprintf(" (the array job %s was submitted: submit the merge by hand, or scancel %s)", e.Submitted, e.Submitted)
	}
	return msg
}

func (e *SbatchError) Unwrap() error { return e.Err }

// Submitted are the ids of the submitted jobs.
type Submitted struct{ Array, Merge string }

// Submit writes the scripts into Dir (made if needed) and submits them:
// the array job, then the merge with --dependency=afterok on it.
func (j *Job) Submit(ctx context.Context) (*Submitted, error) {
	job, merge, err := j.SlurmScripts()
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		return nil, ErrNoSbatch
	}
	if err := j.write(map[string]string{SlurmScript: job, MergeScript: merge}, 0o755); err != nil {
		return nil, err
	}
	cmds := j.SbatchCommands("")
	array, err := sbatch(ctx, cmds[0])
	if err != nil {
		return nil, err
	}
	cmds = j.SbatchCommands(array)
	id, err := sbatch(ctx, cmds[1])
	if err != nil {
		var se *SbatchError
		if errors.As(err, &se) {
			se.Submitted = array
		}
		return nil, err
	}
	return &Submitted{Array: array, Merge: id}, nil
}

// write writes files (by name) into Dir.
func (j *Job) write(files map[string]string, perm os.FileMode) error {
	if err := os.MkdirAll(j.Dir, 0o755); err != nil {
		return err
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(j.Dir, name), []byte(text), perm); err != nil {
			return err
		}
		if err := os.Chmod(filepath.Join(j.Dir, name), perm); err != nil {
			return err
		}
	}
	return nil
}

// sbatch runs args (sbatch --parsable ...) and returns the job id it
// printed ("123" or "123;cluster").
func sbatch(ctx context.Context, args []string) (string, error) {
	var stderr strings.Builder
	c := exec.CommandContext(ctx, args[0], args[1:]...)
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return "", &SbatchError{Command: args, Output: stderr.String(), Err: err}
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	id, _, _ := strings.Cut(lines[len(lines)-1], ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", &SbatchError{Command: args, Output: string(out) + stderr.String(), Err: errors.New("no job id in its output")}
	}
	return id, nil
}
