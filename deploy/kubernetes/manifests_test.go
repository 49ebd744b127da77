package kubernetes

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/external"
)

// No kubectl here can validate offline (its --dry-run=client still asks
// a server for the API's schema), so the manifests are decoded with the
// API types themselves, strictly: an unknown or repeated field is an error.

const namespace = "nats" // the Helm chart's, as in the README

// manifests is every object of every *.yaml here, by "Kind/name".
func manifests(t *testing.T) map[string]runtime.Object {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, batchv1.AddToScheme, rbacv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	dec := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	files, _ := filepath.Glob("*.yaml")
	if len(files) == 0 {
		t.Fatal("no manifests")
	}
	objs := map[string]runtime.Object{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---$`).Split(string(b), -1) {
			obj, gvk, err := dec.Decode([]byte(doc), nil, nil)
			if err != nil {
				t.Fatalf("%s, document %d: %v", f, i+1, err)
			}
			m := obj.(interface {
				GetName() string
				GetNamespace() string
			})
			if m.GetNamespace() != namespace {
				t.Errorf("%s: %s %s in namespace %q, want %q", f, gvk.Kind, m.GetName(), m.GetNamespace(), namespace)
			}
			key := gvk.Kind + "/" + m.GetName()
			if objs[key] != nil {
				t.Errorf("%s: %s defined twice", f, key)
			}
			objs[key] = obj
		}
	}
	return objs
}

func get[T runtime.Object](t *testing.T, objs map[string]runtime.Object, key string) T {
	t.Helper()
	o, ok := objs[key].(T)
	if !ok {
		t.Fatalf("no %s among the manifests", key)
	}
	return o
}

// TestJobs: each Job runs `chaos run --runtime external` through sh as a
// service account that exists and is bound to the chaos Role, with its
// store on the claim, retrying nothing; the indexed Job's index is the
// shard, and its completions are the N of --shard I/N.
func TestJobs(t *testing.T) {
	objs := manifests(t)
	single := get[*batchv1.Job](t, objs, "Job/chaos")
	if b := single.Spec.BackoffLimit; b == nil || *b != 0 {
		t.Errorf("Job/chaos backoffLimit %v, want 0: a finding is not cured by a rerun", val(b))
	}
	if s := script(t, single); strings.Contains(s, "--shard") {
		t.Error("Job/chaos runs a shard")
	}
	sharded := get[*batchv1.Job](t, objs, "Job/chaos-shards")
	spec := sharded.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("Job/chaos-shards completionMode %v, want Indexed", val(spec.CompletionMode))
	}
	if !regexp.MustCompile(`--seed \d+`).MatchString(script(t, sharded)) {
		t.Error("Job/chaos-shards: no --seed; chaos run refuses --shard without one, and every shard needs the same")
	}
	m := regexp.MustCompile(`--shard "\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)/(\d+)"`).FindStringSubmatch(script(t, sharded))
	if m == nil {
		t.Fatal("Job/chaos-shards: no --shard $((JOB_COMPLETION_INDEX + 1))/N")
	}
	n, _ := strconv.Atoi(m[1])
	if spec.Completions == nil || int(*spec.Completions) != n || n < 2 {
		t.Errorf("Job/chaos-shards: completions %v, want --shard's N, %d", val(spec.Completions), n)
	}
	// One NATS cluster: shards at once would see each other's kills.
	if p := spec.Parallelism; p == nil || *p != 1 {
		t.Errorf("Job/chaos-shards: parallelism %v, want 1", val(p))
	}
	if b := spec.BackoffLimitPerIndex; b == nil || *b != 0 {
		t.Errorf("Job/chaos-shards: backoffLimitPerIndex %v, want 0", val(b))
	}
	if !strings.Contains(storeOf(t, sharded), "$((JOB_COMPLETION_INDEX + 1))") {
		t.Errorf("Job/chaos-shards: --store %s is not the shard's own", storeOf(t, sharded))
	}
	image := single.Spec.Template.Spec.Containers[0].Image
	for _, j := range []*batchv1.Job{single, sharded} {
		pod := j.Spec.Template.Spec
		if pod.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("Job/%s restartPolicy %s, want Never", j.Name, pod.RestartPolicy)
		}
		get[*corev1.ServiceAccount](t, objs, "ServiceAccount/"+pod.ServiceAccountName)
		if !bound(objs, pod.ServiceAccountName, "chaos") {
			t.Errorf("Job/%s: service account %s is not bound to Role/chaos", j.Name, pod.ServiceAccountName)
		}
		if c := pod.Containers[0]; c.Image != image {
			t.Errorf("Job/%s runs image %s, Job/chaos %s", j.Name, c.Image, image)
		}
		s := script(t, j)
		if !strings.Contains(s, "exec chaos run --") || !strings.Contains(s, "--runtime external") {
			t.Errorf("Job/%s does not exec chaos run --runtime external:\n%s", j.Name, s)
		}
		if mount := claimMount(t, objs, pod, "chaos"); !strings.HasPrefix(strings.Trim(storeOf(t, j), `"`), mount) {
			t.Errorf("Job/%s: --store %s is not on the claim, mounted at %s", j.Name, storeOf(t, j), mount)
		}
	}
	reader := get[*corev1.Pod](t, objs, "Pod/chaos-store")
	if c := reader.Spec.Containers[0]; c.Image != image || len(c.VolumeMounts) != 1 || !c.VolumeMounts[0].ReadOnly {
		t.Errorf("Pod/chaos-store: image %s, mounts %+v; want Job/chaos's image and the claim read-only", c.Image, c.VolumeMounts)
	}
	claimMount(t, objs, reader.Spec, "store")
}

