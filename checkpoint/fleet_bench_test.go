package checkpoint_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	ktypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/internal/cputime"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// fleetMix is what each agent of FLEET.md's fleet holds once in sync: 9,615
// objects of six types, shaped as fv/fleet's workload makes them and as the
// apiserver returns them (metadata filled in, managed fields stripped by the
// default conversion).
var fleetMix = []struct {
	t    resources.Type
	n    int
	make func(i int) runtime.Object
}{
	{resources.Namespaces, 54, fleetNamespace},
	{resources.Nodes, 60, fleetNode},
	{resources.Pods, 2000, fleetPod},
	{resources.Services, 501, fleetService},
	{resources.EndpointSlices, 2000, fleetSlice},
	{resources.NetworkSets, 5000, fleetNetworkSet},
}

func fleetMeta(i int, ns, name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace: ns, Name: name, Labels: labels,
		UID:               ktypes.UID(fmt.Sprintf("6f1c2d3e-%04x-4a5b-8c9d-%012x", i%65536, i)),
		ResourceVersion:   fmt.Sprint(1000 + i),
		CreationTimestamp: metav1.Unix(1_780_000_000+int64(i), 0),
	}
}

func fleetLabels(i int) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      fmt.Sprintf("app-%d", i%40),
		"app.kubernetes.io/component": [...]string{"api", "worker", "db", "cache"}[i%4],
		"tier":                        [...]string{"frontend", "backend"}[i%2],
	}
}

func fleetNS(i int) string { return fmt.Sprintf("fleet-%03d", i%50) }

func fleetNamespace(i int) runtime.Object {
	return &corev1.Namespace{ObjectMeta: fleetMeta(i, "", fmt.Sprintf("fleet-%03d", i), map[string]string{
		"kubernetes.io/metadata.name": fmt.Sprintf("fleet-%03d", i),
	}), Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
}

func fleetNode(i int) runtime.Object {
	name := fmt.Sprintf("node-%04d", i)
	return &corev1.Node{
		ObjectMeta: fleetMeta(i, "", name, map[string]string{
			"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3),
		}),
		Spec: corev1.NodeSpec{PodCIDR: fmt.Sprintf("10.%d.%d.0/24", 100+i/256, i%256)},
	}
}

func fleetPod(i int) runtime.Object {
	labels := fleetLabels(i)
	labels["pod-template-hash"] = fmt.Sprintf("%08x", i*2654435761%(1<<32))
	grace := int64(30)
	return &corev1.Pod{
		ObjectMeta: fleetMeta(i, fleetNS(i), fmt.Sprintf("pod-%05d", i), labels),
		Spec: corev1.PodSpec{
			NodeName: fmt.Sprintf("node-%04d", i%60), RestartPolicy: corev1.RestartPolicyAlways,
			DNSPolicy: corev1.DNSClusterFirst, SchedulerName: "default-scheduler",
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{
				Name:  "main",
				Image: fmt.Sprintf("registry.example.com/team-%d/app:v1.%d", i%20, i%7),
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
					{Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP}},
				Env: []corev1.EnvVar{
					{Name: "LOG_LEVEL", Value: "info"},
					{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
				},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi"),
				}},
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy: corev1.PullIfNotPresent,
			}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBurstable},
	}
}

func fleetService(i int) runtime.Object {
	return &corev1.Service{
		ObjectMeta: fleetMeta(i, fleetNS(i), fmt.Sprintf("svc-%05d", i), fleetLabels(i)),
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone, ClusterIPs: []string{corev1.ClusterIPNone}, Type: corev1.ServiceTypeClusterIP,
			Selector: fleetLabels(i), SessionAffinity: corev1.ServiceAffinityNone,
			Ports: []corev1.ServicePort{
				{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9090), Protocol: corev1.ProtocolTCP},
			},
		},
	}
}

func fleetSlice(i int) runtime.Object {
	svc := fmt.Sprintf("svc-%05d", i%500)
	ready := true
	eps := make([]discoveryv1.Endpoint, 4)
	for j := range eps {
		p := (i*4 + j) % 2000
		node := fmt.Sprintf("node-%04d", p%60)
		eps[j] = discoveryv1.Endpoint{
			Addresses:  []string{fmt.Sprintf("10.%d.%d.%d", 64+p/65536, p/256%256, p%256)},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			NodeName:   &node,
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: fleetNS(i), Name: fmt.Sprintf("pod-%05d", p)},
		}
	}
	port, name, proto := int32(8080), "http", corev1.ProtocolTCP
	return &discoveryv1.EndpointSlice{
		ObjectMeta: fleetMeta(i, fleetNS(i), fmt.Sprintf("%s-%05d", svc, i),
			map[string]string{discoveryv1.LabelServiceName: svc, discoveryv1.LabelManagedBy: "fleet.kubesync.io"}),
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   eps,
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}},
	}
}

func fleetNetworkSet(i int) runtime.Object {
	nets := make([]any, 4)
	for j := range nets {
		nets[j] = fmt.Sprintf("192.%d.%d.%d/32", 168+j, i/256%256, i%256)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"nets": nets}}}
	u.SetAPIVersion("crd.projectcalico.org/v1")
	u.SetKind("NetworkSet")
	m := fleetMeta(i, fleetNS(i), fmt.Sprintf("netset-%05d", i), fleetLabels(i))
	u.SetNamespace(m.Namespace)
	u.SetName(m.Name)
	u.SetLabels(m.Labels)
	u.SetUID(m.UID)
	u.SetResourceVersion(m.ResourceVersion)
	u.SetCreationTimestamp(m.CreationTimestamp)
	u.SetGeneration(1)
	return u
}

