package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// slurmStudy is the run of the single-node Slurm test: heart and diabetes,
// three methods, 60 jobs of about 0.1 s (24 under the race detector,
// whose processes are ten times slower), so that a shard runs for seconds
// and can be requeued half-way.
func slurmStudy() []string {
	parts, train := "10", "150"
	if raceBuild {
		parts, train = "4", "100"
	}
	return []string{"builtin:heart", "builtin:diabetes", "--methods", "svm,spd,rcsc", "--partitions", parts, "--train-size", train, "--test-size", "100"}
}

// slurmTool runs a Slurm command and returns its output, trimmed.
func slurmTool(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// jobField returns a field of scontrol show job (JobState, Restarts).
func jobField(ctx context.Context, id, field string) string {
	out, _ := slurmTool(ctx, "scontrol", "show", "job", id)
	m := regexp.MustCompile(`\b` + field + `=(\S+)`).FindStringSubmatch(out)
	if m == nil {
		return ""
	}
	return m[1]
}

// countLines returns the complete lines of a file (its records), 0 when
// it does not exist yet.
func countLines(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "\n")
}

// A real single-node Slurm (scripts/slurm-localhost.sh: munge, slurmctld
// and slurmd on this machine): compare --slurm 4 submits the shards and
// the merge; one task is cancelled and requeued half-way (scontrol
// requeue) and resumes its shard; the merge runs once every task has ended
// well, and its records are the one-machine run's, record by record. It
// needs root (to start the daemons) and Debian's slurm-wlm and munge
// (scripts/ensure-tools.sh), and skips with the reason elsewhere.
func TestSlurmSingleNode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the single-node Slurm test runs a study of about a minute")
	}
	if os.Geteuid() != 0 {
		t.Skip("the single-node Slurm test starts slurmctld and slurmd (scripts/slurm-localhost.sh): run it as root")
	}
	for _, tool := range []string{"sbatch", "squeue", "scontrol", "scancel", "slurmctld", "slurmd", "munged"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: scripts/ensure-tools.sh (as root) installs Debian's slurm-wlm and munge", tool)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	if out, err := slurmTool(ctx, "../scripts/slurm-localhost.sh"); err != nil {
		t.Skipf("scripts/slurm-localhost.sh could not start a single-node Slurm here (%v): %s", err, out)
	}
	t.Logf("slurm-localhost.sh: Slurm up after %.1f s", time.Since(start).Seconds())

	tmp := t.TempDir()
	bin := kerneltuneCopy(t, tmp)
	dir := filepath.Join(tmp, "study")
	args := append(append([]string{"compare"}, slurmStudy()...), "--slurm", "4", "--out", dir, "--format", "markdown", "--html", filepath.Join(dir, "report.html"))
	submit := exec.CommandContext(ctx, bin, args...)
	submit.Dir = tmp
	out, err := submit.CombinedOutput()
	if err != nil {
		t.Fatalf("compare --slurm 4: %v\n%s", err, out)
	}
	t.Logf("submit: kerneltune %s\n%s", strings.Join(args, " "), out)
	ids := regexp.MustCompile(`array job (\d+) .*\nmerge job (\d+) `).FindStringSubmatch(string(out))
	if ids == nil {
		t.Fatalf("no job ids in compare --slurm's output:\n%s", out)
	}
	array, merge := ids[1], ids[2]
	t.Cleanup(func() { slurmTool(context.Background(), "scancel", array, merge) }) // a test that failed half-way
	// The one-machine run, in this process while the cluster works.
	single := filepath.Join(tmp, "single.jsonl")
	type result struct {
		errOut string
		code   int
	}
	singleDone := make(chan result, 1)
	go func() {
		_, errOut, code := runCLI(t, append(append([]string{"compare"}, slurmStudy()...), "--out", single, "-q")...)
		singleDone <- result{errOut, code}
	}()

	// Requeue a task half-way: the first running one that has recorded a
	// job or two of its shard.
	task, at := "", 0
	for try := 0; task == "" && ctx.Err() == nil; try++ {
		if try%50 == 49 && jobField(ctx, merge, "JobState") != "PENDING" {
			t.Fatalf("every task ended before one could be requeued half-way (the merge job is %s): the study is too short for this machine", jobField(ctx, merge, "JobState"))
		}
		for k := 1; k <= 4 && task == ""; k++ {
			n := countLines(filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", k)))
			if n < 1 || n > 2 {
				continue
			}
			id := fmt.Sprintf("%s_%d", array, k)
			if jobField(ctx, id, "JobState") != "RUNNING" {
				continue
			}
			if msg, err := slurmTool(ctx, "scontrol", "requeue", id); err != nil {
				t.Logf("scontrol requeue %s: %v %s (trying another moment)", id, err, msg)
				continue
			}
			task, at = id, n
		}
		time.Sleep(20 * time.Millisecond)
	}
	if task == "" {
		t.Fatalf("no task was running with one or two records before the timeout: squeue says\n%s", must(slurmTool(context.Background(), "squeue")))
	}
	k := task[strings.LastIndex(task, "_")+1:]
	t.Logf("requeue: scontrol requeue %s with %d record(s) in shard-%s.jsonl, at %.1f s", task, at, k, time.Since(start).Seconds())
	// Slurm holds a requeued job back for a while (its BeginTime, about
	// two minutes on 22.05); the test lets it start at once.
	for ctx.Err() == nil {
		if jobField(ctx, task, "JobState") == "PENDING" {
			if msg, err := slurmTool(ctx, "scontrol", "update", "JobId="+task, "StartTime=now"); err != nil {
				t.Logf("scontrol update JobId=%s StartTime=now: %v %s", task, err, msg)
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The merge runs after every task, the requeued one's second run
	// included, has ended well.
	state := ""
	for ctx.Err() == nil {
		state = jobField(ctx, merge, "JobState")
		if state == "COMPLETED" || state == "FAILED" || state == "CANCELLED" || state == "TIMEOUT" {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	mergeLog, _ := os.ReadFile(filepath.Join(dir, "merge.log"))
	taskLog, _ := os.ReadFile(filepath.Join(dir, "shard-"+k+".log"))
	t.Logf("merge: job %s %s at %.1f s; merge.log:\n%s\nshard-%s.log:\n%s", merge, state, time.Since(start).Seconds(), mergeLog, k, taskLog)
	if state != "COMPLETED" {
		sq, _ := slurmTool(context.Background(), "squeue")
		t.Fatalf("the merge job %s is %q, not COMPLETED; squeue:\n%s", merge, state, sq)
	}
	if r := jobField(ctx, task, "Restarts"); r != "1" {
		t.Errorf("%s restarted %s times, want 1", task, r)
	}
	if !strings.Contains(string(taskLog), "DUE TO JOB REQUEUE") || !strings.Contains(string(taskLog), "interrupted by SIGTERM") {
		t.Errorf("shard-%s.log does not show the requeue and compare's SIGTERM:\n%s", k, taskLog)
	}
	// The requeued task resumed its shard: the jobs of its first run were
	// read back, not run again, and it ran the rest.
	var sum struct {
		InShard int `json:"jobs_in_shard"`
		Done    int `json:"jobs_done"`
		Resumed int `json:"jobs_resumed"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "shard-"+k+".json"))
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatalf("shard-%s.json: %v\n%s", k, err, b)
	}
	t.Logf("shard %s after the requeue: %d of its %d jobs resumed from the first run, %d run after it", k, sum.Resumed, sum.InShard, sum.InShard-sum.Resumed)
	if sum.Resumed < at || sum.Resumed >= sum.InShard || sum.Done != sum.InShard {
		t.Errorf("the requeued shard: %+v; want at least the %d jobs recorded before the requeue resumed, and the rest run", sum, at)
	}
	// Nothing recorded twice, nothing lost: as many records in the shards'
	// files as the run has jobs, the one-machine run's, record by record.
	if r := <-singleDone; r.code != 0 {
		t.Fatalf("the one-machine run: exit %d\n%s", r.code, r.errOut)
	}
	want := mergedRecords(t, single)
	files, err := experiment.ResultsFiles([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range files {
		rs, err := experiment.ReadRecordsFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += len(rs)
	}
	if lines != len(want) {
		t.Errorf("the shards' files hold %d records, the run has %d jobs", lines, len(want))
	}
	sameJobs(t, want, mergedRecords(t, dir))
	rep, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(rep), "**diabetes (") {
		t.Errorf("report.md: %v\n%s", err, rep)
	}
	if st, err := os.Stat(filepath.Join(dir, "report.html")); err != nil || st.Size() == 0 {
		t.Errorf("report.html: %v", err)
	}
	t.Logf("done at %.1f s: %d records, equal to the one-machine run's", time.Since(start).Seconds(), lines)
}

// must returns s, for a message.
func must(s string, _ error) string { return s }
