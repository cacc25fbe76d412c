package wire_test

import (
	"context"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

var _ = Describe("ListerWatcher", func() {
	It("reads every built-in type raw through the typed clientset, and every other type through the dynamic client", func() {
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"})
		Expect(err).NotTo(HaveOccurred())
		clients := wire.Clients{Typed: cs, Dynamic: fake.NewSimpleDynamicClient(scheme.Scheme)}
		builtins := 0
		for _, t := range append(resources.All(), resources.ConfigMaps, resources.RoleBindings) {
			lw := wire.ListerWatcher(t, clients)
			if _, ok := t.BuiltinKind(); !ok {
				Expect(lw).NotTo(BeAssignableToTypeOf(&wire.RawListerWatcher{}), t.Name)
				continue
			}
			builtins++
			Expect(lw).To(BeAssignableToTypeOf(&wire.RawListerWatcher{}), t.Name)
			Expect(lw.(*wire.RawListerWatcher).RawEnabled()).To(BeTrue(), t.Name)
		}
		Expect(builtins).To(Equal(len(resources.Builtin()) + 2))

		custom := resources.Custom(resources.Pods.GVR, "Pod", true)
		Expect(wire.ListerWatcher(custom, clients)).NotTo(BeAssignableToTypeOf(&wire.RawListerWatcher{}),
			"a custom type is read by the dynamic client, whatever its resource")
		faked := wire.ListerWatcher(resources.Pods, wire.Clients{Typed: kubefake.NewClientset()})
		Expect(faked.(*wire.RawListerWatcher).RawEnabled()).To(BeFalse(), "a fake clientset has no REST client")
	})
})

var _ = Describe("a raw watch", func() {
	watchOf := func(body []byte) wire.Stream {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf;stream=watch")
			_, _ = w.Write(body)
		}))
		DeferCleanup(srv.Close)
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
		Expect(err).NotTo(HaveOccurred())
		lw := wire.ListerWatcher(resources.ConfigMaps, wire.Clients{Typed: cs}).(*wire.RawListerWatcher)
		s, err := lw.WatchRaw(context.Background(), metav1.ListOptions{}, false)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Stop)
		return s
	}
	drain := func(s wire.Stream) []watch.Event {
		var evs []watch.Event
		Eventually(func() bool {
			for {
				select {
				case ev, ok := <-s.ResultChan():
					if !ok {
						return true
					}
					evs = append(evs, ev)
				default:
					return false
				}
			}
		}).Should(BeTrue())
		return evs
	}

	It("ends with no error when the server ends it", func() {
		s := watchOf(nil)
		Expect(drain(s)).To(BeEmpty())
		Expect(s.Err()).NotTo(HaveOccurred())
	})

	It("says after its result channel closes why it could not be read, in no event", func() {
		// One frame: a WatchEvent whose object has no protobuf envelope.
		ev, err := (&metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: []byte("{}")}}).Marshal()
		Expect(err).NotTo(HaveOccurred())
		s := watchOf(append([]byte{0, 0, 0, byte(len(ev))}, ev...))
		Expect(drain(s)).To(BeEmpty())
		Expect(s.Err()).To(MatchError(wire.ErrUnexpected))
		Expect(wire.StreamErr(s)).To(MatchError(wire.ErrUnexpected), "as StreamErr reads it")
	})
})
