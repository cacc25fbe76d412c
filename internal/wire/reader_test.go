package wire_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/internal/wire/meta"
)

// scripted is a raw source whose raw answers a spec sets, over a typed client
// that lists two config maps and watches an empty fake watch.
type scripted struct {
	cache.ListerWatcherWithContext
	on       bool
	page     wire.Page
	listErr  error
	watchErr error
	typed    int // requests through the typed client
}

func newScripted() *scripted {
	s := &scripted{on: true}
	s.ListerWatcherWithContext = &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			s.typed++
			return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "7", Continue: "c"},
				Items: []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "5"}},
					{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns", ResourceVersion: "6"}}}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			s.typed++
			return watch.NewFake(), nil
		},
	}
	return s
}

func (s *scripted) RawEnabled() bool { return s.on }
func (s *scripted) DisableRaw()      { s.on = false }
func (s *scripted) ListRaw(context.Context, metav1.ListOptions, bool) (wire.Page, error) {
	return s.page, s.listErr
}
func (s *scripted) WatchRaw(context.Context, metav1.ListOptions, bool) (wire.Stream, error) {
	return nil, s.watchErr
}
func (s *scripted) LazyDecoder(string, *atomic.Int64) func([]byte) (runtime.Object, error) {
	return nil
}

// failedStream is a raw stream that could not be read.
type failedStream struct{ err error }

func (f failedStream) Stop()                          {}
func (f failedStream) ResultChan() <-chan watch.Event { return nil }
func (f failedStream) Err() error                     { return f.err }

