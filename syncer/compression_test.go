package syncer_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// encodings is a fake apiserver that refuses every request and records the
// Accept-Encoding of those for configmaps.
type encodings struct {
	mu   sync.Mutex
	seen []string
}

func (e *encodings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.URL.Path, "configmaps") {
		e.mu.Lock()
		e.seen = append(e.seen, r.Header.Get("Accept-Encoding"))
		e.mu.Unlock()
	}
	http.Error(w, "unavailable", http.StatusServiceUnavailable)
}

func (e *encodings) first() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

var _ = Describe("WithCompression", func() {
	acceptEncodings := func(cfg *rest.Config, opts ...syncer.Option) []string {
		fake := &encodings{}
		srv := httptest.NewServer(fake)
		if cfg.Insecure {
			srv.Close()
			srv = httptest.NewTLSServer(fake)
		}
		defer srv.Close()
		cfg.Host = srv.URL
		s, err := syncer.New(cfg, []resources.Type{resources.ConfigMaps}, syncertest.NewRecorder(), opts...)
		Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s.Start(ctx)
		defer s.Stop()
		Eventually(fake.first).ShouldNot(BeEmpty())
		return fake.first()
	}

	It("asks for gzip by default, as client-go does", func() {
		Expect(acceptEncodings(&rest.Config{})[0]).To(Equal("gzip"))
	})
	It("asks for no gzip when off, over plain HTTP and over TLS", func() {
		Expect(acceptEncodings(&rest.Config{}, syncer.WithCompression(false))[0]).To(Equal("identity"))
		Expect(acceptEncodings(&rest.Config{TLSClientConfig: rest.TLSClientConfig{Insecure: true}},
			syncer.WithCompression(false))[0]).To(Equal("identity"))
	})
	It("asks for gzip when on, whatever the rest.Config says, and leaves the caller's rest.Config alone", func() {
		cfg := &rest.Config{DisableCompression: true, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
		Expect(acceptEncodings(cfg, syncer.WithCompression(true))[0]).To(Equal("gzip"))
		Expect(cfg.DisableCompression).To(BeTrue())
	})
})
