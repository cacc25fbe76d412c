package checkpoint_test

import (
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("A type's revision", func() {
	It("is given back with when it was noted, which a later write of other types keeps", func() {
		path := filepath.Join(GinkgoT().TempDir(), "agent.db")
		s, _, _ := open(path, here, types)
		s.Record("pods", "ns/a", "4", pod("a", "4"))
		before := time.Now()
		s.Revision("pods", "5")
		after := time.Now()
		Expect(s.Flush()).To(Succeed())
		s.Record("networksets.crd.projectcalico.org", "ns/n", "6", netset("n", "6"))
		s.Revision("networksets.crd.projectcalico.org", "7")
		Expect(s.Flush()).To(Succeed())
		Expect(s.Close()).To(Succeed())

		_, snap, _ := open(path, here, types)
		Expect(snap).NotTo(BeNil())
		pods := snap.Types["pods"]
		Expect(pods.Revision).To(Equal("5"))
		Expect(pods.Confirmed).To(BeTemporally(">=", before.Truncate(time.Nanosecond)))
		Expect(pods.Confirmed).To(BeTemporally("<=", after))
		Expect(snap.Types["networksets.crd.projectcalico.org"].Confirmed).To(BeTemporally(">=", pods.Confirmed))
	})
})
