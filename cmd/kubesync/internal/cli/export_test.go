package cli

import (
	"context"
	"io"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
)

// WithLocalStarter replaces the local control plane of --local, for tests: fn
// returns its configuration and the function that stops it. Its kubeconfig is
// named kubeconfig.
func WithLocalStarter(kubeconfig string, fn func(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition,
	out io.Writer) (*rest.Config, func() error, error)) Option {
	return func(e *env) {
		e.startLocal = func(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition, out io.Writer) (*localCluster, error) {
			cfg, stop, err := fn(ctx, crds, out)
			if err != nil {
				return nil, err
			}
			return &localCluster{config: cfg, kubeconfig: kubeconfig, stop: stop}, nil
		}
	}
}
