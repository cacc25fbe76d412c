package controlplane

import (
	"context"
	"fmt"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
)

// crdTimeout bounds each CRD wait when ctx has no earlier deadline.
const crdTimeout = time.Minute

// InstallCRDs creates crds and waits until each is established and every served
// version shows the resource in discovery.
func (cp *ControlPlane) InstallCRDs(ctx context.Context, crds ...*apiextensionsv1.CustomResourceDefinition) error {
	cfg := cp.Config()
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating apiextensions client: %w", err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating discovery client: %w", err)
	}
	for _, crd := range crds {
		if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd.DeepCopy(), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
		}
	}
	for _, crd := range crds {
		if err := waitEstablished(ctx, ext, crd.Name); err != nil {
			return err
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			if err := waitDiscovered(ctx, disco, crd.Spec.Group+"/"+v.Name, crd.Spec.Names.Plural); err != nil {
				return err
			}
		}
	}
	return nil
}

func waitEstablished(ctx context.Context, ext apiextensionsclient.Interface, name string) error {
	return poll(ctx, crdTimeout, "CRD "+name+" to be established", func(ctx context.Context) (bool, error) {
		crd, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}

func waitDiscovered(ctx context.Context, disco discovery.DiscoveryInterface, groupVersion, plural string) error {
	return poll(ctx, crdTimeout, plural+" in discovery of "+groupVersion, func(context.Context) (bool, error) {
		list, err := disco.ServerResourcesForGroupVersion(groupVersion)
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == plural }), nil
	})
}

// DeleteCRD deletes the named CRD and waits until it is gone and a list of its
// resource answers 404. Open watches of the resource first get a DELETED event
// for each object, then end. Deleting a CRD that does not exist is not an error.
func (cp *ControlPlane) DeleteCRD(ctx context.Context, name string) error {
	cfg := cp.Config()
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating apiextensions client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating dynamic client: %w", err)
	}
	crds := ext.ApiextensionsV1().CustomResourceDefinitions()
	crd, err := crds.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting CRD %s: %w", name, err)
	}
	if err := crds.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting CRD %s: %w", name, err)
	}
	if err := poll(ctx, crdTimeout, "CRD "+name+" to be gone", func(ctx context.Context) (bool, error) {
		_, err := crds.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}); err != nil {
		return err
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
		if err := poll(ctx, crdTimeout, "list of "+gvr.String()+" to answer 404", func(ctx context.Context) (bool, error) {
			_, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		}); err != nil {
			return err
		}
	}
	return nil
}
