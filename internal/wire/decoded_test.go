package wire_test

import (
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/internal/wire"
)

var _ = Describe("an object decoded already, carried as the raw path carries one", func() {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u1", ResourceVersion: "7"}}

	It("has the object's identity, and decodes to a copy of it", func() {
		o, err := wire.Decoded(pod)
		Expect(err).NotTo(HaveOccurred())
		id, rev, uid := o.Identity()
		Expect([]string{id, rev, string(uid)}).To(Equal([]string{"ns/p", "7", "u1"}))
		var decodes atomic.Int64
		got, err := o.DecodeCounted(&decodes)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(pod))
		Expect(got).NotTo(BeIdenticalTo(pod))
		Expect(decodes.Load()).To(Equal(int64(1)))
	})

	It("refuses an object without metadata", func() {
		_, err := wire.Decoded(&metav1.Status{})
		Expect(err).To(HaveOccurred())
	})
})