// lazyBytes is obj as a lazy value of the raw path holds it: a built-in
// object's protobuf message, a custom one's JSON document.
func lazyBytes(b *testing.B, obj runtime.Object) []byte {
	var data []byte
	var err error
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		data, err = o.MarshalJSON()
	case interface{ Marshal() ([]byte, error) }:
		data, err = o.Marshal()
	default:
		b.Fatalf("%T has no encoding", obj)
	}
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// writeFleetCheckpoint writes a checkpoint of the fleet's mix at path, for every
// bundled type (what the fleet's agents watch), taken from id, and returns the types and the
// number of objects. lazy: each object as a syncer with lazy values records it
// (Store.RecordLazy), else decoded (Store.Record).
func writeFleetCheckpoint(b *testing.B, path string, id syncer.ClusterIdentity, log *logrus.Logger, lazy bool) ([]resources.Type, int) {
	ts := resources.All()
	s, _, err := checkpoint.Open(path, id, ts, checkpoint.WithLogger(log))
	if err != nil {
		b.Fatal(err)
	}
	total := 0
	for _, m := range fleetMix {
		for i := range m.n {
			obj := m.make(i)
			acc, err := meta.Accessor(obj)
			if err != nil {
				b.Fatal(err)
			}
			id := acc.GetName()
			if acc.GetNamespace() != "" {
				id = acc.GetNamespace() + "/" + id
			}
			if lazy {
				s.RecordLazy(m.t.Name, id, acc.GetResourceVersion(), acc.GetUID(), lazyBytes(b, obj))
			} else {
				s.Record(m.t.Name, id, acc.GetResourceVersion(), obj)
			}
		}
		total += m.n
	}
	for _, t := range ts {
		s.Revision(t.Name, "99999")
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return ts, total
}

// BenchmarkOpenFleet measures opening the checkpoint of one of the fleet's agents
// (9,615 objects: FLEET.md's mix), which a warm start does before it hands over
// its snapshot: the file check, reading every record and what the load makes of
// it. decoded: the records of a syncer with decoded values; lazy: of one with
// lazy values, which the load copies and does not decode.
//
//	go test -run '^$' -bench OpenFleet -benchmem -cpuprofile cpu.out ./checkpoint
func BenchmarkOpenFleet(b *testing.B) {
	for _, lazy := range []bool{false, true} {
		b.Run(map[bool]string{false: "decoded", true: "lazy"}[lazy], func(b *testing.B) { openFleet(b, lazy) })
	}
}

func openFleet(b *testing.B, lazy bool) {
	path := filepath.Join(b.TempDir(), "state", "agent.db")
	log := logrus.New()
	log.SetLevel(logrus.ErrorLevel)
	ts, total := writeFleetCheckpoint(b, path, here, log, lazy)
	b.ResetTimer()
	var cpu time.Duration
	for b.Loop() {
		cpu0 := cputime.Process()
		s, snap, err := checkpoint.Open(path, here, ts, checkpoint.WithLogger(log))
		cpu += cputime.Process() - cpu0
		if err != nil || snap.Len() != total {
			b.Fatal(err)
		}
		_ = s.Close()
	}
	reportCPU(b, cpu)
}

// reportCPU reports the CPU milliseconds per operation.
func reportCPU(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkWriteFleet measures the writes of a steady state on the checkpoint of
// one of the fleet's agents (lazy records): each operation changes 100 objects
// chosen at random, each a little larger than before, and writes them in one
// transaction (Flush). It reports the CPU per write and the file's size at the
// end, which page splits grow.
//
//	go test -run '^$' -bench WriteFleet -benchmem ./checkpoint
func BenchmarkWriteFleet(b *testing.B) {
	path := filepath.Join(b.TempDir(), "state", "agent.db")
	log := logrus.New()
	log.SetLevel(logrus.ErrorLevel)
	ts, _ := writeFleetCheckpoint(b, path, here, log, true)
	s, snap, err := checkpoint.Open(path, here, ts, checkpoint.WithLogger(log))
	if err != nil {
		b.Fatal(err)
	}
	type object struct {
		typeName string
		syncer.PersistedObject
	}
	var all []object
	for _, name := range slices.Sorted(maps.Keys(snap.Types)) { // in one order: the same objects change in every run
		for _, po := range snap.Types[name].Objects {
			all = append(all, object{name, po})
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	var cpu time.Duration
	rev := 100000
	for b.Loop() {
		cpu0 := cputime.Process()
		for range 100 {
			o := &all[rnd.IntN(len(all))]
			o.Encoded = append(o.Encoded, "grown..."...)
			rev++
			s.RecordLazy(o.typeName, o.ID, strconv.Itoa(rev), o.UID, slices.Clone(o.Encoded))
		}
		if err := s.Flush(); err != nil {
			b.Fatal(err)
		}
		cpu += cputime.Process() - cpu0
	}
	reportCPU(b, cpu)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size())/(1<<20), "file-MiB")
}
