// Package k8s checks deploy/k8s's manifests offline against the Kubernetes API types: every
// field must exist (strict decoding), and the pieces must fit together (names, selectors,
// ports, probes, volumes). A module of its own so that k8s.io/api stays out of the root's
// requirements, like cmd/idbench's clients.
package k8s

import (
	"os"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// manifests is every object of idnode.yaml, decoded strictly by its kind.
type manifests struct {
	statefulSets []*appsv1.StatefulSet
	services     []*corev1.Service
	budgets      []*policyv1.PodDisruptionBudget
}

func load(t *testing.T, file string) manifests {
	t.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m manifests
	for i, doc := range strings.Split(string(body), "\n---\n") {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("%s, document %d: %v", file, i+1, err)
		}
		var obj any
		switch meta.APIVersion + " " + meta.Kind {
		case "apps/v1 StatefulSet":
			s := &appsv1.StatefulSet{}
			m.statefulSets, obj = append(m.statefulSets, s), s
		case "v1 Service":
			s := &corev1.Service{}
			m.services, obj = append(m.services, s), s
		case "policy/v1 PodDisruptionBudget":
			b := &policyv1.PodDisruptionBudget{}
			m.budgets, obj = append(m.budgets, b), b
		default:
			t.Fatalf("%s, document %d: kind %q of %q, which this test does not check", file, i+1, meta.Kind, meta.APIVersion)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("%s, document %d (%s): %v", file, i+1, meta.Kind, err)
		}
	}
	return m
}

func TestManifestsDecodeStrictly(t *testing.T) {
	m := load(t, "idnode.yaml")
	if len(m.statefulSets) != 1 || len(m.services) != 2 || len(m.budgets) != 1 {
		t.Fatalf("idnode.yaml: %d StatefulSets, %d Services, %d PodDisruptionBudgets; want 1, 2, 1",
			len(m.statefulSets), len(m.services), len(m.budgets))
	}
}

func TestStatefulSetFitsItsServicesAndBudget(t *testing.T) {
	m := load(t, "idnode.yaml")
	if len(m.statefulSets) != 1 {
		t.Fatalf("%d StatefulSets; want 1", len(m.statefulSets))
	}
	sts := m.statefulSets[0]
	pod := sts.Spec.Template
	if sts.Spec.Replicas == nil || *sts.Spec.Replicas != 3 {
		t.Errorf("replicas %v; want 3", sts.Spec.Replicas)
	}
	if sts.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		t.Errorf("podManagementPolicy %q; want Parallel (readiness needs a quorum, so pods cannot wait for each other)", sts.Spec.PodManagementPolicy)
	}
	selector, err := metav1.LabelSelectorAsSelector(sts.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	if !selector.Matches(labels.Set(pod.Labels)) {
		t.Errorf("the StatefulSet's selector %s does not match its pods' labels %v", selector, pod.Labels)
	}

	var headless *corev1.Service
	for _, s := range m.services {
		if s.Name == sts.Spec.ServiceName {
			headless = s
		}
		if !selectorMatches(s.Spec.Selector, pod.Labels) {
			t.Errorf("Service %s selects %v, which the pods' labels %v do not match", s.Name, s.Spec.Selector, pod.Labels)
		}
	}
	switch {
	case headless == nil:
		t.Errorf("serviceName %q names no Service", sts.Spec.ServiceName)
	case headless.Spec.ClusterIP != corev1.ClusterIPNone:
		t.Errorf("Service %s: clusterIP %q; want None (headless: per-pod DNS names)", headless.Name, headless.Spec.ClusterIP)
	case !headless.Spec.PublishNotReadyAddresses:
		t.Errorf("Service %s: publishNotReadyAddresses false; nodes not yet ready could not find each other", headless.Name)
	}

	for _, b := range m.budgets {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil {
			t.Fatal(err)
		}
		if !sel.Matches(labels.Set(pod.Labels)) {
			t.Errorf("PodDisruptionBudget %s selects %s, not the pods (%v)", b.Name, sel, pod.Labels)
		}
		if b.Spec.MinAvailable == nil || b.Spec.MinAvailable.IntValue() != 2 {
			t.Errorf("PodDisruptionBudget %s: minAvailable %v; want 2 (a majority of 3)", b.Name, b.Spec.MinAvailable)
		}
	}

	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers; want 1", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	ports := map[string]bool{}
	for _, p := range c.Ports {
		ports[p.Name] = true
	}
	for _, s := range m.services {
		for _, p := range s.Spec.Ports {
			if !ports[p.TargetPort.String()] {
				t.Errorf("Service %s port %s targets %q, which the container does not name", s.Name, p.Name, p.TargetPort.String())
			}
		}
	}
	for name, probe := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		want := map[string]string{"liveness": "/healthz", "readiness": "/readyz"}[name]
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != want || !ports[probe.HTTPGet.Port.String()] {
			t.Errorf("%s probe %+v; want GET %s on a named container port", name, probe, want)
		}
	}

	claims := map[string]bool{}
	for _, v := range sts.Spec.VolumeClaimTemplates {
		claims[v.Name] = true
	}
	volumes := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		volumes[v.Name] = true
	}
	var dataMounted bool
	for _, vm := range c.VolumeMounts {
		if !claims[vm.Name] && !volumes[vm.Name] {
			t.Errorf("volume mount %s names no volume or claim template", vm.Name)
		}
		dataMounted = dataMounted || claims[vm.Name] && vm.MountPath == envValue(c, "IDNODE_DATA_DIR")
	}
	if !dataMounted {
		t.Errorf("IDNODE_DATA_DIR %q is not a volume claim template's mount: the data would not survive the pod", envValue(c, "IDNODE_DATA_DIR"))
	}

	// Every pod's DNS name is in the peers, one per replica.
	peers := strings.Split(envValue(c, "IDNODE_PEERS"), ",")
	if sts.Spec.Replicas != nil && len(peers) != int(*sts.Spec.Replicas) {
		t.Errorf("IDNODE_PEERS has %d entries, replicas %d", len(peers), *sts.Spec.Replicas)
	}
	for i, p := range peers {
		host := sts.Name + "-" + string(rune('0'+i)) + "." + sts.Spec.ServiceName + ":"
		if !strings.Contains(p, "="+host) {
			t.Errorf("peer %d is %q; want the address %s…", i, p, host)
		}
	}

	if sc := pod.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Error("the pod does not require a non-root user (securityContext.runAsNonRoot)")
	}
}

func envValue(c corev1.Container, name string) string {
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name })
	if i < 0 {
		return ""
	}
	return c.Env[i].Value
}

func selectorMatches(selector, podLabels map[string]string) bool {
	for k, v := range selector {
		if podLabels[k] != v {
			return false
		}
	}
	return len(selector) > 0
}