var _ = Describe("Reader", func() {
	var (
		src    *scripted
		offs   []error
		bounds int
		r      wire.Reader
	)
	bound := func(ctx context.Context, request func(context.Context) error) error {
		bounds++
		return request(ctx)
	}
	BeforeEach(func() {
		src, offs, bounds = newScripted(), nil, 0
		r = wire.Reader{Name: "configmaps", LW: src, Off: func(err error) { offs = append(offs, err) }}
	})

	It("hands on a raw page's objects undecoded, with its revision and continue token", func(ctx SpecContext) {
		raw := &wire.Object{Meta: meta.Meta{Name: "a", Namespace: "ns", ResourceVersion: "5", UID: "u"}}
		src.page = wire.Page{Objects: []*wire.Object{raw}, Meta: wire.ListMeta{ResourceVersion: "9", Continue: "next"}}
		items, err := r.Page(ctx, metav1.ListOptions{}, bound)
		Expect(err).NotTo(HaveOccurred())
		Expect(items.Objects).To(Equal([]runtime.Object{raw}))
		Expect(items.Meta).To(Equal(wire.ListMeta{ResourceVersion: "9", Continue: "next"}))
		Expect(items.Decoded).To(BeZero())
		Expect(bounds).To(Equal(1))
		Expect(src.typed).To(BeZero())
		Expect(offs).To(BeEmpty())
	})

	It("reads a page again through the typed client, each request bounded, when the raw one surprised", func(ctx SpecContext) {
		src.listErr = fmt.Errorf("%w: no envelope", wire.ErrUnexpected)
		items, err := r.Page(ctx, metav1.ListOptions{}, bound)
		Expect(err).NotTo(HaveOccurred())
		Expect(items.Objects).To(HaveLen(2), "copied out of the decoded list")
		Expect(items.Objects[1].(*corev1.ConfigMap).Name).To(Equal("b"))
		Expect(items.Meta).To(Equal(wire.ListMeta{ResourceVersion: "7", Continue: "c"}))
		Expect(items.Decoded).To(Equal(2))
		Expect(bounds).To(Equal(2))
		Expect(offs).To(ConsistOf(MatchError(wire.ErrUnexpected)))
		Expect(src.on).To(BeFalse(), "the raw path is off for good")
	})

	It("turns the raw path off for a page the server sent in another encoding, decoding that page", func(ctx SpecContext) {
		off := errors.New("the server ignored the Accept header")
		src.page = wire.Page{List: &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "3"},
			Items: []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}}}, Off: off}
		items, err := r.Page(ctx, metav1.ListOptions{}, bound)
		Expect(err).NotTo(HaveOccurred())
		Expect(items.Objects).To(HaveLen(1))
		Expect(items.Decoded).To(Equal(1))
		Expect(items.Meta.ResourceVersion).To(Equal("3"))
		Expect(offs).To(Equal([]error{off}))
		Expect(src.on).To(BeFalse())
		Expect(src.typed).To(BeZero(), "the page was read once")
	})

	It("returns any other error of a raw page as it is, the raw path on", func(ctx SpecContext) {
		src.listErr = apierrors.NewServiceUnavailable("down")
		_, err := r.Page(ctx, metav1.ListOptions{}, bound)
		Expect(apierrors.IsServiceUnavailable(err)).To(BeTrue())
		Expect(src.on).To(BeTrue())
		Expect(src.typed).To(BeZero())
	})

	It("fails a decoded page that is no list, naming the type", func() {
		src.on = false
		src.ListerWatcherWithContext = &cache.ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) { return &corev1.Pod{}, nil },
		}
		_, err := r.Page(context.Background(), metav1.ListOptions{}, bound)
		Expect(err).To(MatchError(ContainSubstring("configmaps: list response *v1.Pod")))
	})

	It("opens a watch through the typed client when the raw one is refused, and not for another error", func(ctx SpecContext) {
		src.watchErr = apierrors.NewGenericServerResponse(406, "GET", schema.GroupResource{}, "", "", 0, false)
		Expect(wire.Refused(src.watchErr)).To(BeTrue())
		wi, err := r.Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(wi).To(BeAssignableToTypeOf(&watch.FakeWatcher{}))
		Expect(offs).To(HaveLen(1))
		Expect(src.on).To(BeFalse())

		src.on, src.watchErr, offs = true, apierrors.NewServiceUnavailable("down"), nil
		_, err = r.Watch(ctx, metav1.ListOptions{})
		Expect(apierrors.IsServiceUnavailable(err)).To(BeTrue())
		Expect(src.on).To(BeTrue())
		Expect(offs).To(BeEmpty())
	})

	It("says why a stream ended, turning the raw path off after what it did not expect", func() {
		Expect(r.Ended(watch.NewFake())).To(Succeed(), "a watch that is not a raw stream ends cleanly")
		Expect(r.Ended(failedStream{apierrors.NewServiceUnavailable("down")})).To(MatchError(ContainSubstring("down")))
		Expect(src.on).To(BeTrue())
		Expect(offs).To(BeEmpty())
		surprise := fmt.Errorf("%w: a frame it cannot walk", wire.ErrUnexpected)
		Expect(r.Ended(failedStream{surprise})).To(MatchError(wire.ErrUnexpected))
		Expect(src.on).To(BeFalse())
		Expect(offs).To(Equal([]error{surprise}))
	})

	It("reads the identity of a raw or a decoded object, and fails one without metadata", func() {
		id, rev, uid, err := r.Identity(&wire.Object{Meta: meta.Meta{Name: "a", Namespace: "ns", ResourceVersion: "5", UID: "u"}})
		Expect(err).NotTo(HaveOccurred())
		Expect([]string{id, rev, string(uid)}).To(Equal([]string{"ns/a", "5", "u"}))
		id, rev, uid, err = r.Identity(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: "6", UID: "v"}})
		Expect(err).NotTo(HaveOccurred())
		Expect([]string{id, rev, string(uid)}).To(Equal([]string{"n", "6", "v"}))
		_, _, _, err = r.Identity(&metav1.Status{})
		Expect(err).To(MatchError(ContainSubstring("configmaps: object *v1.Status has no metadata")))
	})
})

var _ = Describe("Bookmark", func() {
	It("reads a raw bookmark's revision and end of initial events from its metadata", func() {
		rv, end, err := wire.Bookmark(&wire.Object{Meta: meta.Meta{ResourceVersion: "8", InitialEventsEnd: true}})
		Expect(err).NotTo(HaveOccurred())
		Expect(rv).To(Equal("8"))
		Expect(end).To(BeTrue())
	})

	It("reads a decoded bookmark's from its annotation", func() {
		b := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9",
			Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
		rv, end, err := wire.Bookmark(b)
		Expect(err).NotTo(HaveOccurred())
		Expect(rv).To(Equal("9"))
		Expect(end).To(BeTrue())
		b.Annotations = nil
		_, end, _ = wire.Bookmark(b)
		Expect(end).To(BeFalse())
		_, _, err = wire.Bookmark(&metav1.Status{})
		Expect(err).To(MatchError(ContainSubstring("bookmark *v1.Status")))
	})

	It("lets Release take any object, handing back only a raw one's frame", func() {
		Expect(func() {
			wire.Release(&corev1.Pod{})
			wire.Release(&wire.Object{})
		}).NotTo(Panic())
	})
})
