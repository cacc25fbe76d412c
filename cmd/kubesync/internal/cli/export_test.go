package cli

import (
	"context"
	"io"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
)

// WithLocalStarter replaces the local control plane of --local, for tests.
func WithLocalStarter(fn func(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition,
	out io.Writer) (*rest.Config, func() error, error)) Option {
	return func(e *env) { e.startLocal = fn }
}
