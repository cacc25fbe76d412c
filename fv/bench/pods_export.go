package bench

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// NewPod is the pods workload's i-th pod (about 3 KiB of protobuf), for a
// program that loads the same pods itself (cmd/crcache).
func NewPod(ns, name string, i int) *corev1.Pod { return newPod(ns, name, i) }

// CreatePod creates pod and writes its status, as the pods workload does.
func CreatePod(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod) error {
	return createPod(ctx, loadClients{cs: cs}, pod)
}
