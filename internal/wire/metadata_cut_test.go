package wire_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

var _ = Describe("a metadata page read as it arrives", func() {
	// page is a protobuf PartialObjectMetadataList of n items, as the
	// apiserver sends one.
	page := func(n int) []byte {
		list := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
			ListMeta: metav1.ListMeta{ResourceVersion: "12"}}
		for i := range n {
			list.Items = append(list.Items, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
				Name: "cm" + strconv.Itoa(i), Namespace: "ns", UID: "u", ResourceVersion: strconv.Itoa(10 + i)}})
		}
		var b bytes.Buffer
		Expect(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(list, &b)).To(Succeed())
		return b.Bytes()
	}
	// serve answers every request with body, cut after cut bytes (the
	// connection closed) when cut is less than its length.
	serve := func(body []byte, cut int) wire.MetaSource {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body[:cut])
		}))
		DeferCleanup(srv.Close)
		clients, err := wire.NewClients(&rest.Config{Host: srv.URL})
		Expect(err).NotTo(HaveOccurred())
		return wire.ListerWatcher(resources.ConfigMaps, clients).(wire.MetaSource)
	}

	It("reads every item of a whole page, and counts its bytes", func(ctx SpecContext) {
		body := page(2000)
		p, err := serve(body, len(body)).ListMetadata(ctx, metav1.ListOptions{Limit: 5000})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Items).To(HaveLen(2000))
		Expect(p.Items[1999].Name).To(Equal("cm1999"))
		Expect(p.Meta.ResourceVersion).To(Equal("12"))
		Expect(p.Bytes).To(Equal(len(body)))
	})

	It("tells a page cut by its connection as a failed read, not as a body it did not expect", func(ctx SpecContext) {
		body := page(2000)
		_, err := serve(body, len(body)/2).ListMetadata(ctx, metav1.ListOptions{Limit: 5000})
		Expect(err).To(HaveOccurred())
		Expect(err).NotTo(MatchError(wire.ErrUnexpected), "a cut connection is retried, not answered by a full list")
	})

	It("tells a page it cannot read as a body it did not expect", func(ctx SpecContext) {
		body := page(10)
		body[len(body)-3] = 0xff // a field of wire type 7 in the last item
		_, err := serve(body, len(body)).ListMetadata(ctx, metav1.ListOptions{Limit: 5000})
		Expect(err).To(MatchError(wire.ErrUnexpected))
	})
})
