package fv

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/fv/harness"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// wireCount is what one syncer read through its proxy: the bytes off its
// connections (HTTP as sent, gzip included), and its requests of one resource
// by kind.
type wireCount struct {
	bytes, metaLists, fullLists, gets atomic.Int64
}

// snapshot is the counts now, to subtract.
func (w *wireCount) snapshot() [4]int64 {
	return [4]int64{w.bytes.Load(), w.metaLists.Load(), w.fullLists.Load(), w.gets.Load()}
}

// observe classifies a request to resource: a LIST of metadata only, a full
// list (a LIST, or a WATCH with sendInitialEvents), or a GET of one object.
func (w *wireCount) observe(resource string) func(*http.Request) {
	return func(r *http.Request) {
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		i := len(parts) - 1
		q := r.URL.Query()
		switch {
		case parts[i] == resource && q.Get("watch") != "true" && q.Get("watch") != "1":
			if strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadataList") {
				w.metaLists.Add(1)
			} else {
				w.fullLists.Add(1)
			}
		case parts[i] == resource && q.Get("sendInitialEvents") == "true":
			w.fullLists.Add(1)
		case i > 0 && parts[i-1] == resource:
			w.gets.Add(1)
		}
	}
}

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// countedSyncer runs a syncer of t through a proxy of its own, counting what it
// reads.
func countedSyncer(c *cluster, t resources.Type, opts ...syncer.Option) (*consistency.Mirror, *harness.Proxy, *wireCount) {
	w := &wireCount{}
	p, err := harness.NewProxy(c.ControlPlane, harness.WithProxyRequestObserver(w.observe(t.GVR.Resource)))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(p.Close)
	cfg := p.Config()
	dialer := &net.Dialer{}
	cfg.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, address)
		if err != nil {
			return nil, err
		}
		return countingConn{Conn: conn, n: &w.bytes}, nil
	}
	_, m, _ := env.Run(cfg, []resources.Type{t}, opts...)
	return m, p, w
}

var _ = Describe("a relist after an apiserver restart, metadata first", func() {
	const objects, changed = 5000, 10

	It("lists metadata, GETs the 10 changed pods out of 5,000, and streams nothing in full", func(ctx SpecContext) {
		pods := resources.Pods.InNamespace("meta")
		types := []resources.Type{pods}
		c := startCluster()
		c.Namespace(ctx, "meta")
		c.Create(ctx, resources.Pods, "meta", env.Seq("pod", objects)...)

		mFirst, pFirst, first := countedSyncer(c, pods) // the default: metadata first
		mFull, pFull, full := countedSyncer(c, pods, syncer.WithMetadataRelist(0))
		for _, m := range []*consistency.Mirror{mFirst, mFull} {
			env.InSync(m)
			env.Consistent(ctx, c.Config(), m, types)
		}
		for _, p := range []*harness.Proxy{pFirst, pFull} {
			Eventually(func() int { return p.OpenStreams("", "pods") }).Should(Equal(1))
		}
		before, beforeFull := first.snapshot(), full.snapshot()

		// Both syncers are cut off while 10 pods change, etcd is compacted and the
		// apiserver restarts: their watches come back to a watch cache that starts
		// at the current revision, and get 410.
		pFirst.Blackhole(true)
		pFull.Blackhole(true)
		for i := range changed {
			c.Touch(ctx, pods, "meta", fmt.Sprintf("pod-%04d", i*(objects/changed)))
		}
		_, err := c.ControlPlane.Compact(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.StopAPIServer()).To(Succeed())
		Expect(c.StartAPIServer(ctx)).To(Succeed())
		pFirst.Blackhole(false)
		pFull.Blackhole(false)

		for _, m := range []*consistency.Mirror{mFirst, mFull} {
			env.Consistent(ctx, c.Config(), m, types)
			Expect(m.Anomalies()).To(BeEmpty())
			Expect(m.Count(pods.Kind, syncer.KVUpdated)).To(Equal(changed))
		}
		for _, p := range []*harness.Proxy{pFirst, pFull} {
			Eventually(func() int { return p.OpenStreams("", "pods") }).Should(Equal(1))
		}
		after, afterFull := first.snapshot(), full.snapshot()
		pages := int64(objects / 500)
		Expect(after[1]-before[1]).To(Equal(pages), "one metadata list, page by page")
		Expect(after[2]-before[2]).To(BeZero(), "no full list or stream")
		Expect(after[3]-before[3]).To(BeEquivalentTo(changed), "one GET per changed pod")
		Expect(afterFull[2]-beforeFull[2]).To(BeNumerically(">=", 1), "the full relist streams")
		Expect(afterFull[3]-beforeFull[3]).To(BeZero())

		firstBytes, fullBytes := after[0]-before[0], afterFull[0]-beforeFull[0]
		report := fmt.Sprintf("relist of %d pods, %d changed: metadata first %d bytes (%d metadata list pages, "+
			"%d GETs); full relist %d bytes (%d streams); ratio %.3f",
			objects, changed, firstBytes, after[1]-before[1], after[3]-before[3],
			fullBytes, afterFull[2]-beforeFull[2], float64(firstBytes)/float64(fullBytes))
		fmt.Fprintln(GinkgoWriter, report)
		AddReportEntry("metadata-first relist bytes", report)
		Expect(firstBytes).To(BeNumerically("<", fullBytes))
	})
})
