package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kerneltune/kerneltune/internal/cluster"
	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// kerneltuneName is the name under which this test binary is the command
// itself (TestMain).
const kerneltuneName = "kerneltune"

// kerneltuneCopy copies this test binary to dir/bin/kerneltune, which runs
// as the command (TestMain): the scripts of compare --slurm name the binary
// that wrote them, and a Kubernetes pod runs kerneltune from its PATH.
func kerneltuneCopy(t *testing.T, dir string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", kerneltuneName)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// clusterStudy is the small run of the cluster tests: 8 jobs.
var clusterStudy = []string{"builtin:heart", "builtin:diabetes", "--methods", "svm,rcsc", "--partitions", "2", "--train-size", "40", "--test-size", "40"}

// mergedRecords reads the records of paths (files or directories) as
// report does (experiment.ResultsFiles, experiment.MergeFiles).
func mergedRecords(t *testing.T, paths ...string) []experiment.Record {
	t.Helper()
	files, err := experiment.ResultsFiles(paths)
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.MergeFiles(context.Background(), experiment.MergeSettings{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	return res.Records
}

// sameJobs checks that got holds the jobs of want, record by record, with
// the same results: timings and provenance (the command line, which names
// the shard) aside.
func sameJobs(t *testing.T, want, got []experiment.Record) {
	t.Helper()
	mask := func(rs []experiment.Record) map[experiment.Key]experiment.Record {
		out := map[experiment.Key]experiment.Record{}
		for _, r := range rs {
			r.Seconds, r.SharedSeconds, r.Provenance = 0, 0, nil
			out[r.Key()] = r
		}
		return out
	}
	w, g := mask(want), mask(got)
	if len(w) != len(want) || len(g) != len(got) || len(w) != len(g) {
		t.Fatalf("%d records (%d jobs) against the one-machine run's %d (%d jobs)", len(got), len(g), len(want), len(w))
	}
	for k, r := range w {
		if o, ok := g[k]; !ok {
			t.Errorf("job %v is missing", k)
		} else if !reflect.DeepEqual(r, o) {
			t.Errorf("job %v differs from the one-machine run's:\n%+v\n%+v", k, o, r)
		}
	}
}

// The dry run prints the array job and the merge without submitting or
// writing anything: N tasks, each's cores from --workers, its memory from
// the run's estimate (a quarter more, at least 256 MB), its time from the
// expected cost, requeued when preempted and resuming its shard's file;
// the merge after every task ended well, in the formats asked.
func TestCompareSlurmDryRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "study")
	args := append(append([]string{"compare"}, clusterStudy...), "--slurm", "3", "--workers", "2", "--out", dir,
		"--format", "markdown", "--html", filepath.Join(dir, "report.html"), "--dry-run")
	out := mustRun(t, args...)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the dry run made %s (%v)", dir, err)
	}
	// The memory and time the scripts must ask for, from the library.
	var o *compareOptions
	var pargs []string
	c := newCompareCmdWith(&globalOptions{Out: io.Discard, ErrOut: io.Discard}, func(_ context.Context, opt *compareOptions, a []string) error {
		o, pargs = opt, a
		return nil
	})
	c.SetArgs(args[1:])
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	s := o.settings(pargs)
	s.Workers = 2
	p, err := experiment.Prepare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	sp := p.ShardPlan(3, 2)
	if sp.Jobs != 8 || sp.PeakBytes <= 0 {
		t.Fatalf("shard plan %+v", sp)
	}
	bin, _ := os.Executable()
	wd, _ := os.Getwd()
	// The run's fingerprint, as compare --dry-run prints it.
	var plan struct{ Run string }
	if err := json.Unmarshal([]byte(mustRun(t, append(append([]string{"compare"}, clusterStudy...), "--dry-run", "--format", "json")...)), &plan); err != nil || plan.Run == "" {
		t.Fatalf("the dry run's plan: %v", err)
	}
	run := plan.Run
	for _, want := range []string{
		"# " + filepath.Join(dir, "job.sh") + "\n#!/bin/bash\n",
		"#SBATCH --array=1-3\n",
		"#SBATCH --cpus-per-task=2\n",
		fmt.Sprintf("#SBATCH --mem=%dM\n", cluster.MemMB(sp.PeakBytes)),
		"#SBATCH --time=00:11:00\n",
		"#SBATCH --requeue\n",
		"#SBATCH --chdir=" + wd + "\n",
		"#SBATCH --output=" + dir + "/shard-%a.log\n",
		bin + ` compare --methods=svm,rcsc --partitions=2 --test-size=40 --train-size=40 --shard "$i/3" --out "$dir/shard-$i.jsonl" --resume --workers 2 --format json -- builtin:heart builtin:diabetes >"$summary"`,
		"#SBATCH --job-name=kerneltune-" + run + "\n",
		"#SBATCH --job-name=kerneltune-" + run + "-merge\n",
		"exec " + bin + " report " + dir + " --format=markdown --html=" + dir + "/report.html >" + dir + "/report.md\n",
		"sbatch --parsable " + dir + "/job.sh\n",
		"sbatch --parsable --dependency=afterok:ARRAY_JOB_ID --kill-on-invalid-dep=yes " + dir + "/merge.sh\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run lacks %q:\n%s", want, out)
		}
	}
	if cluster.MemMB(sp.PeakBytes) != max(256, (sp.PeakBytes*5/4+1<<20-1)>>20) {
		t.Errorf("MemMB(%d) = %d", sp.PeakBytes, cluster.MemMB(sp.PeakBytes))
	}
}

