package syncer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/sim"
	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/internal/wire/meta"
	"github.com/kubesync/kubesync/resources"
)

// simLW is a type's lister/watcher in the simulation, raw (so that the type
// may relist metadata first): the apiserver's side of every request the real
// watcher makes, answered from the cluster model. A request parks the
// generation that makes it (simRun.cur) until the step the driver answers it
// in; the answer is read from the model then. Requests go to an apiserver
// picked at random per request, as behind a load balancer; a stream stays on
// its apiserver.
//
//   - a paged list's first page, a metadata list's, a relist stream and a
//     fence read consistently: the cache waits for etcd, or answers 504 or
//     429 (consistent); a continue page reads at its token's revision (or, a
//     misbehaving proxy, at etcd's);
//   - a type's first stream reads the cache as it is (resourceVersion 0);
//   - a GET reads at the list's revision or newer, without the selector,
//     after a round trip;
//   - a watch from a revision older than the server can serve gets 410 after
//     its opening, from one its cache has not reached waits or gets 504.
//
// Sizes are not modelled: pages and GETs weigh nothing, so the watcher's
// pays never turns a type to full lists.
type simLW struct {
	r   *simRun
	idx int
	t   resources.Type
}

var (
	_ cache.ListerWatcherWithContext = (*simLW)(nil)
	_ wire.RawSource                 = (*simLW)(nil)
	_ wire.MetaSource                = (*simLW)(nil)
)

func (s *simLW) RawEnabled() bool { return true }
func (s *simLW) DisableRaw()      {}
func (s *simLW) LazyDecoder(_ string, decodes *atomic.Int64) func([]byte) (runtime.Object, error) {
	return func(data []byte) (runtime.Object, error) {
		p := &corev1.Pod{}
		if err := p.Unmarshal(data); err != nil {
			return nil, err
		}
		decodes.Add(1)
		return p, nil
	}
}

func (s *simLW) res() string       { return s.r.res[s.idx] }
func (s *simLW) sel() sim.Selector { return s.r.sels[s.idx] }

type simRequest uint8

const (
	reqList simRequest = iota
	reqStream
	reqWatch
	reqGet
)

// request parks the generation making a request until the driver answers
// it: after d (a round trip), or at once; it returns what ended the wait
// otherwise (the request's deadline, the loop's stop). Once it reaches the
// server, a request of a type whose apiserver is stalled, or a slow one, is
// never answered: its deadline cuts it.
func (s *simLW) request(ctx context.Context, d time.Duration, slow bool) error {
	g := s.r.cur
	if g == nil || g.idx != s.idx {
		panic("sim: a request of " + s.t.Name + " outside its watcher generation's coroutine")
	}
	g.begun = true
	if !g.wait(simPark{kind: pkRequest, at: s.r.clk.Now().Add(d), ctx: ctx}) {
		return context.Canceled
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	hang := s.r.clk.Now().Before(s.r.fx.stallUntil[s.idx]) && s.r.fx.unreachable[s.idx] == 0
	switch {
	case hang:
		s.r.fire(fStalledServer)
	case slow && s.r.fx.slowRead[s.idx] > 0:
		s.r.fire(fSlowRead)
		hang = true
	}
	if hang {
		g.wait(simPark{kind: pkRequest, ctx: ctx})
		return ctx.Err()
	}
	return nil
}

// refusal is the error the apiserver answers any request of the type with
// now: its requests do not reach the apiserver, the CRD is not served (404), the type is refused (403 or 401), GETs are
// forbidden, or lists and streams fail (500).
func (s *simLW) refusal(req simRequest) error {
	r, gr, i := s.r, s.t.GVR.GroupResource(), s.idx
	switch {
	case r.fx.unreachable[i] > 0:
		r.fire(fUnreachable)
		if req == reqStream && r.fx.unreachable[i]%2 == 0 {
			return errSimLost
		}
		return errSimRefused
	case !r.cluster.Resource(s.res()).Served:
		r.fire(fCRDRemoved)
		return apierrors.NewNotFound(gr, "")
	case r.fx.forbidden[i] > 0 && r.fx.refusal[i] == 401:
		r.fire(fForbidden)
		return apierrors.NewUnauthorized("Unauthorized")
	case r.fx.forbidden[i] > 0:
		r.fire(fForbidden)
		return apierrors.NewForbidden(gr, "", errors.New("RBAC: access denied"))
	case req == reqGet && r.fx.getForbidden[i] > 0:
		r.fire(fGetForbidden)
		return apierrors.NewForbidden(gr, "", errors.New("RBAC: get not allowed"))
	case (req == reqList || req == reqStream) && r.fx.internal[i] > 0:
		r.fire(fInternal)
		return apierrors.NewInternalError(errors.New("etcd hiccup"))
	}
	return nil
}

// refused is request then refusal: the error of a request once answered.
func (s *simLW) refused(ctx context.Context, req simRequest, d time.Duration, slow bool) error {
	if err := s.request(ctx, d, slow); err != nil {
		return err
	}
	return s.refusal(req)
}

func (s *simLW) server() (int, *sim.Server) {
	i := s.r.rnd.IntN(simServers)
	return i, s.r.cluster.Servers[i]
}

// consistent is the revision of a consistent read on server i: etcd's, once
// its cache has reached it. A server waits for its cache, or (impatient, or
// now and then) answers 504, too large a resource version, or 429.
func (s *simLW) consistent(i int, srv *sim.Server) (int64, error) {
	r := s.r
	if !srv.Fresh(s.res()) {
		if r.fx.impatient[i] > 0 || r.rnd.IntN(6) == 0 {
			r.fire(fImpatient)
			if r.rnd.IntN(2) == 0 {
				return 0, apierrors.NewTooManyRequests("the server is busy", 1)
			}
			return 0, tooLarge(srv.Cached(s.res()), r.cluster.Rev())
		}
		srv.CatchUp(s.res(), r.cluster.Rev())
	}
	return r.cluster.Rev(), nil
}

// tooLarge is kube-apiserver's answer to a read its cache has not reached.
func tooLarge(cached, asked int64) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", asked, cached), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version"}}
	return err
}

