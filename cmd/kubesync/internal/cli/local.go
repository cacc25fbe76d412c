package cli

import (
	"context"
	"fmt"
	"io"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/controlplane"
)

// localStarter starts a local control plane (etcd and kube-apiserver on
// loopback) with crds installed, writing its processes' output to out. It returns
// the admin configuration and a function that stops the control plane.
type localStarter func(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition,
	out io.Writer) (*rest.Config, func() error, error)

// startLocal starts the pinned etcd and kube-apiserver of internal/controlplane.
func startLocal(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition,
	out io.Writer) (*rest.Config, func() error, error) {
	cp, err := controlplane.Start(ctx, controlplane.WithCRDs(crds...), controlplane.WithOutput(out))
	if err != nil {
		return nil, nil, fmt.Errorf("local control plane: %w", err)
	}
	return cp.Config(), cp.Stop, nil
}
