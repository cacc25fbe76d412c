package controlplane

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// namespaceTimeout bounds the wait for a namespace to go.
const namespaceTimeout = time.Minute

// DeleteNamespace does what the namespace controller would, since none runs:
// it deletes every object in namespace name (a DeleteCollection of each
// namespaced resource that supports it), deletes the namespace, clears its
// "kubernetes" finalizer, and waits until the namespace is gone. Objects held by
// finalizers of their own may outlive it. Deleting a namespace that does not
// exist is not an error.
func (cp *ControlPlane) DeleteNamespace(ctx context.Context, name string) error {
	cfg := cp.Config()
	// Deleting every kind of object draws deprecation warnings (v1 Endpoints...).
	cfg.WarningHandler = rest.NoWarnings{}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating admin clientset: %w", err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return nil
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating dynamic client: %w", err)
	}
	if err := purgeNamespace(ctx, cs.Discovery(), dyn, name); err != nil {
		return err
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting namespace %s: %w", name, err)
	}
	return finalizeNamespace(ctx, cs, name)
}

// FinalizeNamespace clears the spec finalizers of a namespace that is already
// being deleted (Terminating) and waits until it is gone. It does not delete the
// namespace's content: see DeleteNamespace.
func (cp *ControlPlane) FinalizeNamespace(ctx context.Context, name string) error {
	cs, err := cp.Clientset()
	if err != nil {
		return err
	}
	return finalizeNamespace(ctx, cs, name)
}

func finalizeNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	namespaces := cs.CoreV1().Namespaces()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ns, err := namespaces.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if ns.DeletionTimestamp == nil {
			return fmt.Errorf("namespace %s is not being deleted", name)
		}
		if len(ns.Spec.Finalizers) == 0 {
			return nil
		}
		ns.Spec.Finalizers = nil
		_, err = namespaces.Finalize(ctx, ns, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("clearing finalizers of namespace %s: %w", name, err)
	}
	return poll(ctx, namespaceTimeout, "namespace "+name+" to be gone", func(ctx context.Context) (bool, error) {
		_, err := namespaces.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// purgeNamespace deletes the content of namespace ns, resource by resource.
func purgeNamespace(ctx context.Context, disco discovery.DiscoveryInterface, dyn dynamic.Interface, ns string) error {
	lists, err := discovery.ServerPreferredNamespacedResources(disco)
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return fmt.Errorf("discovering namespaced resources: %w", err)
	}
	var errs []error
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return fmt.Errorf("discovering namespaced resources: %w", err)
		}
		for _, r := range list.APIResources {
			if !slices.Contains(r.Verbs, "deletecollection") {
				continue
			}
			gvr := gv.WithResource(r.Name)
			err := dyn.Resource(gvr).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) {
				errs = append(errs, fmt.Errorf("deleting %s in namespace %s: %w", gvr, ns, err))
			}
		}
	}
	return errors.Join(errs...)
}
