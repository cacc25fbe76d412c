package ha

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/harness"
)

// Cluster is a highly available control plane on loopback: kube-apiservers on
// one etcd, behind a round-robin TCP balancer. The last apiserver, the lagging
// one, reaches etcd through a balancer of its own that Lag pauses.
type Cluster struct {
	CP *controlplane.ControlPlane
	// Servers are the apiservers, CP's first; Servers[i] is the balancer's
	// backend ServerName(i).
	Servers []*controlplane.APIServer
	// LB is the balancer in front of every apiserver.
	LB *harness.Balancer
	// EtcdLink is the lagging apiserver's way to etcd.
	EtcdLink *harness.Balancer
}

// StartCluster starts a control plane with opts and servers-1 more
// apiservers, the last through EtcdLink, and the balancer in front of them.
// Stop it when done, even after an error.
func StartCluster(ctx context.Context, servers int, opts ...controlplane.Option) (*Cluster, error) {
	if servers < 2 {
		return nil, fmt.Errorf("a highly available control plane needs 2 apiservers or more, not %d", servers)
	}
	cp, err := controlplane.Start(ctx, opts...)
	c := &Cluster{CP: cp}
	if err != nil {
		return c, err
	}
	etcd := cp.EtcdURL()
	if c.EtcdLink, err = harness.NewBalancer(harness.Backend{Name: "etcd", Addr: func() string { return etcd.Host }}); err != nil {
		return c, err
	}
	c.Servers = append(c.Servers, cp.APIServer())
	for i := 1; i < servers; i++ {
		var extra []controlplane.APIServerOption
		if i == servers-1 {
			extra = append(extra, controlplane.WithEtcdURL(&url.URL{Scheme: "http", Host: c.EtcdLink.Addr()}))
		}
		a, err := cp.AddAPIServer(ctx, extra...)
		if err != nil {
			return c, err
		}
		c.Servers = append(c.Servers, a)
	}
	var backends []harness.Backend
	for i, a := range c.Servers {
		backends = append(backends, harness.Backend{Name: ServerName(i), Addr: func() string { return a.URL().Host }})
	}
	c.LB, err = harness.NewBalancer(backends...)
	return c, err
}

// Config returns the admin's rest.Config through the balancer. With http1 it
// speaks HTTP/1.1 only, so that each watch has a connection, and a backend, of
// its own; otherwise every request of a client shares one HTTP/2 connection,
// and so one apiserver, until that connection breaks.
func (c *Cluster) Config(http1 bool) *rest.Config {
	cfg := c.CP.Config()
	cfg.Host = "https://" + c.LB.Addr()
	if http1 {
		cfg.NextProtos = []string{"http/1.1"}
	}
	return cfg
}

// Inject runs one fault and returns once it is over: the apiserver restarted
// and ready, the link or rotation restored.
func (c *Cluster) Inject(ctx context.Context, st Step) error {
	switch st.Kind {
	case Restart:
		return c.Servers[st.Server].Restart(ctx)
	case Kill:
		return c.Servers[st.Server].KillAndRestart(ctx)
	case Cut:
		c.LB.Cut()
		return nil
	case Lag:
		c.EtcdLink.Pause()
		defer c.EtcdLink.Resume()
		return sleep(ctx, st.Hold)
	case Drain:
		name := ServerName(st.Server)
		if err := c.LB.Out(name); err != nil {
			return err
		}
		defer func() { _ = c.LB.In(name) }()
		return sleep(ctx, st.Hold)
	}
	return fmt.Errorf("no such fault: %s", st.Kind)
}

// Run injects the schedule's faults, each at its time, logging each with
// logf as it ends; faults on one target (see target) take turns. It returns
// when the last one ended, with the errors of those that failed.
func (c *Cluster) Run(ctx context.Context, s Schedule, logf func(format string, args ...any)) (time.Time, error) {
	start := time.Now()
	turns := map[string]*sync.Mutex{}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for i, st := range s.Steps {
		if err := sleep(ctx, time.Until(start.Add(st.At))); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			break
		}
		turn := turns[target(st)]
		if turn == nil {
			turn = &sync.Mutex{}
			turns[target(st)] = turn
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			turn.Lock()
			defer turn.Unlock()
			began := time.Now()
			err := c.Inject(ctx, st)
			logf("+%5.1fs %-7s %-16s took %s\n", began.Sub(start).Seconds(), st.Kind, target(st), time.Since(began).Round(time.Millisecond))
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("fault %d (%s): %w", i+1, st, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return time.Now(), errors.Join(errs...)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stop closes the balancer, stops the control plane, then closes the etcd
// link (the lagging apiserver stops through it).
func (c *Cluster) Stop() error {
	var errs []error
	if c.LB != nil {
		errs = append(errs, c.LB.Close())
	}
	if c.CP != nil {
		errs = append(errs, c.CP.Stop())
	}
	if c.EtcdLink != nil {
		errs = append(errs, c.EtcdLink.Close())
	}
	return errors.Join(errs...)
}