// val is what p points to, for a message.
func val[T any](p *T) any {
	if p == nil {
		return "unset"
	}
	return *p
}

// script is the Job's shell script, checked by sh -n (read, not run).
func script(t *testing.T, j *batchv1.Job) string {
	t.Helper()
	c := j.Spec.Template.Spec.Containers
	if len(c) != 1 || !slices.Equal(c[0].Command, []string{"sh", "-c"}) || len(c[0].Args) != 1 {
		t.Fatalf("Job/%s: want one container running sh -c SCRIPT", j.Name)
	}
	if out, err := exec.Command("sh", "-n", "-c", c[0].Args[0]).CombinedOutput(); err != nil {
		t.Fatalf("Job/%s: the script is not valid sh: %v %s", j.Name, err, out)
	}
	return c[0].Args[0]
}

func storeOf(t *testing.T, j *batchv1.Job) string {
	t.Helper()
	m := regexp.MustCompile(`--store ("[^"]+"|\S+)`).FindStringSubmatch(script(t, j))
	if m == nil {
		t.Fatalf("Job/%s: no --store", j.Name)
	}
	return m[1]
}

// claimMount is where container's pod mounts the chaos-store claim, which
// must be a PersistentVolumeClaim among the manifests.
func claimMount(t *testing.T, objs map[string]runtime.Object, pod corev1.PodSpec, container string) string {
	t.Helper()
	get[*corev1.PersistentVolumeClaim](t, objs, "PersistentVolumeClaim/chaos-store")
	for _, v := range pod.Volumes {
		if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "chaos-store" {
			continue
		}
		for _, c := range pod.Containers {
			for _, m := range c.VolumeMounts {
				if c.Name == container && m.Name == v.Name {
					return m.MountPath
				}
			}
		}
	}
	t.Fatalf("container %s does not mount the chaos-store claim", container)
	return ""
}

// bound says a RoleBinding gives service account sa the Role role.
func bound(objs map[string]runtime.Object, sa, role string) bool {
	for _, o := range objs {
		rb, ok := o.(*rbacv1.RoleBinding)
		if !ok || rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != role || rb.RoleRef.APIGroup != rbacv1.GroupName {
			continue
		}
		for _, s := range rb.Subjects {
			if s.Kind == rbacv1.ServiceAccountKind && s.Name == sa && s.Namespace == namespace {
				return true
			}
		}
	}
	return false
}

