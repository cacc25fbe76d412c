package cli

import (
	"context"
	"fmt"
	"io"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/controlplane"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
)

// localStarter starts a local control plane (etcd and kube-apiserver on
// loopback) with crds installed, writing its processes' output to out. It returns
// the admin configuration and a function that stops the control plane.
type localStarter func(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition,
	out io.Writer) (*rest.Config, func() error, error)

// samplesPerType is how many sample objects of each type a local control plane gets.
const samplesPerType = 3

// startLocal starts the pinned etcd and kube-apiserver of internal/controlplane and
// loads sample objects of the built-in types and of each type crds serve.
func startLocal(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition,
	out io.Writer) (*rest.Config, func() error, error) {
	cp, err := controlplane.Start(ctx, controlplane.WithCRDs(crds...), controlplane.WithOutput(out))
	if err != nil {
		return nil, nil, fmt.Errorf("local control plane: %w", err)
	}
	types := resources.Builtin()
	for _, t := range resources.Calico() {
		for _, crd := range crds {
			if crd.Spec.Group == t.GVR.Group && crd.Spec.Names.Plural == t.GVR.Resource {
				types = append(types, t)
			}
		}
	}
	dyn, err := dynamic.NewForConfig(cp.Config())
	if err == nil {
		err = samples.LoadDemo(ctx, dyn, types, samplesPerType)
	}
	if err != nil {
		_ = cp.Stop()
		return nil, nil, fmt.Errorf("local control plane: loading sample objects: %w", err)
	}
	return cp.Config(), cp.Stop, nil
}
