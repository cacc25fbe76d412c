package fleet

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/resources"
)

// Workload is what the fleet's cluster holds besides the control plane's own
// objects: Namespaces namespaces share the namespaced objects round robin.
type Workload struct {
	Namespaces     int
	Nodes          int // one per agent, as the agents' own nodes
	Pods           int
	Services       int // headless: a loopback control plane has few service IPs
	EndpointSlices int // four endpoints each
	NetworkSets    int // Calico NetworkSets, four CIDRs each
}

// DefaultWorkload is the example cluster for n agents.
func DefaultWorkload(agents int) Workload {
	return Workload{Namespaces: 50, Nodes: agents, Pods: 2000, Services: 500, EndpointSlices: 2000, NetworkSets: 5000}
}

// Objects is the number of objects Load creates.
func (c Workload) Objects() int {
	return c.Namespaces + c.Nodes + c.Pods + c.Services + c.EndpointSlices + c.NetworkSets
}

// Validate reports a cluster that cannot be loaded.
func (c Workload) Validate() error {
	if c.Namespaces < 1 {
		return fmt.Errorf("workload: %d namespaces, need at least 1", c.Namespaces)
	}
	if c.Pods < 1 {
		return fmt.Errorf("workload: %d pods, need at least 1 (the writes go to pods)", c.Pods)
	}
	if c.Nodes < 0 || c.Services < 0 || c.EndpointSlices < 0 || c.NetworkSets < 0 {
		return fmt.Errorf("workload: negative object count in %+v", c)
	}
	return nil
}

// SeqAnnotation is set on one pod by every write of a Writer; its value is the
// write's sequence number.
const SeqAnnotation = "fleet.kubesync.io/seq"

const nsPrefix = "fleet-"

func (c Workload) namespace(i int) string { return fmt.Sprintf("%s%03d", nsPrefix, i%c.Namespaces) }

// Load creates the cluster's objects, workers at a time.
func (c Workload) Load(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, workers int, logf func(string, ...any)) error {
	if err := c.Validate(); err != nil {
		return err
	}
	steps := []struct {
		what   string
		n      int
		create func(ctx context.Context, i int) error
	}{
		{"namespaces", c.Namespaces, func(ctx context.Context, i int) error {
			_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace(i)}}, metav1.CreateOptions{})
			return err
		}},
		{"nodes", c.Nodes, func(ctx context.Context, i int) error {
			_, err := cs.CoreV1().Nodes().Create(ctx, newNode(i), metav1.CreateOptions{})
			return err
		}},
		{"pods", c.Pods, func(ctx context.Context, i int) error {
			_, err := cs.CoreV1().Pods(c.namespace(i)).Create(ctx, c.newPod(i), metav1.CreateOptions{})
			return err
		}},
		{"services", c.Services, func(ctx context.Context, i int) error {
			_, err := cs.CoreV1().Services(c.namespace(i)).Create(ctx, c.newService(i), metav1.CreateOptions{})
			return err
		}},
		{"endpointslices", c.EndpointSlices, func(ctx context.Context, i int) error {
			_, err := cs.DiscoveryV1().EndpointSlices(c.namespace(i)).Create(ctx, c.newEndpointSlice(i), metav1.CreateOptions{})
			return err
		}},
		{"networksets", c.NetworkSets, func(ctx context.Context, i int) error {
			_, err := dyn.Resource(resources.NetworkSets.GVR).Namespace(c.namespace(i)).Create(ctx, c.newNetworkSet(i), metav1.CreateOptions{})
			return err
		}},
	}
	for _, s := range steps {
		if err := orchestrate.Parallel(ctx, s.n, workers, func(ctx context.Context, i int) error {
			if err := s.create(ctx, i); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating %s #%d: %w", s.what, i, err)
			}
			return nil
		}); err != nil {
			return err
		}
		logf("  created %d %s", s.n, s.what)
	}
	return nil
}

func appLabels(i int) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      fmt.Sprintf("app-%d", i%40),
		"app.kubernetes.io/component": [...]string{"api", "worker", "db", "cache"}[i%4],
		"tier":                        [...]string{"frontend", "backend"}[i%2],
	}
}

func nodeName(i int) string { return fmt.Sprintf("node-%04d", i) }

func newNode(i int) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: nodeName(i), Labels: map[string]string{
			"kubernetes.io/hostname": nodeName(i), "kubernetes.io/os": "linux", "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3),
		}},
		Spec: corev1.NodeSpec{PodCIDR: fmt.Sprintf("10.%d.%d.0/24", 100+i/256, i%256)},
	}
}

// newPod is a one-container pod of the usual shape, bound to a node.
func (c Workload) newPod(i int) *corev1.Pod {
	labels := appLabels(i)
	labels["pod-template-hash"] = fmt.Sprintf("%08x", i*2654435761%(1<<32))
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%05d", i), Namespace: c.namespace(i), Labels: labels},
		Spec: corev1.PodSpec{
			NodeName: nodeName(i % max(c.Nodes, 1)),
			Containers: []corev1.Container{{
				Name:  "main",
				Image: fmt.Sprintf("registry.example.com/team-%d/app:v1.%d", i%20, i%7),
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "metrics", ContainerPort: 9090}},
				Env: []corev1.EnvVar{
					{Name: "LOG_LEVEL", Value: "info"},
					{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
				},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi"),
				}},
			}},
		},
	}
}

func (c Workload) newService(i int) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc-%05d", i), Namespace: c.namespace(i), Labels: appLabels(i)},
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			Selector:  appLabels(i),
			Ports: []corev1.ServicePort{
				{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)},
				{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9090)},
			},
		},
	}
}

func (c Workload) newEndpointSlice(i int) *discoveryv1.EndpointSlice {
	svc := fmt.Sprintf("svc-%05d", i%max(c.Services, 1))
	ready := true
	eps := make([]discoveryv1.Endpoint, 4)
	for j := range eps {
		pod := (i*4 + j) % c.Pods
		node := nodeName(pod % max(c.Nodes, 1))
		eps[j] = discoveryv1.Endpoint{
			Addresses:  []string{fmt.Sprintf("10.%d.%d.%d", 64+pod/65536, pod/256%256, pod%256)},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			NodeName:   &node,
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: c.namespace(i), Name: fmt.Sprintf("pod-%05d", pod)},
		}
	}
	port, name, proto := int32(8080), "http", corev1.ProtocolTCP
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%05d", svc, i), Namespace: c.namespace(i),
			Labels: map[string]string{discoveryv1.LabelServiceName: svc, discoveryv1.LabelManagedBy: "fleet.kubesync.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   eps,
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}},
	}
}

func (c Workload) newNetworkSet(i int) *unstructured.Unstructured {
	nets := make([]string, 4)
	for j := range nets {
		nets[j] = fmt.Sprintf("192.%d.%d.%d/32", 168+j, i/256%256, i%256)
	}
	return orchestrate.NetworkSet(c.namespace(i), fmt.Sprintf("netset-%05d", i), appLabels(i), nets...)
}
