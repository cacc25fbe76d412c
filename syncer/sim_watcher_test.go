package syncer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/internal/ledger"
	"github.com/kubesync/kubesync/internal/sim"
	"github.com/kubesync/kubesync/internal/wire"
)

// simWatcher is one watcher generation, modelled: what watcher.run would send
// the loop for its plan, read from the cluster model. Each stage mirrors a
// function of the real watcher:
//
//   - begin: watcher.run's choice of path (metadata first, stream, fence,
//     paged list, watch), after the plan's delay (watcher.sleep);
//   - metaPage, getOne, metaDone: watcher.metaRelist (metaList, fetch, and
//     wire.MetaRelist's Next, Fetch, get and handOn; evFullOnly on a refused
//     GET; pays is not modelled: sizes are not), relistMetaFirst, and
//     fullOnSurprise's fall to a full list in the same watcher;
//   - page: watcher.pagedList (first page consistent, continue pages at its
//     revision, the last page's revision taken);
//   - fence: watcher.fenceThenWatch, fence and fenceByList;
//   - openStream, openWatch and simStream: watcher.streamThenWatch, watch,
//     session, reader.consume and reader.handle, guard (the progress deadline,
//     paused while the loop pushes back) and watcher.healthy.
//
// Requests go to an apiserver picked at random per request, as behind a load
// balancer; a stream stays on its apiserver.
type simWatcher struct {
	r     *simRun
	l     *simLife
	ctx   context.Context
	ts    *typeState
	w     *watcher
	p     plan
	idx   int
	res   string
	sel   sim.Selector
	stage simStage
	at    time.Time // nothing happens before: a sleep, or a request that takes time
	out   []event   // sent to the loop in order, one per step
	// full: the metadata-first relist gave way to a full list (fullOnSurprise).
	full bool
	// A list under way: its revision (and its first page's), the last id read,
	// the ids listed.
	listRV  int64
	firstRV int64
	after   string
	pages   int
	listed  int
	changed []sim.Object
	fetched []object
	// inFlight: a GET is on its way to the server.
	inFlight bool
	st       *simStream
	watchRV  string
}

type simStage uint8

const (
	stStart simStage = iota
	stMetaList
	stFetch
	stPage
	stFence
	stWatch // the watch is to open (after watchDelay, or after the fence)
	stStream
	stDone
)

func newSimWatcher(r *simRun, l *simLife, ctx context.Context, ts *typeState, w *watcher, p plan) *simWatcher {
	return &simWatcher{r: r, l: l, ctx: ctx, ts: ts, w: w, p: p, idx: w.idx, res: r.res[w.idx], sel: r.sels[w.idx],
		at: r.clk.Now().Add(p.delay)}
}

// ready reports whether the watcher can take a step now: its sleep is over,
// and it has an event the loop takes (no back-pressure) or a request to make.
func (sw *simWatcher) ready(now time.Time) bool {
	switch {
	case sw.ctx.Err() != nil || now.Before(sw.at):
		return false
	case len(sw.out) > 0:
		return !sw.r.backPressure()
	case sw.stage == stDone:
		return false
	case sw.stage == stStream:
		return sw.st.ready(now)
	}
	return true
}

// wake is when the watcher will next have something to do without a change
// of the cluster.
func (sw *simWatcher) wake() time.Time {
	if sw.stage == stStream && len(sw.out) == 0 && !sw.at.After(sw.r.clk.Now()) {
		return sw.st.wake()
	}
	return sw.at
}

// advance takes one step: one event to the loop, or one request.
func (sw *simWatcher) advance() {
	if len(sw.out) > 0 {
		ev := sw.out[0]
		sw.out = sw.out[1:]
		if sw.stage == stStream {
			sw.st.progress = sw.r.clk.Now() // the guard resumes in full once the loop took it (reader.consume)
		}
		sw.r.handle(sw, ev)
		if sw.ctx.Err() != nil {
			sw.out, sw.stage = nil, stDone
		}
		return
	}
	switch sw.stage {
	case stStart:
		sw.begin()
	case stMetaList:
		sw.metaPage()
	case stFetch:
		sw.getOne()
	case stPage:
		sw.page()
	case stFence:
		sw.fence()
	case stWatch:
		sw.openWatch(sw.watchRV)
	case stStream:
		sw.st.advance()
	}
}