// The flags --slurm and --k8s do not go with are refused before any work,
// naming the flag.
func TestCompareClusterUsage(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "results.jsonl")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "d")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--slurm", "2"}, "--slurm needs --out DIR"},
		{[]string{"--slurm", "2", "--k8s", "2", "--out", dir}, "--slurm and --k8s: give one"},
		{[]string{"--k8s", "-1", "--out", dir}, "--k8s must be at least 1, got -1"},
		{[]string{"--slurm", "2", "--out", dir, "--shard", "1/2"}, "--slurm runs every shard: --shard does not apply"},
		{[]string{"--slurm", "2", "--out", file}, "--slurm: --out " + file + " is a file"},
		{[]string{"--slurm", "9", "--out", dir}, "--slurm 9: the run has 8 jobs, so at most 8 shards"},
	} {
		_, errOut, code := runCLI(t, append(append([]string{"compare"}, clusterStudy...), tc.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errOut, ExitUsage, tc.want)
		}
	}
	wd, _ := os.Getwd()
	_, errOut, code := runCLI(t, append(append([]string{"compare"}, clusterStudy...), "--k8s", "2", "--out", dir)...)
	if want := "--k8s: --out " + dir + " is outside the working directory " + wd; code != ExitUsage || !strings.Contains(errOut, want) {
		t.Errorf("--k8s outside the working directory: exit %d, %q; want %q", code, errOut, want)
	}
	_, errOut, code = runCLIStdin(t, "1,2\n", "compare", "-", "--slurm", "2", "--out", dir)
	if code != ExitUsage || !strings.Contains(errOut, "--slurm: standard input (DATA -) cannot be read by the cluster's tasks") {
		t.Errorf("DATA -: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused run made %s", dir)
	}
}

// report DIR reads every results file (*.jsonl) in DIR; a directory without
// one is refused, naming it (before, report read the directory as a file).
func TestReportDirectory(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := runCLI(t, "report", dir)
	if code != ExitError || !strings.Contains(errOut, "report: "+dir+" is a directory without results files (*.jsonl)") {
		t.Fatalf("an empty directory: exit %d, %q", code, errOut)
	}
	for i := 1; i <= 2; i++ {
		mustRun(t, append(append([]string{"compare"}, clusterStudy...), "--shard", fmt.Sprintf("%d/2", i), "--out", filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i)), "-q")...)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not records\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "report", dir, "--per-job", "--format", "csv")
	if n := strings.Count(out, "\n"); n != 9 {
		t.Errorf("report DIR: %d lines, want a header and the run's 8 jobs:\n%s", n, out)
	}
}

