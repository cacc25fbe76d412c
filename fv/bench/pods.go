package bench

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesync/kubesync/resources"
)

// The pods workload: pods as a node agent holds them, with their status.
func init() {
	workloads["pods"] = &workload{
		name:       "pods",
		kind:       "Pod",
		typ:        resources.Pods,
		gvk:        corev1.SchemeGroupVersion.WithKind("Pod"),
		nsPrefix:   "bench-pod-",
		perNS:      1000,
		etcdPrefix: "/registry/pods/",
		newObject:  func(ns, name string, i, _ int) runtime.Object { return newPod(ns, name, i) },
		create:     createPod,
	}
}

// createPod creates a pod, then writes its status: the apiserver drops the
// status of a create.
func createPod(ctx context.Context, c loadClients, obj runtime.Object) error {
	pod := obj.(*corev1.Pod)
	status := pod.Status
	created, err := c.cs.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	created.Status = status
	_, err = c.cs.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}

// newPod makes the pods workload's i-th pod: one of a ReplicaSet's, scheduled
// and running, with two containers, 8 labels, 6 annotations, four conditions
// and two container statuses: about 3 KiB of protobuf.
func newPod(ns, name string, i int) *corev1.Pod {
	app := fmt.Sprintf("app-%d", i%97)
	rs := fmt.Sprintf("%s-%08x", app, uint32(i%97)*2654435761)
	started := metav1.NewTime(time.Date(2026, 1, 1, 0, i%60, i%60, 0, time.UTC))
	labels := benchLabels(i)
	for k, v := range map[string]string{"app": app, "pod-template-hash": rs[len(app)+1:], "tier": "backend",
		"version": fmt.Sprintf("v1.%d.%d", i%7, i%13), "team": fmt.Sprintf("team-%d", i%23)} {
		labels[k] = v
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name, Labels: labels,
			Annotations: map[string]string{
				"kubectl.kubernetes.io/restartedAt":              started.UTC().Format(time.RFC3339),
				"prometheus.io/scrape":                           "true",
				"prometheus.io/port":                             "9090",
				"prometheus.io/path":                             "/metrics",
				"cluster-autoscaler.kubernetes.io/safe-to-evict": "true",
				"checksum/config":                                fmt.Sprintf("%016x%016x", uint64(i)*0x9e3779b97f4a7c15, uint64(i)^0xdeadbeefcafe),
			},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs,
				UID: types.UID(fmt.Sprintf("7c1e0f2a-%04x-4b6e-9d3f-%012x", i%97, i%97)), Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
		},
		Spec:   podSpec(app, i),
		Status: podStatus(i, started),
	}
}

func podSpec(app string, i int) corev1.PodSpec {
	ctr := func(name, image string, port int32) corev1.Container {
		return corev1.Container{
			Name: name, Image: image,
			Ports: []corev1.ContainerPort{{Name: name + "-http", ContainerPort: port, Protocol: corev1.ProtocolTCP}},
			Env: []corev1.EnvVar{{Name: "APP_NAME", Value: app}, {Name: "LOG_LEVEL", Value: "info"},
				{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Value: "http://otel-collector.observability.svc:4317"},
				{Name: "DATABASE_URL", Value: "postgres://" + app + "@db.example.internal:5432/" + app},
				{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.nodeName"}}},
				{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
			},
			VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/" + name, ReadOnly: true},
				{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(port)}},
				PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3},
			TerminationMessagePath:   "/dev/termination-log",
			TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			ImagePullPolicy:          corev1.PullIfNotPresent,
		}
	}
	return corev1.PodSpec{
		Containers: []corev1.Container{
			ctr("server", fmt.Sprintf("registry.example.com/%s/server:1.%d.0", app, i%7), 8080),
			ctr("sidecar", "registry.example.com/platform/proxy:2.4.1", 15001),
		},
		Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: app + "-config"}}}},
			serviceAccountVolume()},
		NodeName:           fmt.Sprintf("node-%03d", i%200),
		ServiceAccountName: "default",
		RestartPolicy:      corev1.RestartPolicyAlways,
		DNSPolicy:          corev1.DNSClusterFirst,
		SchedulerName:      corev1.DefaultSchedulerName,
		Tolerations: []corev1.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
			{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		},
	}
}

// serviceAccountVolume is the projected volume the ServiceAccount admission
// plugin adds to every pod (off in the benchmark's control plane, so written
// here).
func serviceAccountVolume() corev1.Volume {
	return corev1.Volume{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr(int32(0o644)),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr(int64(3607))}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		}}}}
}

func podStatus(i int, started metav1.Time) corev1.PodStatus {
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: started}
	}
	ctr := func(name, image string, n int) corev1.ContainerStatus {
		return corev1.ContainerStatus{
			Name: name, Image: image, Ready: true, Started: ptr(true), RestartCount: int32(i % 3),
			ImageID:     fmt.Sprintf("%s@sha256:%016x%016x%016x%016x", image, i%97, n, i%7, 0xabcdef),
			ContainerID: fmt.Sprintf("containerd://%016x%016x%016x%016x", i, n, uint64(i)*0x9e3779b97f4a7c15, i^n),
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
		}
	}
	podIP := fmt.Sprintf("10.%d.%d.%d", 100+i/65536%100, i/256%256, i%256)
	hostIP := fmt.Sprintf("192.168.%d.%d", i%200/250, 10+i%200)
	app := fmt.Sprintf("app-%d", i%97)
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{cond("PodReadyToStartContainers"), cond(corev1.PodInitialized),
			cond(corev1.PodReady), cond(corev1.ContainersReady), cond(corev1.PodScheduled)},
		HostIP: hostIP, HostIPs: []corev1.HostIP{{IP: hostIP}},
		PodIP: podIP, PodIPs: []corev1.PodIP{{IP: podIP}},
		StartTime: &started,
		QOSClass:  corev1.PodQOSBurstable,
		ContainerStatuses: []corev1.ContainerStatus{
			ctr("server", fmt.Sprintf("registry.example.com/%s/server:1.%d.0", app, i%7), 1),
			ctr("sidecar", "registry.example.com/platform/proxy:2.4.1", 2),
		},
	}
}

func ptr[T any](v T) *T { return &v }
