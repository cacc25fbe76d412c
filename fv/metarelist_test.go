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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/internal/wire"
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
func countedSyncer(c *cluster, t resources.Type, opts ...syncer.Option) (*consistency.Mirror, *controlplane.Proxy, *wireCount) {
	w := &wireCount{}
	p, err := controlplane.NewProxy(c.ControlPlane, controlplane.WithProxyRequestObserver(w.observe(t.GVR.Resource)))
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

var _ = Describe("a relist after an apiserver restart, metadata first", env.Compat, func() {
	const objects, changed = 5000, 10

	It("lists metadata, GETs the 10 changed pods out of 5,000, and streams nothing in full", func(ctx SpecContext) {
		pods := resources.Pods.InNamespace("meta")
		types := []resources.Type{pods}
		c := startCluster()
		c.Namespace(ctx, "meta")
		c.Create(ctx, resources.Pods, "meta", env.Seq("pod", objects)...)

		mFirst, pFirst, first := countedSyncer(c, pods) // the default: metadata first
		mFull, pFull, full := countedSyncer(c, pods, syncer.WithMetadataRelist(syncer.MetadataRelist{Off: true}))
		for _, m := range []*consistency.Mirror{mFirst, mFull} {
			env.InSync(m)
			env.Consistent(ctx, c.Config(), m, types)
		}
		for _, p := range []*controlplane.Proxy{pFirst, pFull} {
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
		for _, p := range []*controlplane.Proxy{pFirst, pFull} {
			Eventually(func() int { return p.OpenStreams("", "pods") }).Should(Equal(1))
		}
		after, afterFull := first.snapshot(), full.snapshot()
		pages := int64(8) // 5,000 pods in pages of 625: the ledger's objects over 8, more than the 500 of a list
		Expect(after[1]-before[1]).To(Equal(pages), "one metadata list, page by page")
		Expect(after[2]-before[2]).To(BeZero(), "no full list or stream")
		Expect(after[3]-before[3]).To(BeEquivalentTo(changed), "one GET per changed pod")
		Expect(afterFull[2]-beforeFull[2]).To(BeNumerically(">=", 1), "the full relist streams")
		Expect(afterFull[3] - beforeFull[3]).To(BeZero())

		firstBytes, fullBytes := after[0]-before[0], afterFull[0]-beforeFull[0]
		report := fmt.Sprintf("relist of %d pods, %d changed: metadata first %d bytes (%d metadata list pages, "+
			"%d GETs); full relist %d bytes (%d streams); ratio %.3f",
			objects, changed, firstBytes, after[1]-before[1], after[3]-before[3],
			fullBytes, afterFull[2]-beforeFull[2], float64(firstBytes)/float64(fullBytes))
		fmt.Fprintln(GinkgoWriter, report)
		AddReportEntry("metadata-first relist bytes", report)
		Expect(firstBytes).To(BeNumerically("<", fullBytes))
		measureRelistCosts(ctx, c, pods, objects)
	})
})

// measureRelistCosts reads, through a counting connection, a full list of t
// (protobuf, pages of 500, gzip as client-go asks for it), its metadata list,
// and 10 GETs, and reports the bytes of each and the share of changed objects
// up to which the metadata-first relist sends fewer bytes than a full one.
func measureRelistCosts(ctx context.Context, c *cluster, t resources.Type, objects int) {
	var n atomic.Int64
	cfg := rest.CopyConfig(c.Config())
	dialer := &net.Dialer{}
	cfg.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, address)
		if err != nil {
			return nil, err
		}
		return countingConn{Conn: conn, n: &n}, nil
	}
	clients, err := wire.NewClients(cfg)
	Expect(err).NotTo(HaveOccurred())
	lw := wire.ListerWatcher(t, clients).(*wire.RawListerWatcher)
	measure := func(read func() error) int64 {
		before := n.Load()
		Expect(read()).To(Succeed())
		return n.Load() - before
	}
	pages := func(list func(metav1.ListOptions) (string, error)) func() error {
		return func() error {
			opts := metav1.ListOptions{Limit: 500}
			for {
				next, err := list(opts)
				if err != nil || next == "" {
					return err
				}
				opts.Continue = next
			}
		}
	}
	_, _ = lw.ListMetadata(ctx, metav1.ListOptions{Limit: 1}) // open the connection first
	full := measure(pages(func(o metav1.ListOptions) (string, error) {
		p, err := lw.ListRaw(ctx, o, false)
		return p.Meta.Continue, err
	}))
	metadata := measure(pages(func(o metav1.ListOptions) (string, error) {
		p, err := lw.ListMetadata(ctx, o)
		return p.Meta.Continue, err
	}))
	const gets = 10
	get := measure(func() error {
		for i := range gets {
			if _, _, err := lw.GetRaw(ctx, t.Namespace, fmt.Sprintf("pod-%04d", i), ""); err != nil {
				return err
			}
		}
		return nil
	})
	perGet := float64(get) / gets
	breakEven := float64(full-metadata) / (perGet * float64(objects))
	report := fmt.Sprintf("%d pods on the wire: full list %d bytes (%.0f a pod), metadata list %d bytes (%.3f of it), "+
		"GET %.0f bytes a pod (%.1f list items); metadata first sends less up to %.1f%% changed",
		objects, full, float64(full)/float64(objects), metadata, float64(metadata)/float64(full),
		perGet, perGet*float64(objects)/float64(full), 100*breakEven)
	fmt.Fprintln(GinkgoWriter, report)
	AddReportEntry("relist costs", report)
}