// fence: the request reads no object, only the server's revision
// (watcher.fence, fenceByList).
func (s *simLW) fence(opts metav1.ListOptions) bool { return opts.FieldSelector == fenceSelector(s.t) }

// listPage answers one page of a list of the type (metadata only or in
// full): the first consistent, the others at their continue token's
// revision, after the last id it names.
func (s *simLW) listPage(ctx context.Context, opts metav1.ListOptions, metadata bool) ([]sim.Object, wire.ListMeta, error) {
	fence := s.fence(opts)
	if err := s.refused(ctx, reqList, 0, !fence); err != nil {
		return nil, wire.ListMeta{}, err
	}
	r := s.r
	i, srv := s.server()
	var rv int64
	after := ""
	if opts.Continue == "" {
		var err error
		if rv, err = s.consistent(i, srv); err != nil {
			return nil, wire.ListMeta{}, err
		}
	} else {
		at, id, _ := strings.Cut(opts.Continue, "/")
		rv, _ = strconv.ParseInt(at, 10, 64)
		after = id
		switch {
		case rv < r.cluster.Compacted():
			r.fire(fCompact)
			return nil, wire.ListMeta{}, apierrors.NewResourceExpired("The provided continue parameter is too old")
		case r.fx.proxyNewer[s.idx]:
			r.fx.proxyNewer[s.idx] = false
			r.fire(fProxyNewer)
			if metadata {
				s.r.life.proxiedMeta[s.idx] = true
			} else {
				s.r.life.proxied[s.idx] = true
			}
			r.tracef("%s: a proxy serves a continue page at %d, not %d", s.t.Name, r.cluster.Rev(), rv)
			rv = r.cluster.Rev() // a proxy that served this page from another snapshot
		}
	}
	if fence {
		return nil, wire.ListMeta{ResourceVersion: strconv.FormatInt(rv, 10)}, nil
	}
	all := r.cluster.Resource(s.res()).At(rv, s.sel())
	var page []sim.Object
	for _, o := range all {
		if o.ID() > after && len(page) < int(opts.Limit) {
			page = append(page, o)
		}
	}
	lm := wire.ListMeta{ResourceVersion: strconv.FormatInt(rv, 10)}
	if len(page) > 0 && page[len(page)-1].ID() < all[len(all)-1].ID() {
		lm.Continue = lm.ResourceVersion + "/" + page[len(page)-1].ID()
	}
	return page, lm, nil
}

// podList is a page as the typed client decodes it.
func podList(page []sim.Object, lm wire.ListMeta) *corev1.PodList {
	l := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: lm.ResourceVersion, Continue: lm.Continue}}
	for _, o := range page {
		l.Items = append(l.Items, *simObject(o))
	}
	return l
}

// ListWithContext is a list page through the typed client (fenceByList's).
func (s *simLW) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	page, lm, err := s.listPage(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	return podList(page, lm), nil
}

// ListRaw is a list page on the raw path, decoded whole (wire.Page.List).
func (s *simLW) ListRaw(ctx context.Context, opts metav1.ListOptions, _ bool) (wire.Page, error) {
	if opts.Continue == "" && !s.fence(opts) {
		s.r.checkUnansweredStream(s.idx)
	}
	page, lm, err := s.listPage(ctx, opts, false)
	if err != nil {
		return wire.Page{}, err
	}
	if !s.r.lazy {
		return wire.Page{List: podList(page, lm)}, nil
	}
	p := wire.Page{Meta: lm}
	for _, o := range page {
		p.Objects = append(p.Objects, s.r.wireObject(o).(*wire.Object))
	}
	return p, nil
}

