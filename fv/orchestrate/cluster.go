package orchestrate

import (
	"context"
	"fmt"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crds"
)

// Config is a control plane to start.
type Config struct {
	// CRDs are installed at start; nil installs every bundled one (crds.All).
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// LogPath, when set, is created and receives the control plane's output;
	// otherwise controlplane's default applies.
	LogPath string
	// Options are passed to controlplane.Start after those above.
	Options []controlplane.Option
}

// Cluster is a started control plane and the clients of it.
type Cluster struct {
	*controlplane.ControlPlane
	Kube *kubernetes.Clientset
	Dyn  *dynamic.DynamicClient
	// ServerVersion is the apiserver's git version, empty if it did not say.
	ServerVersion string
	log           *os.File
}

// Start starts the control plane of c and builds its clients. Stop ends it.
func Start(ctx context.Context, c Config) (*Cluster, error) {
	defs := c.CRDs
	if defs == nil {
		all, err := crds.All()
		if err != nil {
			return nil, err
		}
		defs = all
	}
	opts := []controlplane.Option{controlplane.WithCRDs(defs...)}
	cl := &Cluster{}
	if c.LogPath != "" {
		f, err := os.Create(c.LogPath)
		if err != nil {
			return nil, err
		}
		cl.log = f
		opts = append(opts, controlplane.WithOutput(f))
	}
	cp, err := controlplane.Start(ctx, append(opts, c.Options...)...)
	if err != nil {
		cl.closeLog()
		return nil, err
	}
	cl.ControlPlane = cp
	if cl.Kube, cl.Dyn, err = NewClients(cp.Config()); err != nil {
		_ = cl.Stop()
		return nil, err
	}
	if v, err := cl.Kube.Discovery().ServerVersion(); err == nil {
		cl.ServerVersion = v.GitVersion
	}
	return cl, nil
}

// Stop stops the control plane and closes its log.
func (c *Cluster) Stop() error {
	defer c.closeLog()
	if err := c.ControlPlane.Stop(); err != nil {
		return fmt.Errorf("stopping the control plane: %w", err)
	}
	return nil
}

func (c *Cluster) closeLog() {
	if c.log != nil {
		_ = c.log.Close()
	}
}

// NewClients builds the typed and the dynamic client of cfg.
func NewClients(cfg *rest.Config) (*kubernetes.Clientset, *dynamic.DynamicClient, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	return cs, dyn, nil
}
