package cli

import (
	"context"
	"fmt"
	"io"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
)

// localCluster is a control plane that the command started.
type localCluster struct {
	config *rest.Config
	// kubeconfig is the path of an admin kubeconfig file for it, removed by stop.
	kubeconfig string
	stop       func() error
}

// localStarter starts a local control plane (etcd and kube-apiserver on
// loopback) with crds installed, writing its processes' output to out.
type localStarter func(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition,
	out io.Writer) (*localCluster, error)

// samplesPerType is how many sample objects of each type a local control plane gets.
const samplesPerType = 3

// startLocal starts the pinned etcd and kube-apiserver of package controlplane and
// loads sample objects of the built-in types and of each type crds serve.
func startLocal(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition,
	out io.Writer) (*localCluster, error) {
	cp, err := controlplane.Start(ctx, controlplane.WithCRDs(crds...), controlplane.WithOutput(out))
	if err != nil {
		return nil, fmt.Errorf("local control plane: %w", err)
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
		return nil, fmt.Errorf("local control plane: loading sample objects: %w", err)
	}
	kubeconfig, err := cp.AdminKubeconfig()
	if err != nil {
		_ = cp.Stop()
		return nil, fmt.Errorf("local control plane: %w", err)
	}
	return &localCluster{config: cp.Config(), kubeconfig: kubeconfig, stop: cp.Stop}, nil
}
