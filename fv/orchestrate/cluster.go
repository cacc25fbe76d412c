package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/harness"
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
	// APIServers, past one, makes the control plane highly available: as many
	// kube-apiservers on its etcd, behind a round-robin balancer (Balanced).
	APIServers int
}

// Cluster is a started control plane and the clients of it (the admin's,
// straight to the first apiserver).
type Cluster struct {
	*controlplane.ControlPlane
	Kube *kubernetes.Clientset
	Dyn  *dynamic.DynamicClient
	// ServerVersion is the apiserver's git version, empty if it did not say.
	ServerVersion string
	// Servers are the apiservers, the control plane's own first; in a highly
	// available one, Servers[i] is the balancer's backend ServerName(i).
	Servers []*controlplane.APIServer
	// LB is the balancer in front of every apiserver of a highly available
	// control plane; nil otherwise.
	LB *harness.Balancer
	// EtcdLink is the last apiserver's way to etcd in a highly available
	// control plane, which pausing it makes lag; nil otherwise.
	EtcdLink *harness.Balancer
	log      *os.File
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
	cl.Servers = []*controlplane.APIServer{cp.APIServer()}
	if err := cl.addServers(ctx, c.APIServers); err != nil {
		_ = cl.Stop()
		return nil, err
	}
	if cl.Kube, cl.Dyn, err = NewClients(cp.Config()); err != nil {
		_ = cl.Stop()
		return nil, err
	}
	if v, err := cl.Kube.Discovery().ServerVersion(); err == nil {
		cl.ServerVersion = v.GitVersion
	}
	return cl, nil
}

// Stop closes the balancer, stops the control plane, then closes the etcd
// link (the lagging apiserver stops through it) and the log.
func (c *Cluster) Stop() error {
	defer c.closeLog()
	var errs []error
	if c.LB != nil {
		errs = append(errs, c.LB.Close())
	}
	if err := c.ControlPlane.Stop(); err != nil {
		errs = append(errs, fmt.Errorf("stopping the control plane: %w", err))
	}
	if c.EtcdLink != nil {
		errs = append(errs, c.EtcdLink.Close())
	}
	return errors.Join(errs...)
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
