package fv

import (
	"context"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// informers are plain client-go informers with their defaults, one per type:
// the peer a view's convergence is compared with.
type informers struct {
	types  []resources.Type
	stores []cache.Store
}

func startInformers(dyn dynamic.Interface, types []resources.Type) *informers {
	in := &informers{types: types}
	stop := make(chan struct{})
	DeferCleanup(func() { close(stop) })
	for _, t := range types {
		inf := dynamicinformer.NewFilteredDynamicInformer(dyn, t.GVR, t.Namespace, 0, cache.Indexers{}, nil)
		in.stores = append(in.stores, inf.Informer().GetStore())
		go inf.Informer().Run(stop)
	}
	return in
}

// check compares what the informers hold with a list of the server, as
// consistency.Check does for a Mirror.
func (in *informers) check(ctx context.Context, md metadata.Interface) error {
	for i, t := range in.types {
		list, err := md.Resource(t.GVR).Namespace(t.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		held := map[string]string{}
		for _, o := range in.stores[i].List() {
			u := o.(*unstructured.Unstructured)
			held[u.GetNamespace()+"/"+u.GetName()] = u.GetResourceVersion()
		}
		if len(held) != len(list.Items) {
			return fmt.Errorf("%s: the informer holds %d objects, the server %d", t.Name, len(held), len(list.Items))
		}
		for _, o := range list.Items {
			if rv := held[o.Namespace+"/"+o.Name]; rv != o.ResourceVersion {
				return fmt.Errorf("%s: %s/%s at %q in the informer, %s on the server", t.Name, o.Namespace, o.Name, rv, o.ResourceVersion)
			}
		}
	}
	return nil
}

// workload changes the objects of types in namespace ns until ctx ends: it
// touches one, creates one and deletes the oldest it created, each tick, and
// shrugs off the errors of an apiserver that is away.
func workload(ctx context.Context, dyn dynamic.Interface, kinds []resources.Type, ns string) {
	for n := 0; ctx.Err() == nil; n++ {
		for _, t := range kinds {
			r := dyn.Resource(t.GVR).Namespace(ns)
			patch := fmt.Sprintf(`{"metadata":{"labels":{"n":"%d"}}}`, n)
			_, _ = r.Patch(ctx, fmt.Sprintf("obj-%04d", n%20), types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			_ = samples.Create(ctx, dyn, t, ns, fmt.Sprintf("w-%05d", n))
			if n >= 5 {
				_ = r.Delete(ctx, fmt.Sprintf("w-%05d", n-5), metav1.DeleteOptions{})
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

var _ = Describe("An apiserver killed and its revision compacted, under writes", func() {
	It("leaves a view that converges no later than a client-go informer's", func(ctx SpecContext) {
		types := []resources.Type{resources.ConfigMaps.InNamespace("kill"), resources.NetworkSets.InNamespace("kill")}
		c := startCluster()
		c.Namespace(ctx, "kill")
		for _, t := range types {
			c.Create(ctx, t, "kill", env.Seq("obj", 20)...)
		}
		md, err := metadata.NewForConfig(c.Config())
		Expect(err).NotTo(HaveOccurred())
		_, m, obs := env.Run(c.Config(), types)
		inf := startInformers(c.Dyn, types)
		env.InSync(m)
		Eventually(func() error { return inf.check(ctx, md) }).Should(Succeed())

		writes, stopWrites := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); workload(writes, c.Dyn, types, "kill") }()
		time.Sleep(2 * time.Second) // writes under way when the apiserver dies
		Expect(c.KillAPIServer()).To(Succeed())
		_, err = c.Compact(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.StartAPIServer(ctx)).To(Succeed())
		time.Sleep(2 * time.Second) // writes go on against the new apiserver
		stopWrites()
		wg.Wait()
		ended := time.Now()

		var ks, ci time.Duration
		Eventually(func() bool {
			if ks == 0 && consistency.Check(ctx, c.Config(), m, types) == nil {
				ks = time.Since(ended)
			}
			if ci == 0 && inf.check(ctx, md) == nil {
				ci = time.Since(ended)
			}
			return ks > 0 && ci > 0
		}).WithTimeout(time.Minute).WithPolling(50 * time.Millisecond).Should(BeTrue())
		answered := obs.LastListing(syncer.ListExpired).Sub(ended)
		AddReportEntry("convergence after the workload", fmt.Sprintf(
			"kubesync %s, client-go informers %s, kubesync's last 410 answered %s", ks, ci, answered))
		// A restarted apiserver may hold a watch that came while it started
		// (kubesync's, resumed from its revision) for seconds, and answer an
		// informer's later relist sooner: kubesync converges no later than the
		// informers, or within half a second of the 410 that answered its
		// watch. One poll of the two checks apart counts as the same time.
		Expect(answered).To(BeNumerically(">", -time.Minute), "the compacted revision made kubesync relist")
		limit := max(ci, answered+500*time.Millisecond) + 250*time.Millisecond
		Expect(ks).To(BeNumerically("<=", limit),
			"kubesync converged in %s, the informers in %s, kubesync's last 410 was answered after %s", ks, ci, answered)
	})
})