// TestRolesAreTheHooksNeeds: each Role grants exactly what the hooks that
// use it run: the node hooks of the Jobs on pods (Role/chaos), the README's
// partition and heal hooks on Chaos Mesh's networkchaos
// (Role/chaos-partition); every hook parses as --fault-hook would.
func TestRolesAreTheHooksNeeds(t *testing.T) {
	objs := manifests(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []string
	for _, j := range []string{"Job/chaos", "Job/chaos-shards"} {
		hooks = append(hooks, hooksIn(t, script(t, get[*batchv1.Job](t, objs, j)))...)
	}
	for _, h := range hooksIn(t, string(readme)) {
		if strings.HasPrefix(h, "partition=") || strings.HasPrefix(h, "heal=") {
			hooks = append(hooks, h)
		}
	}
	want := map[string]rbacv1.PolicyRule{}
	for _, h := range hooks {
		for _, r := range needs(h) {
			w := want[r.Resources[0]]
			w.APIGroups, w.Resources = r.APIGroups, r.Resources
			for _, v := range r.Verbs {
				if !slices.Contains(w.Verbs, v) {
					w.Verbs = append(w.Verbs, v)
				}
			}
			want[r.Resources[0]] = w
		}
	}
	for role, resource := range map[string]string{"chaos": "pods", "chaos-partition": "networkchaos"} {
		r := get[*rbacv1.Role](t, objs, "Role/"+role)
		if !bound(objs, "chaos", role) {
			t.Errorf("Role/%s is not bound to the chaos service account", role)
		}
		w := want[resource]
		slices.Sort(w.Verbs)
		got := rbacv1.PolicyRule{}
		if len(r.Rules) == 1 {
			got = r.Rules[0]
			got.Verbs = slices.Sorted(slices.Values(got.Verbs))
		}
		if len(r.Rules) != 1 || !slices.Equal(got.APIGroups, w.APIGroups) || !slices.Equal(got.Resources, w.Resources) || !slices.Equal(got.Verbs, w.Verbs) {
			t.Errorf("Role/%s grants %+v; the hooks need exactly %+v", role, r.Rules, w)
		}
	}
}

// hooksIn is every single-quoted --fault-hook NAME='COMMAND' in text, as
// NAME=COMMAND, each checked by external.ParseHooks.
func hooksIn(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(`(?s)--fault-hook ([a-z]+)='([^']*)'`).FindAllStringSubmatch(text, -1) {
		if _, err := external.ParseHooks([]string{m[1] + "=" + m[2]}); err != nil {
			t.Errorf("hook %s: %v", m[1], err)
		}
		out = append(out, m[1]+"="+m[2])
	}
	if len(out) == 0 {
		t.Fatal("no --fault-hook found")
	}
	return out
}

// needs is what the kubectl commands of a hook ask the API server for.
// delete (its default --wait) and wait read the object, then list and
// watch it until it is gone or ready; a client-side apply reads the object,
// then creates it.
func needs(hook string) []rbacv1.PolicyRule {
	verbs := map[string][]string{
		"get":    {"get"},
		"delete": {"delete", "get", "list", "watch"},
		"wait":   {"get", "list", "watch"},
		"apply":  {"get", "create"},
	}
	var out []rbacv1.PolicyRule
	for _, m := range regexp.MustCompile(`kubectl(?: -n \S+)? (\w+) ([^;&|<]*)`).FindAllStringSubmatch(hook, -1) {
		r := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: verbs[m[1]]}
		if m[1] == "apply" && strings.Contains(hook, "kind: NetworkChaos") || strings.HasPrefix(m[2], "networkchaos ") {
			r.APIGroups, r.Resources = []string{"chaos-mesh.org"}, []string{"networkchaos"}
		} else if !strings.HasPrefix(m[2], "pod ") && !strings.HasPrefix(m[2], "pod/") && !strings.Contains(m[2], " pod/") {
			r.Resources = []string{"unknown: " + m[0]} // fails the comparison, naming the command
		}
		if r.Verbs == nil {
			r.Verbs = []string{"unknown: " + m[1]}
		}
		out = append(out, r)
	}
	return out
}

// TestREADMEShowsTheJob: the README's Kubernetes section shows the script
// job.yaml runs, as it is, and names every manifest.
func TestREADMEShowsTheJob(t *testing.T) {
	objs := manifests(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if s := script(t, get[*batchv1.Job](t, objs, "Job/chaos")); !bytes.Contains(readme, []byte(s)) {
		t.Errorf("the README does not show job.yaml's script as it is:\n%s", s)
	}
	files, _ := filepath.Glob("*.yaml")
	for _, f := range append(files, "Dockerfile") {
		if !bytes.Contains(readme, []byte("deploy/kubernetes/"+f)) {
			t.Errorf("the README does not name deploy/kubernetes/%s", f)
		}
	}
}