// runShell runs a shell script's text with env added, in dir, and fails
// the test unless it exits 0.
func runShell(t *testing.T, dir string, env []string, shell, script string) string {
	t.Helper()
	c := exec.Command(shell, "-c", script)
	c.Dir, c.Env = dir, append(os.Environ(), env...)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// compare --slurm with sbatch on the PATH writes DIR/job.sh and
// DIR/merge.sh and submits them, the merge depending on the array job
// (afterok). Run as Slurm runs them (each task with its
// SLURM_ARRAY_TASK_ID, then the merge), they give the one-machine run's
// records and its report.
func TestCompareSlurmSubmitsAndScriptsRun(t *testing.T) {
	tmp := t.TempDir()
	bin := kerneltuneCopy(t, tmp)
	fake := filepath.Join(tmp, "fake")
	if err := os.MkdirAll(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(tmp, "sbatch.calls")
	// An sbatch that records its arguments and answers as --parsable does.
	sbatch := "#!/bin/sh\necho \"$*\" >>" + calls + "\necho $((40 + $(wc -l <" + calls + ")))\n"
	if err := os.WriteFile(filepath.Join(fake, "sbatch"), []byte(sbatch), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "study")
	c := exec.Command(bin, append(append([]string{"compare"}, clusterStudy...), "--slurm", "3", "--out", dir)...)
	c.Dir, c.Env = tmp, append(os.Environ(), "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("compare --slurm: %v\n%s", err, out)
	}
	for _, want := range []string{"3 shards of its 8 jobs submitted as Slurm array job 41", "merge job 42 writes " + dir + "/report.txt"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("compare --slurm says %q, want %q in it", out, want)
		}
	}
	got, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	if want := "--parsable " + dir + "/job.sh\n--parsable --dependency=afterok:41 --kill-on-invalid-dep=yes " + dir + "/merge.sh\n"; string(got) != want {
		t.Errorf("sbatch was called with\n%s\nwant\n%s", got, want)
	}
	for i := 1; i <= 3; i++ {
		runShell(t, tmp, []string{fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i)}, "bash", filepath.Join(dir, "job.sh"))
	}
	runShell(t, tmp, nil, "bash", filepath.Join(dir, "merge.sh"))
	single := filepath.Join(tmp, "single.jsonl")
	mustRun(t, append(append([]string{"compare"}, clusterStudy...), "--out", single, "-q")...)
	sameJobs(t, mergedRecords(t, single), mergedRecords(t, dir))
	rep, err := os.ReadFile(filepath.Join(dir, "report.txt"))
	if err != nil || !strings.Contains(string(rep), "heart (2 partitions: 40 train / 40 test of 270 rows)") {
		t.Errorf("the merge's report.txt: %v\n%s", err, rep)
	}
}

