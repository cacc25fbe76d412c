package cli

import (
	"context"
	"errors"
	"io"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
)

// localStarter starts a local control plane (etcd and kube-apiserver on
// loopback) with crds installed, writing its processes' output to out. It returns
// the admin configuration and a function that stops the control plane.
type localStarter func(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition,
	out io.Writer) (*rest.Config, func() error, error)

// errLocalUnavailable is what --local answers while this build has no local
// control plane.
var errLocalUnavailable = errors.New("local control plane unavailable")

// startLocal is the local control plane of this build.
func startLocal(context.Context, []*apiextensionsv1.CustomResourceDefinition, io.Writer) (*rest.Config, func() error, error) {
	return nil, nil, errLocalUnavailable
}
