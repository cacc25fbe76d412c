package orchestrate

import (
	"context"
	"fmt"
	"net/url"

	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/harness"
)

// addServers makes the cluster highly available when servers is more than one:
// it adds servers-1 apiservers, the last reaching etcd through EtcdLink, and
// the balancer in front of them all.
func (c *Cluster) addServers(ctx context.Context, servers int) error {
	if servers <= 1 {
		return nil
	}
	etcd := c.EtcdURL()
	var err error
	if c.EtcdLink, err = harness.NewBalancer(harness.Backend{Name: "etcd", Addr: func() string { return etcd.Host }}); err != nil {
		return err
	}
	for i := 1; i < servers; i++ {
		var extra []controlplane.APIServerOption
		if i == servers-1 {
			extra = append(extra, controlplane.WithEtcdURL(&url.URL{Scheme: "http", Host: c.EtcdLink.Addr()}))
		}
		a, err := c.AddAPIServer(ctx, extra...)
		if err != nil {
			return err
		}
		c.Servers = append(c.Servers, a)
	}
	var backends []harness.Backend
	for i, a := range c.Servers {
		backends = append(backends, harness.Backend{Name: ServerName(i), Addr: func() string { return a.URL().Host }})
	}
	c.LB, err = harness.NewBalancer(backends...)
	return err
}

// ServerName is the name of the i-th apiserver (from 0) of a highly available
// control plane, in its balancer and in a fault schedule: apiserver-1...
func ServerName(i int) string { return fmt.Sprintf("apiserver-%d", i+1) }

// Balanced returns the admin's rest.Config through the balancer of a highly
// available control plane. With http1 it speaks HTTP/1.1 only, so that each
// watch has a connection, and a backend, of its own; otherwise every request of
// a client shares one HTTP/2 connection, and so one apiserver, until that
// connection breaks.
func (c *Cluster) Balanced(http1 bool) *rest.Config {
	cfg := c.Config()
	cfg.Host = "https://" + c.LB.Addr()
	if http1 {
		cfg.NextProtos = []string{"http/1.1"}
	}
	return cfg
}