// ListMetadata is a page of a metadata list.
func (s *simLW) ListMetadata(ctx context.Context, opts metav1.ListOptions) (wire.MetaPage, error) {
	page, lm, err := s.listPage(ctx, opts, true)
	if err != nil {
		return wire.MetaPage{}, err
	}
	p := wire.MetaPage{Meta: lm}
	identified := s.r.pages.IntN(2) == 0
	for _, o := range page {
		if !identified {
			p.Items = append(p.Items, meta.Meta{Namespace: o.Namespace, Name: o.Name, UID: o.UID,
				ResourceVersion: strconv.FormatInt(o.Rev, 10)})
			continue
		}
		m, id := simIdentify(o)
		p.Items, p.IDs = append(p.Items, m), append(p.IDs, id)
	}
	return p, nil
}

// simIdentify reads o's metadata as the protobuf reader reads a page's item
// (meta.Identify): its namespace, name, UID and revision, and its id, share one
// allocation, which whatever keeps one of them must not outlive wrongly.
func simIdentify(o sim.Object) (meta.Meta, string) {
	item, err := (&metav1.PartialObjectMetadata{ObjectMeta: simObject(o).ObjectMeta}).Marshal()
	if err != nil {
		panic(err)
	}
	m, id, err := meta.Identify(item)
	if err != nil {
		panic(err)
	}
	return m, id
}

// GetRaw is one GET of a metadata-first relist: at the list's revision rv or
// newer, without the type's selectors, after a round trip.
func (s *simLW) GetRaw(ctx context.Context, namespace, name, rv string) (*wire.Object, int, error) {
	r := s.r
	if err := s.refused(ctx, reqGet, time.Duration(r.rnd.IntN(800))*time.Millisecond, true); err != nil {
		return nil, 0, err
	}
	listRV, _ := strconv.ParseInt(rv, 10, 64)
	i, srv := s.server()
	if srv.Behind(s.res(), listRV) {
		if r.fx.impatient[i] > 0 || r.rnd.IntN(4) == 0 {
			r.fire(fImpatient)
			return nil, 0, tooLarge(srv.Cached(s.res()), listRV)
		}
		srv.CatchUp(s.res(), listRV)
	}
	id := namespace + "/" + name
	o, ok := r.cluster.Resource(s.res()).Get(id, srv.Cached(s.res()))
	if !ok {
		r.fire(fGetGone)
		return nil, 0, apierrors.NewNotFound(s.t.GVR.GroupResource(), name)
	}
	switch was, _ := r.cluster.Resource(s.res()).Get(id, listRV); {
	case was.UID != o.UID:
		r.fire(fGetNewUID)
	case o.Rev > was.Rev:
		r.fire(fGetNewer)
	}
	if r.lazy {
		return r.wireObject(o).(*wire.Object), 0, nil
	}
	obj, err := wire.Decoded(simObject(o))
	return obj, 0, err
}

// wireObject is o as the raw path carries it: the typed object a client
// decodes, or, in a run of lazy values, its protobuf message undecoded, as a
// real server's page or event carries it (wire.Encoded).
func (r *simRun) wireObject(o sim.Object) runtime.Object {
	if !r.lazy {
		return simObject(o)
	}
	obj, err := wire.Encoded(simObject(o))
	if err != nil {
		panic(err)
	}
	return obj
}

// simObject is the model's object as the typed object a client decodes.
func simObject(o sim.Object) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name, UID: types.UID(o.UID),
		ResourceVersion: strconv.FormatInt(o.Rev, 10), Generation: int64(o.Gen)},
		Status: corev1.PodStatus{Phase: corev1.PodPhase(o.Phase)}}
	if o.App != "" {
		p.Labels = map[string]string{"app": o.App}
	}
	return p
}

// simBookmark is a bookmark's object at rv; end: the initial-events-end one.
func simBookmark(rv int64, end bool) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: strconv.FormatInt(rv, 10)}}
	if end {
		p.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return p
}

// WatchRaw is session's watch on the raw path: a streaming list, or a watch
// from a revision.
func (s *simLW) WatchRaw(ctx context.Context, opts metav1.ListOptions, _ bool) (wire.Stream, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		return s.openStream(ctx, opts)
	}
	return s.openWatch(ctx, opts)
}

// WatchWithContext is a watch through the typed client: the fence's stream.
func (s *simLW) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if !s.fence(opts) {
		return s.WatchRaw(ctx, opts, false)
	}
	return s.openFence(ctx, opts)
}