func (sw *simWatcher) send(evs ...event) { sw.out = append(sw.out, evs...) }

// fail is watcher.fail: the watcher's last event.
func (sw *simWatcher) fail(ev event) {
	ev.kind = evError
	sw.send(ev)
	sw.stage = stDone
}

// begin is watcher.run's choice of path.
func (sw *simWatcher) begin() {
	p := sw.p
	switch {
	case p.list && p.metaFirst && !sw.full:
		sw.stage = stMetaList
		sw.metaPage()
	case p.list && p.strategy == WatchList:
		sw.openStream()
	case p.fence:
		sw.stage = stFence
		sw.fence()
	case p.list:
		sw.stage, sw.after, sw.pages = stPage, "", 0
		sw.page()
	default:
		sw.openWatch(p.rv)
	}
}

type simRequest uint8

const (
	reqList simRequest = iota
	reqStream
	reqWatch
	reqGet
)

// refusal is the error the apiserver answers any request of the type with
// now: its requests do not reach the apiserver, the CRD is not served (404), the type is refused (403 or 401), GETs are
// forbidden, or lists and streams fail (500).
func (sw *simWatcher) refusal(req simRequest) error {
	r, gr := sw.r, sw.ts.t.GVR.GroupResource()
	switch {
	case r.fx.unreachable[sw.idx] > 0:
		r.fire(fUnreachable)
		return errSimRefused
	case r.clk.Now().Before(r.fx.stallUntil[sw.idx]):
		return sw.stalledRequest(req)
	case !r.cluster.Resource(sw.res).Served:
		r.fire(fCRDRemoved)
		return apierrors.NewNotFound(gr, "")
	case r.fx.forbidden[sw.idx] > 0 && r.fx.refusal[sw.idx] == 401:
		r.fire(fForbidden)
		return apierrors.NewUnauthorized("Unauthorized")
	case r.fx.forbidden[sw.idx] > 0:
		r.fire(fForbidden)
		return apierrors.NewForbidden(gr, "", errors.New("RBAC: access denied"))
	case req == reqGet && r.fx.getForbidden[sw.idx] > 0:
		r.fire(fGetForbidden)
		return apierrors.NewForbidden(gr, "", errors.New("RBAC: get not allowed"))
	case (req == reqList || req == reqStream) && r.fx.internal[sw.idx] > 0:
		r.fire(fInternal)
		return apierrors.NewInternalError(errors.New("etcd hiccup"))
	}
	return nil
}

func (sw *simWatcher) server() (int, *sim.Server) {
	i := sw.r.rnd.IntN(simServers)
	return i, sw.r.cluster.Servers[i]
}