// compare --k8s writes an Indexed Job of the shards and a Job of the merge.
// Their shape is checked by parsing them; their commands, run as the pods
// run them (each with its JOB_COMPLETION_INDEX, kerneltune on the PATH),
// give the one-machine run's records.
func TestCompareK8sManifests(t *testing.T) {
	tmp := t.TempDir()
	bin := kerneltuneCopy(t, tmp)
	wd, err := filepath.EvalSymlinks(tmp) // the manifests mount the working directory
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wd, "study")
	c := exec.Command(bin, append(append([]string{"compare"}, clusterStudy...), "--k8s", "3", "--out", "study", "--format", "csv")...)
	c.Dir = wd
	b, err := c.CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("compare --k8s: %v\n%s", err, out)
	}
	for _, want := range []string{"kubectl apply -f " + dir + "/job.yaml", "kubectl wait --for=condition=complete --timeout=-1s job/kerneltune-", "kubectl apply -f " + dir + "/merge.yaml"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare --k8s says %q, want %q in it", out, want)
		}
	}
	type container struct {
		Image        string
		WorkingDir   string `yaml:"workingDir"`
		Command      []string
		Resources    struct{ Requests, Limits map[string]string }
		VolumeMounts []struct {
			Name      string
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
	type job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string
		Metadata   struct{ Name string }
		Spec       struct {
			CompletionMode           string `yaml:"completionMode"`
			Completions, Parallelism int
			Template                 struct {
				Spec struct {
					RestartPolicy string `yaml:"restartPolicy"`
					Containers    []container
					Volumes       []struct {
						Name                  string
						PersistentVolumeClaim struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					}
				}
			}
		}
	}
	read := func(name string) job {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var j job
		if err := yaml.Unmarshal(b, &j); err != nil {
			t.Fatalf("%s does not parse: %v\n%s", name, err, b)
		}
		return j
	}
	shards, merge := read("job.yaml"), read("merge.yaml")
	if shards.APIVersion != "batch/v1" || shards.Kind != "Job" || shards.Spec.CompletionMode != "Indexed" ||
		shards.Spec.Completions != 3 || shards.Spec.Parallelism != 3 || !strings.HasPrefix(shards.Metadata.Name, "kerneltune-") {
		t.Errorf("job.yaml: %+v", shards)
	}
	if merge.Kind != "Job" || merge.Spec.CompletionMode != "" || merge.Spec.Completions != 1 || merge.Metadata.Name != shards.Metadata.Name+"-merge" {
		t.Errorf("merge.yaml: %+v", merge)
	}
	for _, j := range []job{shards, merge} {
		ps := j.Spec.Template.Spec
		if len(ps.Containers) != 1 || ps.RestartPolicy != "OnFailure" || len(ps.Volumes) != 1 || ps.Volumes[0].PersistentVolumeClaim.ClaimName != cluster.Claim {
			t.Fatalf("%s: pod %+v", j.Metadata.Name, ps)
		}
		c := ps.Containers[0]
		if c.Image != "kerneltune:latest" && !strings.HasPrefix(c.Image, "kerneltune:") || c.WorkingDir != wd || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != wd || len(c.Command) != 3 || c.Command[0] != "/bin/sh" ||
			c.Resources.Requests["cpu"] != "1" || c.Resources.Limits["memory"] != c.Resources.Requests["memory"] {
			t.Errorf("%s: container %+v", j.Metadata.Name, c)
		}
	}
	task := shards.Spec.Template.Spec.Containers[0].Command[2]
	// --format is the report's; the tasks' summaries are JSON.
	for _, want := range []string{"i=$((JOB_COMPLETION_INDEX + 1))", "kerneltune compare --methods=svm,rcsc", `--shard "$i/3" --out "$dir/shard-$i.jsonl" --resume --workers 1 --format json`} {
		if !strings.Contains(task, want) {
			t.Errorf("the shard's command lacks %q:\n%s", want, task)
		}
	}
	path := []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	for k := 0; k < 3; k++ {
		runShell(t, wd, append(path, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", k)), "/bin/sh", task)
	}
	runShell(t, wd, path, "/bin/sh", merge.Spec.Template.Spec.Containers[0].Command[2])
	single := filepath.Join(tmp, "single.jsonl")
	mustRun(t, append(append([]string{"compare"}, clusterStudy...), "--out", single, "-q")...)
	sameJobs(t, mergedRecords(t, single), mergedRecords(t, dir))
	if rep, err := os.ReadFile(filepath.Join(dir, "report.csv")); err != nil || !strings.HasPrefix(string(rep), "dataset,") {
		t.Errorf("the merge's report.csv: %v\n%.200s", err, rep)
	}
}
