package fv

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// encodings records the Content-Encoding of each response to a request whose
// path holds a word, as it came off the wire: a wrapper of the caller's
// rest.Config sits under the syncer's own. One log serves every transport the
// config is made into (wrap).
type encodings struct {
	word string
	mu   sync.Mutex
	seen []string
}

// wrap is a rest.Config's WrapTransport that records into e.
func (e *encodings) wrap(next http.RoundTripper) http.RoundTripper {
	return encodingRecorder{next: next, log: e}
}

// encodingRecorder is one transport's recorder into its log.
type encodingRecorder struct {
	next http.RoundTripper
	log  *encodings
}

func (r encodingRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err == nil && strings.Contains(req.URL.Path, r.log.word) {
		r.log.mu.Lock()
		r.log.seen = append(r.log.seen, req.Method+" "+resp.Header.Get("Content-Encoding"))
		r.log.mu.Unlock()
	}
	return resp, err
}

func (e *encodings) got() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

var _ = Describe("Compression", func() {
	It("asks the apiserver for gzip by default and un-gzips what it sends", func(ctx SpecContext) {
		c := startCluster()
		ns := c.Namespace(ctx, "gzip")
		const n = 300 // 1 KiB each: a list of more than the 128 KiB the apiserver gzips from
		for i := range n {
			_, err := c.Kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i)},
				Data:       map[string]string{"data": strings.Repeat(fmt.Sprintf("%03d", i), 342)},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}
		wire := &encodings{word: "configmaps"}
		cfg := rest.CopyConfig(c.Config())
		cfg.Wrap(wire.wrap)

		store, log := snapshot.NewStore(), logrus.New()
		log.SetOutput(GinkgoWriter)
		s, err := syncer.New(cfg, []resources.Type{resources.ConfigMaps}, store,
			syncer.WithInitialList(syncer.Paged), syncer.WithLogger(log))
		Expect(err).NotTo(HaveOccurred())
		s.Start(ctx)
		DeferCleanup(func() { s.Stop(); s.Wait() })
		Eventually(store.Status).Should(Equal(syncer.InSync))

		Expect(wire.got()).To(ContainElement("GET gzip"), "the list came gzipped")
		for i := range n {
			kv, ok := store.Get(resources.ConfigMaps.KeyFor(ns, fmt.Sprintf("cm-%03d", i)))
			Expect(ok).To(BeTrue(), "cm-%03d", i)
			Expect(kv.Value.(*corev1.ConfigMap).Data["data"]).To(Equal(strings.Repeat(fmt.Sprintf("%03d", i), 342)))
		}
	})
})
