package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// WritePlan writes a dry run's plan (experiment.Plan): every dataset as
// read and partitioned, the methods and the jobs, as text or JSON.
func WritePlan(w io.Writer, format string, p *experiment.Plan) error {
	if format == FormatJSON {
		return RenderJSON(w, p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "dry run: run %s, nothing was run\n\n", p.Run)
	for _, d := range p.Datasets {
		fmt.Fprintf(&b, "%s\n", d.Name)
		for _, kv := range d.Description() {
			fmt.Fprintf(&b, "  %-13s %s\n", kv[0], kv[1])
		}
	}
	fmt.Fprintf(&b, "\nmethods: %s\n", strings.Join(p.Entries, ", "))
	fmt.Fprintf(&b, "jobs: %d = %d partitions of %d datasets × %d methods", p.Jobs, p.Jobs/max(len(p.Entries), 1), len(p.Datasets), len(p.Entries))
	if p.Shards > 1 {
		fmt.Fprintf(&b, "; shard %d/%d runs %d of them", p.Shard, p.Shards, p.ShardJobs)
	}
	b.WriteString("\n")
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