// consistent is the revision of a consistent read on server i: etcd's, once
// its cache has reached it. A server waits for its cache, or (impatient, or
// now and then) answers 504, too large a resource version, or 429.
func (sw *simWatcher) consistent(i int, srv *sim.Server) (int64, error) {
	r := sw.r
	if !srv.Fresh(sw.res) {
		if r.fx.impatient[i] > 0 || r.rnd.IntN(6) == 0 {
			r.fire(fImpatient)
			if r.rnd.IntN(2) == 0 {
				return 0, apierrors.NewTooManyRequests("the server is busy", 1)
			}
			return 0, tooLarge(srv.Cached(sw.res), r.cluster.Rev())
		}
		srv.CatchUp(sw.res, r.cluster.Rev())
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

// slow is a list page or GET that gets no answer within the progress deadline
// (watcher.bound's guard cuts it, guard.explain): the error comes once the
// deadline passed.
func (sw *simWatcher) slow() (error, bool) {
	if sw.r.fx.slowRead[sw.idx] == 0 {
		return nil, false
	}
	sw.r.fire(fSlowRead)
	d := sw.w.cfg.progressTimeout
	sw.at = sw.r.clk.Now().Add(d)
	return fmt.Errorf("%w (%s): %w", errNoProgress, d, context.Canceled), true
}

// listPage reads one page of a list of the type (metadata only or in full) on
// a random server: the first consistent, the others at the list's revision.
func (sw *simWatcher) listPage() ([]sim.Object, bool, error) {
	i, srv := sw.server()
	if err := sw.refusal(reqList); err != nil {
		return nil, false, err
	}
	r := sw.r
	if sw.pages == 0 {
		rv, err := sw.consistent(i, srv)
		if err != nil {
			return nil, false, err
		}
		sw.listRV = rv
	} else if sw.listRV < r.cluster.Compacted() {
		r.fire(fCompact)
		return nil, false, apierrors.NewResourceExpired("The provided continue parameter is too old")
	} else if r.fx.proxyNewer[sw.idx] {
		r.fx.proxyNewer[sw.idx] = false
		r.fire(fProxyNewer)
		if sw.p.metaFirst && !sw.full {
			sw.l.proxiedMeta[sw.idx] = true
		} else {
			sw.l.proxied[sw.idx] = true
		}
		r.tracef("%s: a proxy serves a continue page at %d, not %d", sw.ts.t.Name, r.cluster.Rev(), sw.listRV)
		sw.listRV = r.cluster.Rev() // a proxy that served this page from another snapshot
	}
	all := r.cluster.Resource(sw.res).At(sw.listRV, sw.sel)
	var page []sim.Object
	for _, o := range all {
		if o.ID() > sw.after && len(page) < int(sw.w.cfg.pageSize) {
			page = append(page, o)
		}
	}
	more := len(page) > 0 && page[len(page)-1].ID() < all[len(all)-1].ID()
	if len(page) > 0 {
		sw.after = page[len(page)-1].ID()
	}
	sw.pages++
	return page, more, nil
}

// page is one page of watcher.pagedList, which fails a page of another
// revision than the first's (errPagesDiffer).
func (sw *simWatcher) page() {
	first := sw.pages == 0
	if err, ok := sw.slow(); ok {
		sw.fail(event{err: err})
		return
	}
	items, more, err := sw.listPage()
	if err != nil {
		sw.fail(event{err: err})
		return
	}
	if first {
		sw.firstRV = sw.listRV
	} else if sw.listRV != sw.firstRV {
		sw.fail(event{err: fmt.Errorf("%w: a page at revision %q after one at %q", errPagesDiffer,
			strconv.FormatInt(sw.listRV, 10), strconv.FormatInt(sw.firstRV, 10))})
		return
	}
	if first {
		sw.send(event{kind: evInitStart})
	}
	objs := make([]object, len(items))
	for i, o := range items {
		objs[i] = sw.convert(o)
	}
	sw.send(event{kind: evInitApply, objs: objs})
	if more {
		return
	}
	rv := strconv.FormatInt(sw.listRV, 10)
	sw.send(event{kind: evInitDone, rv: rv})
	sw.w.listed = true
	sw.toWatch(rv, sw.p.watchDelay)
}

func (sw *simWatcher) toWatch(rv string, delay time.Duration) {
	sw.stage, sw.watchRV = stWatch, rv
	sw.at = sw.r.clk.Now().Add(delay)
}

// metaPage is one page of watcher.metaList, which fails a page of another
// revision than the first's (errPagesDiffer).
func (sw *simWatcher) metaPage() {
	first := sw.pages == 0
	if err, ok := sw.slow(); ok {
		sw.metaFailed(err)
		return
	}
	items, more, err := sw.listPage()
	if err != nil {
		sw.metaFailed(err)
		return
	}
	if first {
		sw.firstRV = sw.listRV
	} else if sw.listRV != sw.firstRV {
		sw.metaFailed(fmt.Errorf("%w: a page at revision %q after one at %q", errPagesDiffer,
			strconv.FormatInt(sw.listRV, 10), strconv.FormatInt(sw.firstRV, 10)))
		return
	}
	if first {
		sw.send(event{kind: evInitStart})
	}
	sw.listed += len(items)
	objs := make([]object, 0, len(items))
	for _, m := range items {
		o := object{ID: ledger.ObjectID(m.Namespace, m.Name), Rev: strconv.FormatInt(m.Rev, 10), UID: types.UID(m.UID)}
		if !sw.w.ledger.Known(o.ID, o.Rev, o.UID) {
			sw.changed = append(sw.changed, m)
			continue
		}
		objs = append(objs, sw.w.reader().Unchanged(o.ID, o.Rev, o.UID))
	}
	sw.send(event{kind: evInitApply, objs: objs})
	if more {
		return
	}
	if float64(len(sw.changed)) > sw.w.cfg.metaRelist*float64(sw.listed) {
		sw.fullList()
		return
	}
	sw.stage = stFetch
	if len(sw.changed) == 0 {
		sw.metaDone()
	}
}

// metaFailed is metaRelist's error: fullOnSurprise, then relistMetaFirst.
func (sw *simWatcher) metaFailed(err error) {
	if errors.Is(err, wire.ErrUnexpected) || wire.Refused(err) || errors.Is(err, errFullRelist) {
		sw.fullList()
		return
	}
	sw.fail(event{err: err})
}

// fullList: relistMetaFirst returned false; watcher.run goes on with a full
// list in the same generation.
func (sw *simWatcher) fullList() {
	sw.full, sw.stage, sw.pages, sw.after = true, stStart, 0, ""
	sw.begin()
}

// getOne is one GET of watcher.fetch (get): at the list's revision or newer,
// without the type's selectors.
func (sw *simWatcher) getOne() {
	r := sw.r
	m := sw.changed[len(sw.fetched)]
	if sw.inFlight = !sw.inFlight; sw.inFlight {
		// The GET's round trip: the server reads the object when it arrives.
		sw.at = r.clk.Now().Add(time.Duration(r.rnd.IntN(800)) * time.Millisecond)
		return
	}
	if err, ok := sw.slow(); ok {
		sw.metaFailed(err)
		return
	}
	if err := sw.refusal(reqGet); err != nil {
		switch {
		case apierrors.IsNotFound(err):
			sw.metaFailed(fmt.Errorf("%w: %s is gone", errFullRelist, m.ID()))
		case apierrors.IsForbidden(err):
			sw.send(event{kind: evFullOnly}) // metaRelist: decided by the first answer
			sw.metaFailed(fmt.Errorf("%w: %w", errGetRefused, err))
		default:
			sw.metaFailed(err)
		}
		return
	}
	i, srv := sw.server()
	if srv.Behind(sw.res, sw.listRV) {
		if r.fx.impatient[i] > 0 || r.rnd.IntN(4) == 0 {
			r.fire(fImpatient)
			sw.metaFailed(tooLarge(srv.Cached(sw.res), sw.listRV))
			return
		}
		srv.CatchUp(sw.res, sw.listRV)
	}
	o, ok := r.cluster.Resource(sw.res).Get(m.ID(), srv.Cached(sw.res))
	switch {
	case !ok:
		r.fire(fGetGone)
		sw.metaFailed(fmt.Errorf("%w: %s is gone", errFullRelist, m.ID()))
		return
	case o.UID != m.UID:
		r.fire(fGetNewUID)
	case o.Rev > m.Rev:
		r.fire(fGetNewer)
	}
	sw.fetched = append(sw.fetched, sw.convert(o))
	if len(sw.fetched) == len(sw.changed) {
		sw.metaDone()
	}
}

// metaDone is the end of metaRelist (handOn's batches, evInitDone) and of
// relistMetaFirst (the watch from the list's revision).
func (sw *simWatcher) metaDone() {
	for i := 0; i < len(sw.fetched); i += fetchBatch {
		sw.send(event{kind: evInitApply, objs: sw.fetched[i:min(len(sw.fetched), i+fetchBatch)]})
	}
	rv := strconv.FormatInt(sw.listRV, 10)
	sw.send(event{kind: evInitDone, rv: rv})
	sw.w.listed = true
	sw.toWatch(rv, sw.p.watchDelay)
}

// fence is watcher.fenceThenWatch: the server's revision by a consistent
// stream of no object (or a list of one), then the watch from the plan's
// revision.
func (sw *simWatcher) fence() {
	rv, err := sw.fenceRead()
	if err != nil {
		sw.send(event{kind: evFenceFailed, rv: sw.p.rv, err: err})
		sw.stage = stDone
		return
	}
	sw.send(event{kind: evFenced, rv: strconv.FormatInt(rv, 10)})
	sw.toWatch(sw.p.rv, 0)
}

func (sw *simWatcher) fenceRead() (int64, error) {
	r := sw.r
	i, srv := sw.server()
	if sw.p.fenceByList {
		if err := sw.refusal(reqList); err != nil {
			return 0, err
		}
		return sw.consistent(i, srv)
	}
	if err := sw.streamRefusal(i); err != nil {
		return 0, err
	}
	if r.fx.silent[sw.idx] {
		r.fx.silent[sw.idx] = false
		r.fire(fSilent)
		d := sw.w.cfg.initialEventsTimeout
		sw.at = r.clk.Now().Add(d)
		return 0, fmt.Errorf("%w (%s): %w", errNoProgress, d, context.Canceled)
	}
	if r.fx.cutInitial[sw.idx] >= 0 {
		r.fx.cutInitial[sw.idx] = -1
		r.fire(fCutInitial)
		return 0, errStreamEnded
	}
	rv, err := sw.consistent(i, srv)
	return rv, refusedStream(err)
}

// streamRefusal is the error a streaming list (or a fence's stream) gets on
// server i when it opens, as session and fence make it: refusedStream marks
// a server that will not stream lists.
func (sw *simWatcher) streamRefusal(i int) error {
	r := sw.r
	err := sw.refusal(reqStream)
	if err == nil && r.fx.noWatchList[i] > 0 {
		r.fire(fNoWatchList)
		err = apierrors.NewBadRequest("sendInitialEvents is not supported")
	}
	if err == nil {
		return nil
	}
	return refusedStream(err)
}

// convert is what the watcher makes of an object it read (watcher.convert):
// the model's object as the typed object a client decodes.
func (sw *simWatcher) convert(o sim.Object) object { return sw.w.convert(simObject(o)) }

// identify is a Deleted event's object (watcher.identify).
func (sw *simWatcher) identify(o sim.Object) object { return sw.w.identify(simObject(o)) }

func simObject(o sim.Object) runtime.Object {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name, UID: types.UID(o.UID),
		ResourceVersion: strconv.FormatInt(o.Rev, 10), Generation: int64(o.Gen)},
		Status: corev1.PodStatus{Phase: corev1.PodPhase(o.Phase)}}
	if o.App != "" {
		p.Labels = map[string]string{"app": o.App}
	}
	return p
}

// simLW stands for a raw lister/watcher (so that a type may relist metadata
// first); the simulator makes no request through it.
type simLW struct{}

var (
	_ cache.ListerWatcherWithContext = simLW{}
	_ wire.RawSource                 = simLW{}
)

func (simLW) ListWithContext(context.Context, metav1.ListOptions) (runtime.Object, error) {
	panic("sim: no request goes through the lister/watcher")
}
func (simLW) WatchWithContext(context.Context, metav1.ListOptions) (watch.Interface, error) {
	panic("sim: no request goes through the lister/watcher")
}
func (simLW) RawEnabled() bool { return true }
func (simLW) DisableRaw()      {}
func (simLW) ListRaw(context.Context, metav1.ListOptions, bool) (wire.Page, error) {
	panic("sim: no request goes through the lister/watcher")
}
func (simLW) WatchRaw(context.Context, metav1.ListOptions, bool) (wire.Stream, error) {
	panic("sim: no request goes through the lister/watcher")
}
func (simLW) LazyDecoder(string, *atomic.Int64) func([]byte) (runtime.Object, error) { return nil }
