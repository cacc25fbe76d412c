package checkpoint

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ClusterUID returns the UID of the kube-system namespace, which a cluster keeps for
// its whole life and another cluster does not share: the usual cluster identity.
func ClusterUID(ctx context.Context, cs kubernetes.Interface) (string, error) {
	ns, err := cs.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("checkpoint: reading the cluster identity: %w", err)
	}
	return string(ns.UID), nil
}
