package cluster

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
)

// The Kubernetes side (compare --k8s N): an Indexed Job of the shards
// (completionMode: Indexed; the pod of index k runs shard k+1, its index
// in JOB_COMPLETION_INDEX) and a Job that merges them, applied once the
// first completes (Kubernetes has no dependency between Jobs: the printed
// kubectl commands wait for it). Both run the image Image with kerneltune
// on its PATH and /bin/sh, in WorkDir, on the PersistentVolumeClaim Claim
// mounted there, so that the paths of the command line and the results
// directory are the same as where compare --k8s ran.

// Claim is the PersistentVolumeClaim the manifests mount at WorkDir.
const Claim = "kerneltune"

// Image is the container image the manifests name for kerneltune version
// v (latest for a version that is no image tag, such as "(devel)"): an
// image of the user's to be named in its place (kubectl set image).
func Image(v string) string {
	v = strings.TrimPrefix(v, "v")
	if !imageTag.MatchString(v) {
		v = "latest"
	}
	return "kerneltune:" + v
}

// imageTag is the form of an image's tag.
var imageTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// K8s manifest types: the fields the manifests use, in the order
// Kubernetes' documentation gives them.
type (
	k8sJob struct {
		APIVersion string   `yaml:"apiVersion"`
		Kind       string   `yaml:"kind"`
		Metadata   k8sMeta  `yaml:"metadata"`
		Spec       k8sSpecJ `yaml:"spec"`
	}
	k8sMeta struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	}
	k8sSpecJ struct {
		CompletionMode string      `yaml:"completionMode,omitempty"`
		Completions    int         `yaml:"completions"`
		Parallelism    int         `yaml:"parallelism"`
		BackoffLimit   int         `yaml:"backoffLimit"`
		Template       k8sTemplate `yaml:"template"`
	}
	k8sTemplate struct {
		Metadata k8sMeta `yaml:"metadata"`
		Spec     k8sPod  `yaml:"spec"`
	}
	k8sPod struct {
		RestartPolicy string         `yaml:"restartPolicy"`
		Containers    []k8sContainer `yaml:"containers"`
		Volumes       []k8sVolume    `yaml:"volumes"`
	}
	k8sContainer struct {
		Name         string        `yaml:"name"`
		Image        string        `yaml:"image"`
		WorkingDir   string        `yaml:"workingDir"`
		Command      []string      `yaml:"command"`
		Resources    k8sResources  `yaml:"resources"`
		VolumeMounts []k8sVolMount `yaml:"volumeMounts"`
	}
	k8sResources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	}
	k8sVolMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	}
	k8sVolume struct {
		Name                  string      `yaml:"name"`
		PersistentVolumeClaim k8sClaimRef `yaml:"persistentVolumeClaim"`
	}
	k8sClaimRef struct {
		ClaimName string `yaml:"claimName"`
	}
)

// K8sManifests returns the Indexed Job of the shards (DIR/job.yaml) and the
// Job of the merge (DIR/merge.yaml), each one YAML document.
func (j *Job) K8sManifests() (job, merge []byte, err error) {
	labels := map[string]string{"app.kubernetes.io/name": "kerneltune", "kerneltune/run": strings.TrimPrefix(j.Name, "kerneltune-")}
	pod := func(name, shell string, cpu int, memMB int64) k8sTemplate {
		mem := strconv.FormatInt(memMB, 10) + "Mi"
		return k8sTemplate{Metadata: k8sMeta{Labels: labels}, Spec: k8sPod{
			// A container that stops (a signal, the node's memory) starts
			// again in its pod and resumes its shard.
			RestartPolicy: "OnFailure",
			Containers: []k8sContainer{{Name: name, Image: Image(j.Version), WorkingDir: j.WorkDir,
				Command:      []string{"/bin/sh", "-c", shell},
				Resources:    k8sResources{Requests: map[string]string{"cpu": strconv.Itoa(cpu), "memory": mem}, Limits: map[string]string{"memory": mem}},
				VolumeMounts: []k8sVolMount{{Name: "work", MountPath: j.WorkDir}}}},
			Volumes: []k8sVolume{{Name: "work", PersistentVolumeClaim: k8sClaimRef{ClaimName: Claim}}},
		}}
	}
	shards := k8sJob{APIVersion: "batch/v1", Kind: "Job", Metadata: k8sMeta{Name: j.Name, Labels: labels},
		Spec: k8sSpecJ{CompletionMode: "Indexed", Completions: j.Shards, Parallelism: j.Shards, BackoffLimit: 3 * j.Shards,
			Template: pod("shard", "i=$((JOB_COMPLETION_INDEX + 1))\n"+j.taskShell(), j.Workers, j.MemMB)}}
	mergeJob := k8sJob{APIVersion: "batch/v1", Kind: "Job", Metadata: k8sMeta{Name: j.Name + "-merge", Labels: labels},
		Spec: k8sSpecJ{Completions: 1, Parallelism: 1, BackoffLimit: 2,
			Template: pod("merge", j.reportShell(), 1, mergeMemMB(j.Jobs))}}
	if job, err = yaml.Marshal(shards); err != nil {
		return nil, nil, err
	}
	if merge, err = yaml.Marshal(mergeJob); err != nil {
		return nil, nil, err
	}
	head := fmt.Sprintf("# The %d shards of kerneltune run %s (%d jobs) as an Indexed Job, written by\n"+
		"# kerneltune %s (compare --k8s): the pod of index k runs shard k+1 and resumes its\n"+
		"# results file. Name your image with kerneltune in it, and the claim %q.\n",
		j.Shards, labels["kerneltune/run"], j.Jobs, j.Version, Claim)
	return append([]byte(head), job...), append([]byte("# Merges the shards of job.yaml once it is complete.\n"), merge...), nil
}

// WriteK8s writes the manifests into Dir (made if needed).
func (j *Job) WriteK8s() error {
	job, merge, err := j.K8sManifests()
	if err != nil {
		return err
	}
	return j.write(map[string]string{K8sJob: string(job), K8sMerge: string(merge)}, 0o644)
}

// KubectlCommands are the commands that run the manifests in Dir: the
// shards, a wait for their completion, the merge.
func (j *Job) KubectlCommands() []string {
	q := buildinfo.ShellQuote
	return []string{
		"kubectl apply -f " + q(j.Dir+"/"+K8sJob),
		"kubectl wait --for=condition=complete --timeout=-1s job/" + j.Name,
		"kubectl apply -f " + q(j.Dir+"/"+K8sMerge),
	}
}
