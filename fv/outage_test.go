package fv

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// requestLog keeps when each request reached the apiserver (through the proxy),
// and whether it was a list or a watch of which resource.
type requestLog struct {
	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	at       time.Time
	path     string
	watching bool
}

func (l *requestLog) observe(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, seenRequest{at: time.Now(), path: r.URL.Path, watching: r.URL.Query().Get("watch") == "true"})
}

func (l *requestLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.seen)
}

// since returns the requests from the i-th on.
func (l *requestLog) since(i int) []seenRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]seenRequest(nil), l.seen[i:]...)
}

// counts returns how many of the requests that reached the apiserver were
// watches (streams among them) and lists of resource.
func (l *requestLog) counts(resource string) (watches, lists int) {
	for _, r := range l.since(0) {
		switch {
		case !strings.HasSuffix(r.path, "/"+resource):
		case r.watching:
			watches++
		default:
			lists++
		}
	}
	return watches, lists
}

// proxiedCluster starts a cluster with objects of each of types in namespace
// ns, and a proxy in front of it whose requests log records.
func proxiedCluster(ctx context.Context, ns string, types []resources.Type, objects int) (*cluster, *controlplane.Proxy, *requestLog) {
	c := startCluster()
	c.Namespace(ctx, ns)
	for _, t := range types {
		c.Create(ctx, t, ns, env.Seq("obj", objects)...)
	}
	log := &requestLog{}
	p, err := controlplane.NewProxy(c.ControlPlane, controlplane.WithProxyRequestObserver(log.observe))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(p.Close)
	return c, p, log
}

// firstWatch returns when the first watch of resource among reqs reached the apiserver.
func firstWatch(reqs []seenRequest, resource string) (time.Time, bool) {
	for _, r := range reqs {
		if r.watching && strings.HasSuffix(r.path, "/"+resource) {
			return r.at, true
		}
	}
	return time.Time{}, false
}

var _ = Describe("An apiserver out of reach for ten seconds", func() {
	It("makes no type relist or leave InSync, and every type watches again within 2 s of the first request that reaches it", func(ctx SpecContext) {
		services := resources.Services.InNamespace("away")
		types := []resources.Type{services, resources.NetworkSets, resources.GlobalNetworkPolicies, resources.ConfigMaps.InNamespace("away")}
		c, p, log := proxiedCluster(ctx, "away", types, 20)
		s, m, obs := env.Run(p.Config(), types)
		env.InSync(m)
		reported := len(m.Statuses())
		lists, statuses := map[string]int{}, map[string]int{}
		for _, t := range types {
			lists[t.Name], statuses[t.Name] = obs.ListCount(t.Name), len(obs.TypeStatuses(t.Name))
		}

		Expect(p.RefuseConnections(true)).To(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(m.Status()).To(Equal(int(syncer.InSync)))
			for _, st := range s.Statuses() {
				g.Expect(st.Status).To(Equal(syncer.InSync), "%s's own status", st.Name)
			}
		}, 10*time.Second, 200*time.Millisecond).Should(Succeed())
		mark := log.len()
		Expect(p.RefuseConnections(false)).To(Succeed())

		Eventually(func(g Gomega) {
			back := log.since(mark)
			g.Expect(back).NotTo(BeEmpty())
			for _, t := range types {
				at, ok := firstWatch(back, t.GVR.Resource)
				g.Expect(ok).To(BeTrue(), "%s watches again", t.Name)
				g.Expect(at.Sub(back[0].at)).To(BeNumerically("<=", 2*time.Second),
					"%s watched again %s after the first request reached the apiserver", t.Name, at.Sub(back[0].at))
			}
		}).Within(20 * time.Second).Should(Succeed())
		for _, t := range types {
			Expect(obs.ListCount(t.Name)).To(Equal(lists[t.Name]), "%s relisted: %v", t.Name, obs.Reasons(t.Name))
			Expect(obs.TypeStatuses(t.Name)[statuses[t.Name]:]).NotTo(ContainElement(Not(Equal(syncer.InSync))), "%s's own status left InSync", t.Name)
		}
		Expect(m.Statuses()[reported:]).To(BeEmpty(), "the status changed after the first InSync")
		env.Consistent(ctx, c.Config(), m, types)
	})
})
