package syncer_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// brokenPage is a ConfigMap list page in protobuf whose second item has readable
// metadata and a body that does not decode (its data field has the wrong wire type).
func brokenPage() []byte {
	item := func(name, rv string) []byte {
		b, err := (&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("u-" + name),
			ResourceVersion: rv}}).Marshal()
		Expect(err).NotTo(HaveOccurred())
		return b
	}
	bad := protowire.AppendVarint(protowire.AppendTag(item("bad", "5"), 2, protowire.VarintType), 1)
	list, err := (&corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "7"},
		Items: []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "good", Namespace: "ns", UID: "u-good",
			ResourceVersion: "6"}}}}).Marshal()
	Expect(err).NotTo(HaveOccurred())
	list = protowire.AppendBytes(protowire.AppendTag(list, 2, protowire.BytesType), bad)
	env, err := (&runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}, Raw: list}).Marshal()
	Expect(err).NotTo(HaveOccurred())
	return append([]byte("k8s\x00"), env...)
}

var _ = Describe("a raw object whose body does not decode", func() {
	It("reaches OnParseFailed as its metadata, which meta.Accessor names, and the rest syncs", func() {
		page := brokenPage()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
			if r.URL.Query().Get("watch") != "true" {
				_, _ = w.Write(page)
				return
			}
			w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf;stream=watch")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		DeferCleanup(srv.Close)
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1,
			ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}})
		Expect(err).NotTo(HaveOccurred())
		clients := wire.Clients{Typed: cs}
		log := logrus.New()
		log.SetOutput(io.Discard)
		rec := newRecorder()
		s, err := syncer.New(nil, []resources.Type{resources.ConfigMaps}, rec, syncer.WithLogger(log),
			syncer.WithInitialList(syncer.Paged), syncer.WithTiming(syncer.Timing{Backoff: testBackoff}),
			syncer.WithListerWatcher(func(t resources.Type) (cache.ListerWatcherWithContext, error) {
				return wire.ListerWatcher(t, clients), nil
			}))
		Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		s.Start(ctx)
		DeferCleanup(s.Stop)
		Eventually(rec.last).Should(Equal(syncer.InSync))

		Expect(rec.updates()).To(HaveLen(1))
		var failed []syncertest.Callback
		Eventually(func() []syncertest.Callback {
			failed = rec.since(0, syncertest.ParseFailed)
			return failed
		}).Should(HaveLen(1))
		Expect(failed[0].Object).To(BeAssignableToTypeOf(&metav1.PartialObjectMetadata{}))
		m, err := meta.Accessor(failed[0].Object)
		Expect(err).NotTo(HaveOccurred())
		Expect([]string{m.GetNamespace(), m.GetName(), m.GetResourceVersion(), string(m.GetUID())}).To(
			Equal([]string{"ns", "bad", "5", "u-bad"}))
		Expect(failed[0].Err).To(MatchError(ContainSubstring("configmaps ns/bad")))
	})
})
