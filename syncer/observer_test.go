package syncer_test

import (
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// countingObserver keeps the last object count reported per type.
type countingObserver struct {
	syncer.NopObserver
	mu sync.Mutex
	n  map[string]int
}

func (o *countingObserver) Keys(typeName string, n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n[typeName] = n
}

func (o *countingObserver) of(typeName string) func() int {
	return func() int {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.n[typeName]
	}
}

var _ = Describe("The observer's object count", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	It("counts the keys delivered: none for an object the conversion drops, two for one it makes two of", func() {
		e = newEnv([]string{"a"})
		t := e.types[0]
		e.types[0] = t.WithConvert(func(obj runtime.Object) ([]resources.KVPair, error) {
			m, err := meta.Accessor(obj)
			if err != nil {
				return nil, err
			}
			switch m.GetName() {
			case "0":
				return nil, nil
			case "1":
				return []resources.KVPair{{Key: t.KeyFor("", "1"), Value: obj}, {Key: t.KeyFor("", "1-copy"), Value: obj}}, nil
			}
			return []resources.KVPair{{Key: t.KeyFor("", m.GetName()), Value: obj}}, nil
		})
		e.api["a"].Set("0", "1", "2")
		obs := &countingObserver{n: map[string]int{}}
		e.with(syncer.WithObserver(obs))
		e.start()
		Eventually(obs.of("a")).Should(Equal(3), "0 dropped, 1 twice, 2 once")
		Eventually(e.rec.updates).Should(HaveLen(3), "delivered after the loop told the observer")
		Expect(e.s.Statuses()[0].Objects).To(Equal(3), "TypeStatus counts the objects tracked")
		e.api["a"].Delete("1")
		Eventually(obs.of("a")).Should(Equal(1))
	})
})
