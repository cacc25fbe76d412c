package syncer_test

import (
	"context"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// deletedUIDs returns the UID of every Deleted since mark, by key.
func (r *recorder) deletedUIDs(mark int) map[string]types.UID {
	out := map[string]types.UID{}
	for _, b := range r.batchesSince(mark) {
		for _, u := range b {
			if u.UpdateType == syncer.KVDeleted {
				out[u.Key.String()] = u.UID
			}
		}
	}
	return out
}

var _ = Describe("A Deleted carries the UID of the object deleted", func() {
	var e *env
	AfterEach(func() { e.shutdown() })

	// As Calico's watchersyncer specs check: an object deleted while the watch was
	// down is swept by the relist after a 410, and its Deleted has its UID.
	It("from the sweep of a relist after a 410", func() {
		e = newEnv([]string{"a"})
		mark := e.syncedThenChanged() // object 2 is gone, with no watch event
		e.api["a"].FailWatches(apierrors.NewResourceExpired("too old resource version"))
		Eventually(func() map[string]types.UID { return e.rec.deletedUIDs(mark) }).
			Should(Equal(map[string]types.UID{"A/2": "/2"}))
	})

	It("from a relist, a missing type and a watch, for UIDs that are UUIDs", func() {
		pods := resources.Pods
		api := syncertest.NewAPI(pods)
		pod := func(name, uid string) *corev1.Pod {
			return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(uid)}}
		}
		api.Put(pods, pod("p1", "0a1b2c3d-4e5f-6789-abcd-ef0123456781"))
		api.Put(pods, pod("p2", "0a1b2c3d-4e5f-6789-abcd-ef0123456782"))
		api.Put(pods, pod("p3", "0a1b2c3d-4e5f-6789-abcd-ef0123456783"))
		e = &env{types: []resources.Type{pods}, rec: newRecorder()}
		e.api = map[string]*syncertest.Resource{pods.Name: api.Resource(pods)}
		e.with(api.Option()) // whole objects, with their UIDs
		e.start()
		e.waitInSync()
		e.waitWatching(pods.Name)
		r := api.Resource(pods)

		mark := e.rec.mark()
		r.FailLists(internal)
		r.FailWatches(apierrors.NewResourceExpired("too old resource version"))
		Eventually(r.OpenWatches).Should(BeZero())
		api.Delete(pods, "ns", "p1") // no watch is open: only the relist can tell
		r.FailLists(nil)
		Eventually(func() map[string]types.UID { return e.rec.deletedUIDs(mark) }).
			Should(Equal(map[string]types.UID{"Pod/ns/p1": "0a1b2c3d-4e5f-6789-abcd-ef0123456781"}))

		e.waitWatching(pods.Name)
		mark = e.rec.mark()
		api.Delete(pods, "ns", "p2")
		Eventually(func() map[string]types.UID { return e.rec.deletedUIDs(mark) }).
			Should(Equal(map[string]types.UID{"Pod/ns/p2": "0a1b2c3d-4e5f-6789-abcd-ef0123456782"}))

		mark = e.rec.mark()
		api.Refuse(pods, syncertest.NotFound(pods))
		r.EndWatches()
		Eventually(func() map[string]types.UID { return e.rec.deletedUIDs(mark) }).
			Should(Equal(map[string]types.UID{"Pod/ns/p3": "0a1b2c3d-4e5f-6789-abcd-ef0123456783"}))
	})

	It("after a warm start, for an object the checkpoint held", func() {
		path := filepath.Join(GinkgoT().TempDir(), "agent.checkpoint")
		ckpt := func() syncer.Option { return fileCheckpoint(path, checkpoint.WithInterval(time.Millisecond)) }
		first := newEnv([]string{"a"}, ckpt())
		first.api["a"].Set("a1", "a2")
		first.start()
		waitLong(first.rec.last, syncer.InSync)
		first.shutdown()

		first.api["a"].Set("a1") // a2 goes while the agent is down
		e = (&env{types: first.types, api: first.api, rec: newRecorder()}).with(ckpt())
		e.start()
		Eventually(e.rec.updates).Should(ConsistOf("New A/a1", "New A/a2"))
		mark := e.rec.mark()
		Expect(e.s.Relist(context.Background(), "a")).To(Succeed())
		Eventually(func() map[string]types.UID { return e.rec.deletedUIDs(mark) }).
			Should(Equal(map[string]types.UID{"A/a2": "/a2"}))
	})
})
