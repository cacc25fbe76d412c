package wire_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// acceptEncoding records the Accept-Encoding a request went with.
type acceptEncoding struct{ seen []string }

func (a *acceptEncoding) RoundTrip(r *http.Request) (*http.Response, error) {
	a.seen = append(a.seen, r.Header.Get("Accept-Encoding"))
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: r}, nil
}

var _ = Describe("CompressionConfig", func() {
	It("turns gzip on or off in a copy, and off asks for the identity encoding", func() {
		cfg := &rest.Config{Host: "https://127.0.0.1:1", DisableCompression: true}
		on := wire.CompressionConfig(cfg, true)
		Expect(on.DisableCompression).To(BeFalse())
		Expect(on.WrapTransport).To(BeNil(), "on wraps nothing: NewClients un-gzips over client-go's shared transport")
		off := wire.CompressionConfig(&rest.Config{}, false)
		Expect(off.DisableCompression).To(BeTrue())
		Expect(off.WrapTransport).NotTo(BeNil())
		Expect(cfg.DisableCompression).To(BeTrue(), "the caller's rest.Config is not changed")

		next := &acceptEncoding{}
		rt := off.WrapTransport(next)
		for _, asked := range []string{"", "gzip"} {
			req, err := http.NewRequest(http.MethodGet, "http://example.com/", nil)
			Expect(err).NotTo(HaveOccurred())
			if asked != "" {
				req.Header.Set("Accept-Encoding", asked)
			}
			_, err = rt.RoundTrip(req)
			Expect(err).NotTo(HaveOccurred())
			Expect(req.Header.Get("Accept-Encoding")).To(Equal(asked), "the caller's request is not changed")
		}
		Expect(next.seen).To(Equal([]string{"identity", "gzip"}), "a request's own Accept-Encoding goes as it is")
	})
})

var _ = Describe("RawOf and StreamErr", func() {
	It("find a lister/watcher's raw path while it is on, and a raw stream's error", func() {
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"})
		Expect(err).NotTo(HaveOccurred())
		lw := wire.ListerWatcher(resources.ConfigMaps, wire.Clients{Typed: cs})
		rs := wire.RawOf(lw)
		Expect(rs).NotTo(BeNil())
		rs.DisableRaw()
		Expect(wire.RawOf(lw)).To(BeNil(), "the raw path is off")
		Expect(wire.RawOf(watch.NewFake())).To(BeNil(), "not a lister/watcher with a raw path")
		Expect(wire.StreamErr(watch.NewFake())).To(Succeed(), "a watch that is not a raw stream has no error of its own")
	})
})
