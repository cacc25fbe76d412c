package snapshot_test

import (
	"context"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

var _ = Describe("A Store's reads", func() {
	It("take a type's Name or Kind alike, and reject at once a name that is neither", func(ctx SpecContext) {
		api := syncertest.NewAPI(resources.Nodes)
		r := startBroker(ctx, api)
		Eventually(r.broker.Store().Synced()).Should(BeClosed())
		rev := strconv.FormatUint(api.Put(resources.Nodes, node("node-a")), 10)
		Expect(r.s.WaitFor(ctx, "nodes", rev)).To(Succeed())

		for what, st := range map[string]*snapshot.Store{"the Broker's Store": r.broker.Store(), "a subscribed Store": r.sub} {
			for _, name := range []string{"nodes", "Node"} {
				wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				Expect(st.WaitFor(wctx, name, rev)).To(Succeed(), "%s, WaitFor by %s", what, name)
				cancel()
				Expect(st.Revision(name)).To(Equal(rev), "%s, Revision by %s", what, name)
				Expect(st.List(name)).To(HaveLen(1), "%s, List by %s", what, name)
				Expect(st.Len(name)).To(Equal(1), "%s, Len by %s", what, name)
				byNS, err := st.ByIndex(name, snapshot.NamespaceIndex, "")
				Expect(err).NotTo(HaveOccurred())
				Expect(byNS).To(HaveLen(1), "%s, ByIndex by %s", what, name)
				_, held := st.Get(resources.Key{Kind: name, Name: "node-a"})
				Expect(held).To(BeTrue(), "%s, Get by %s", what, name)
				nodes, err := snapshot.List[*corev1.Node](st.Snapshot(), name)
				Expect(err).NotTo(HaveOccurred())
				Expect(nodes).To(HaveLen(1), "%s, a View's typed List by %s", what, name)
			}
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := st.WaitFor(wctx, "pods", "1")
			cancel()
			Expect(err).To(MatchError(syncer.ErrUnknownType), what)
			Expect(err.Error()).To(ContainSubstring("nodes (Node)"), "%s: the error lists the names it knows", what)
			Expect(st.Revision("pods")).To(BeEmpty())
		}
	})
})
