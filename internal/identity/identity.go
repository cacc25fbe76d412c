package identity

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Reader reads a cluster's identity.
type Reader func(ctx context.Context) (string, error)

// Read returns the UID of the kube-system namespace of the cluster cs talks to.
// The client needs "get" on namespaces, name kube-system.
func Read(ctx context.Context, cs kubernetes.Interface) (string, error) {
	ns, err := cs.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("syncer: reading the cluster identity (get namespaces/kube-system): %w", err)
	}
	return string(ns.UID), nil
}

// For returns the Reader of the cluster restCfg points at, with a client of its
// own (restCfg is copied, not changed).
func For(restCfg *rest.Config) (Reader, error) {
	client, err := kubernetes.NewForConfig(rest.CopyConfig(restCfg))
	if err != nil {
		return nil, fmt.Errorf("syncer: checkpoint identity client: %w", err)
	}
	return func(ctx context.Context) (string, error) { return Read(ctx, client) }, nil
}

// Result is the answer of one read: the identity, or why it is not known.
type Result struct {
	UID string
	Err error
}

// Within reads the identity in the background, giving up after d or when ctx
// ends, and sends the answer on the channel it returns, which holds it: a caller
// that no longer waits for it leaves nothing blocked.
func (r Reader) Within(ctx context.Context, d time.Duration) <-chan Result {
	out := make(chan Result, 1)
	go func() {
		rctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		uid, err := r(rctx)
		out <- Result{uid, err}
	}()
	return out
}

// Refused reports a read that the cluster refused (403, 401): RBAC will not
// change its mind, so it is not asked again.
func Refused(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err)
}
