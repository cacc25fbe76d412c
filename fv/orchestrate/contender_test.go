package orchestrate

import (
	"context"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// told is what a contender told.
type told struct {
	objects atomic.Int64
	inSync  atomic.Bool
	mu      sync.Mutex
	names   []string // of the objects told, in order
}

func (t *told) tell() Tell {
	return Tell{
		Objects: func(n int) { t.objects.Add(int64(n)) },
		Wants:   func(kind string) bool { return kind == resources.ConfigMaps.Kind },
		Object: func(obj any) {
			m, err := meta.Accessor(obj)
			if err != nil {
				panic(err)
			}
			t.mu.Lock()
			defer t.mu.Unlock()
			t.names = append(t.names, m.GetName())
		},
		Status: t.inSync.Store,
	}
}

func (t *told) told() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.names)
}

func TestContendersTellWhatTheyHold(t *testing.T) {
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	for name, newContender := range map[string]func(*rest.Config, []resources.Type, Tell) (Contender, error){
		"kubesync": func(cfg *rest.Config, types []resources.Type, tell Tell) (Contender, error) {
			return NewKubesync(cfg, types, nil, tell, syncer.WithLogger(quiet), syncer.WithLazyValues())
		},
		"informer": func(cfg *rest.Config, types []resources.Type, tell Tell) (Contender, error) {
			return NewInformer(cfg, types, true, tell)
		},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			types := []resources.Type{resources.ConfigMaps, resources.Services}
			api := syncertest.NewAPI(types...)
			for _, n := range []string{"a", "b"} {
				api.Put(resources.ConfigMaps, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n}})
			}
			api.Put(resources.Services, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s"}})
			srv := syncertest.NewServer(api)
			defer srv.Close()
			var got told
			c, err := newContender(srv.Config(), types, got.tell())
			g.Expect(err).NotTo(HaveOccurred())
			c.Start(context.Background())
			defer c.Stop()
			g.Eventually(c.Synced(), 30*time.Second).Should(BeClosed())
			g.Expect(got.objects.Load()).To(BeEquivalentTo(3), "objects held once synced")
			g.Expect(got.inSync.Load()).To(BeTrue())
			g.Expect(got.told()).To(ConsistOf("a", "b"), "the config maps told, the service not wanted")

			g.Eventually(api.Resource(resources.ConfigMaps).OpenWatches, 30*time.Second).Should(Equal(1))
			api.Put(resources.ConfigMaps, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", Labels: map[string]string{"x": "1"}}})
			api.Delete(resources.ConfigMaps, "ns", "b")
			g.Eventually(got.objects.Load, 30*time.Second).Should(BeEquivalentTo(2), "a delete counted")
			g.Eventually(got.told, 30*time.Second).Should(HaveLen(3), "an update told")
		})
	}
}
