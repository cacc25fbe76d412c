package fleet

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
)

// informerAgent is a node agent built the usual way: one SharedInformer per
// type, from client-go's typed factory (protobuf, as kubesync's typed clients)
// for the built-in types and the dynamic factory (JSON) for the Calico ones,
// with default options and a counting event handler. Informers have no
// checkpoint: every start is cold.
type informerAgent struct {
	env  *agentEnv
	name string
	t    tally

	mu     sync.Mutex
	stopCh chan struct{}
	typed  informers.SharedInformerFactory
	dyn    dynamicinformer.DynamicSharedInformerFactory
	link   *link
}

func (a *informerAgent) tally() *tally { return &a.t }

func (a *informerAgent) start(_ context.Context, warm bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if warm {
		return fmt.Errorf("%s: informers cannot start warm", a.name)
	}
	if a.stopCh != nil {
		return fmt.Errorf("%s: already started", a.name)
	}
	cfg, l, err := newLink(a.env.base, a.env.meter, "fleet-"+a.name)
	if err != nil {
		return err
	}
	proto := rest.CopyConfig(cfg)
	proto.ContentType = "application/vnd.kubernetes.protobuf"
	proto.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(proto)
	if err != nil {
		l.close()
		return err
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		l.close()
		return err
	}
	a.t.reset(a.env.expected)
	typed := informers.NewSharedInformerFactory(cs, 0)
	dyn := dynamicinformer.NewDynamicSharedInformerFactory(dc, 0)
	var regs []cache.ResourceEventHandlerRegistration
	for _, t := range a.env.types {
		inf, err := informerFor(typed, dyn, t)
		if err != nil {
			l.close()
			return fmt.Errorf("%s: %w", a.name, err)
		}
		pods := t.Name == resources.Pods.Name
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				a.t.add(1)
				if pods {
					a.t.seq(seqOf(obj))
				}
			},
			UpdateFunc: func(_, obj any) {
				if pods {
					a.t.seq(seqOf(obj))
				}
			},
			DeleteFunc: func(any) { a.t.add(-1) },
		})
		if err != nil {
			l.close()
			return fmt.Errorf("%s: %s: %w", a.name, t.Name, err)
		}
		regs = append(regs, reg)
	}
	stopCh := make(chan struct{})
	typed.Start(stopCh)
	dyn.Start(stopCh)
	go func() {
		// An informer agent is in sync once every handler has seen its initial
		// list; it never leaves that state (a relist is silent).
		for _, r := range regs {
			select {
			case <-r.HasSyncedChecker().Done():
			case <-stopCh:
				return
			}
		}
		a.t.status(true)
	}()
	a.stopCh, a.typed, a.dyn, a.link = stopCh, typed, dyn, l
	return nil
}

// informerFor returns the typed factory's informer for t's resource, or the
// dynamic factory's for a type the typed factory does not know.
func informerFor(typed informers.SharedInformerFactory, dyn dynamicinformer.DynamicSharedInformerFactory, t resources.Type) (cache.SharedIndexInformer, error) {
	if g, err := typed.ForResource(t.GVR); err == nil {
		return g.Informer(), nil
	}
	if t.GVR.Group != resources.CalicoGroupVersion.Group {
		return nil, fmt.Errorf("no informer for %s", t.GVR)
	}
	return dyn.ForResource(t.GVR).Informer(), nil
}

func (a *informerAgent) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopCh == nil {
		return
	}
	close(a.stopCh)
	a.typed.Shutdown()
	a.dyn.Shutdown()
	a.link.close()
	a.stopCh, a.typed, a.dyn, a.link = nil, nil, nil, nil
}
