package cmd

// compare --slurm N and --k8s N: the run's shards as a cluster's array job
// and their merge (internal/cluster writes and submits them).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/kerneltune/kerneltune/internal/cluster"
	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// clusterOptions are compare's --slurm and --k8s.
type clusterOptions struct {
	Slurm, K8s int
	// compare and report are the flags the user gave (before a study set
	// any), split between the tasks' compare and the merge's report.
	compare, report []string
}

// reportFlags are the output flags of compare that the merge's report
// takes; clusterOwn those the tasks set themselves or that make the
// cluster run.
var (
	reportFlags = []string{"format", "html", "plot", "plot-format", "dpi", "plot-sort", "metric", "rope"}
	clusterOwn  = []string{"slurm", "k8s", "out", "resume", "shard", "dry-run", "workers"}
)

func (c *clusterOptions) addFlags(f *pflag.FlagSet) {
	f.IntVar(&c.Slurm, "slurm", 0, "run the comparison as a Slurm array job of N shards into --out DIR and merge them into DIR/report.*: writes DIR/job.sh and DIR/merge.sh and submits them with sbatch (--dry-run prints them)")
	f.IntVar(&c.K8s, "k8s", 0, "write the comparison as a Kubernetes Indexed Job of N shards into --out DIR (DIR/job.yaml, and DIR/merge.yaml that merges them; --dry-run prints them)")
}

func (c *clusterOptions) on() bool { return c.Slurm != 0 || c.K8s != 0 }

// shards is the N of --slurm or --k8s, and its flag.
func (c *clusterOptions) shards() (int, string) {
	if c.K8s != 0 {
		return c.K8s, "--k8s"
	}
	return c.Slurm, "--slurm"
}

// capture records the flags given on the command line, before a study
// sets its own: the tasks' compare gets them as they were given.
func (c *clusterOptions) capture(cmd *cobra.Command) {
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if slices.Contains(clusterOwn, f.Name) {
			return
		}
		v := f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), ",")
		}
		arg := "--" + f.Name + "=" + v
		if slices.Contains(reportFlags, f.Name) {
			c.report = append(c.report, arg)
		} else {
			c.compare = append(c.compare, arg)
		}
		if f.Name == "quiet" {
			c.report = append(c.report, arg)
		}
	})
}

// check refuses the flags --slurm and --k8s do not go with.
func (c *clusterOptions) check(o *compareOptions, args []string) error {
	if !c.on() {
		return nil
	}
	n, flag := c.shards()
	st, statErr := os.Stat(o.s.Out)
	return cmp.Or(
		usageIf(c.Slurm != 0 && c.K8s != 0, "--slurm and --k8s: give one"),
		usageIf(c.Slurm < 0 || c.K8s < 0, "%s must be at least 1, got %d", flag, n),
		usageIf(o.s.Out == "", "%s needs --out DIR: the directory of the shards' results files, logs and report", flag),
		usageIf(statErr == nil && !st.IsDir(), "%s: --out %s is a file; give a directory (made if needed) for the shards' results files, logs and report", flag, o.s.Out),
		usageIf(o.Shard != "", "%s runs every shard: --shard does not apply", flag),
		usageIf(slices.Contains(args, "-") || o.data.Test == "-", "%s: standard input (DATA -) cannot be read by the cluster's tasks; give a file", flag),
	)
}

// runCluster prepares the run (the data read, the jobs planned and their
// memory estimated, as a run's own checks) and writes its shards' jobs:
// for Slurm, submitted unless --dry-run; for Kubernetes, written (or
// printed) with the kubectl commands that run them.
func runCluster(ctx context.Context, o *compareOptions, args []string) error {
	n, flag := o.cluster.shards()
	workers := max(o.s.Workers, 1) // 0, all cores, is the node's: a task has its own
	s := o.settings(args)
	s.Out, s.Workers = "", workers
	p, err := experiment.Prepare(ctx, s)
	if err != nil {
		return compareError(o.MemMB, err)
	}
	sp := p.ShardPlan(n, workers)
	if n > sp.Jobs {
		return usageErrorf("%s %d: the run has %d jobs, so at most %d shards", flag, n, sp.Jobs, sp.Jobs)
	}
	j, err := o.clusterJob(sp, n, args)
	if err != nil {
		return err
	}
	if o.cluster.K8s != 0 {
		return writeK8s(o, j)
	}
	job, merge, err := j.SlurmScripts()
	if err != nil {
		return fmt.Errorf("compare: %s: %w", flag, err)
	}
	if o.DryRun {
		cmds := j.SbatchCommands("ARRAY_JOB_ID")
		_, err := fmt.Fprintf(o.Out, "# %s\n%s\n# %s\n%s\n# submit with:\n%s\n%s\n", filepath.Join(j.Dir, cluster.SlurmScript), job,
			filepath.Join(j.Dir, cluster.MergeScript), merge, shellLine(cmds[0]), shellLine(cmds[1]))
		return err
	}
	sub, err := j.Submit(ctx)
	if errors.Is(err, cluster.ErrNoSbatch) {
		return fmt.Errorf("compare: --slurm: %w; --dry-run prints the scripts to submit elsewhere", err)
	} else if err != nil {
		return fmt.Errorf("compare: --slurm: %w", err)
	}
	_, err = fmt.Fprintf(o.Out, "run %s: %d shards of its %d jobs submitted as Slurm array job %s (%s: %d core(s), %d MB, %s each)\n"+
		"merge job %s writes %s once every shard has ended well\n"+
		"logs: %s, %s; follow with: squeue -j %s,%s\n",
		sp.Run, n, sp.Jobs, sub.Array, filepath.Join(j.Dir, cluster.SlurmScript), j.Workers, j.MemMB, j.Time, sub.Merge, j.ReportFile,
		filepath.Join(j.Dir, "shard-N.log"), filepath.Join(j.Dir, "merge.log"), sub.Array, sub.Merge)
	return err
}

// writeK8s writes (or with --dry-run prints) the Kubernetes manifests and
// prints the commands that run them.
func writeK8s(o *compareOptions, j *cluster.Job) error {
	job, merge, err := j.K8sManifests()
	if err != nil {
		return err
	}
	if o.DryRun {
		_, err := fmt.Fprintf(o.Out, "# %s\n%s---\n# %s\n%s", filepath.Join(j.Dir, cluster.K8sJob), job, filepath.Join(j.Dir, cluster.K8sMerge), merge)
		return err
	}
	if err := j.WriteK8s(); err != nil {
		return fmt.Errorf("compare: --k8s: %w", err)
	}
	_, err = fmt.Fprintf(o.Out, "wrote %s and %s (image %s, claim %q mounted at %s: name yours); run them with:\n",
		filepath.Join(j.Dir, cluster.K8sJob), filepath.Join(j.Dir, cluster.K8sMerge), cluster.Image(j.Version), cluster.Claim, j.WorkDir)
	for _, c := range j.KubectlCommands() {
		if err == nil {
			_, err = fmt.Fprintln(o.Out, "  "+c)
		}
	}
	return err
}

// clusterJob is the cluster.Job of the flags: this binary (for Kubernetes,
// kerneltune on the image's PATH) run in this directory, the results in
// --out made absolute.
func (o *compareOptions) clusterJob(sp *experiment.ShardPlan, n int, args []string) (*cluster.Job, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("compare: the working directory: %w", err)
	}
	dir, err := filepath.Abs(o.s.Out)
	if err != nil {
		return nil, fmt.Errorf("compare: --out %s: %w", o.s.Out, err)
	}
	if o.cluster.K8s != 0 && !strings.HasPrefix(dir, strings.TrimSuffix(wd, "/")+"/") {
		return nil, usageErrorf("--k8s: --out %s is outside the working directory %s, which the manifests mount as the pods' volume: give a DIR inside it", o.s.Out, wd)
	}
	bin := "kerneltune"
	if o.cluster.Slurm > 0 {
		if bin, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("compare: --slurm: the path of kerneltune: %w", err)
		}
	}
	var expected []float64
	for _, l := range sp.Shards {
		expected = append(expected, l.Cost/float64(sp.Workers))
	}
	ext := map[string]string{formatTable: "txt", formatMarkdown: "md", formatCSV: "csv", formatJSON: "json", formatLaTeX: "tex"}[o.Format]
	return &cluster.Job{
		Name: "kerneltune-" + sp.Run, Binary: bin, WorkDir: wd, Dir: dir,
		Compare: o.cluster.compare, Data: args,
		Report: o.cluster.report, ReportFile: filepath.Join(dir, "report."+ext),
		Shards: n, Workers: sp.Workers, Jobs: sp.Jobs,
		MemMB: cluster.MemMB(sp.PeakBytes), Time: cluster.TimeLimit(sp.Longest, sp.Workers),
		Expected: expected, Version: buildinfo.Version(),
	}, nil
}

// shellLine joins a command's words for a shell.
func shellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = buildinfo.ShellQuote(w)
	}
	return strings.Join(q, " ")
}
