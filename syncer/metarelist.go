package syncer

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesync/kubesync/internal/wire"
)

// DefaultMetadataRelist is the share of a type's objects up to which a relist
// fetches the changed ones by GETs after a metadata-only list (see
// WithMetadataRelist). Measured against kube-apiserver 1.37 with 5,000 pods
// (docs/fleet.md), on the wire: the metadata list is 0.39 of the streamed full
// relist's bytes and 0.83 of a paged full list's, and a GET costs what 22 pods
// of a gzipped list do; so the metadata-first relist sends less than a
// streamed one up to about 6% changed, and than a paged one up to 0.7%. At 1%
// it sends half the streamed relist's bytes, and 1.05 of a paged one's.
const DefaultMetadataRelist = 0.01

// DefaultMetadataRelistGets is how many GETs a metadata-first relist has in
// flight at once (see MetadataRelist.Gets).
const DefaultMetadataRelistGets = 8

// metaPages is about how many pages a metadata-first relist reads a type in.
// A kube-apiserver (1.37) serves each page of a list from its watch cache by
// taking every object from the page's first key to the type's end, so pages of
// a fixed size cost it the square of the type's objects: 100,000 ConfigMaps in
// pages of 500 take 10 million objects. Pages that grow with the type take
// about metaPages/2 times its objects; a page's metadata is small, about
// 1/metaPages of the type's, up to maxMetaPage items.
const metaPages = 8

// maxMetaPage bounds a metadata page's items, and so what the client holds of
// one: some megabytes of metadata (names, UIDs, labels and managed fields).
const maxMetaPage = 10_000

// metaPageSize is the page size of a metadata-first relist of a type of
// objects known objects whose lists take pages of pageSize: at least that,
// and enough to read it in about metaPages pages, up to maxMetaPage.
func metaPageSize(pageSize int64, objects int) int64 {
	grown := (int64(objects) + metaPages - 1) / metaPages
	return max(pageSize, min(grown, maxMetaPage))
}

// errFullRelist: the metadata-first relist gives way to a full one, which runs
// at once in the same watcher (too many changed, an object gone since the
// metadata list, an answer the raw path did not expect).
var errFullRelist = errors.New("relist in full")

// metaFirst reports whether a relist planned now reads metadata first: one of a
// type that has completed a list, for any reason but Syncer.Relist's, which
// reads everything again, as a check of the whole state. A type with a label or
// field selector lists in full: a GET carries no selector, so it returns an
// object that stopped matching meanwhile, newer than the watch's Deleted for
// that transition, which the revision rule would then skip. A type that was
// empty reads metadata first too: if it stays empty (as most of an agent's
// custom types do) its relist is one empty metadata list, not a stream; if it
// filled, every object is new, past the share, and the full list follows.
func (ts *typeState) metaFirst() bool {
	selected := ts.t.LabelSelector != "" || ts.t.FieldSelector != ""
	return wire.CanRelistMetadataFirst(ts.lw) && ts.listed && ts.pending() != ListForced && ts.cfg.metaRelist > 0 &&
		!ts.t.KeysOnly && !selected && !ts.fullOnly
}

// metaRelist is the metadata-first relist: its reader lists metadata and hands
// on the objects whose revision the ledger holds (the loop marks them, nothing
// is decoded); past the share of WithMetadataRelist it gives way, else the
// reader fetches the others at the list's revision or newer (fetch). The watch
// then starts from the list's revision: an event it replays that is older than
// what a GET returned is skipped by the loop (typeState.stale). It returns
// errFullRelist when a full list must follow.
func (w *watcher) metaRelist(ctx context.Context, page int64) (string, error) {
	opts := w.options()
	opts.Limit = page
	list, ok := w.reader().MetaRelist(opts)
	if !ok {
		return "", errFullRelist
	}
	if err := w.metaList(ctx, list); err != nil {
		return "", fullOnSurprise(err)
	}
	rv := list.ResourceVersion()
	if float64(list.Changed()) > w.cfg.metaRelist*float64(list.Objects()) {
		return "", fmt.Errorf("%w: %d of %d objects changed", errFullRelist, list.Changed(), list.Objects())
	}
	getBytes, err := w.fetch(ctx, list, rv)
	if errors.Is(err, errGetRefused) {
		w.send(ctx, event{kind: evFullOnly}) // decided by the first answer only, not by a GET cancelled after it
	}
	if err != nil {
		return "", fullOnSurprise(err)
	}
	if !w.pays(list.Bytes(), getBytes, list.Changed(), list.Objects()) {
		w.send(ctx, event{kind: evFullOnly})
	}
	if !w.send(ctx, event{kind: evInitDone, rv: rv}) {
		return "", ctx.Err()
	}
	return rv, nil
}

// fullOnSurprise turns what the raw path did not expect, or a server that
// refused the metadata encoding, into errFullRelist; the full list then decides
// whether the raw path stays on.
func fullOnSurprise(err error) error {
	if errors.Is(err, wire.ErrUnexpected) || wire.Refused(err) {
		return fmt.Errorf("%w: %w", errFullRelist, err)
	}
	return err
}

// metaList reads the metadata list page by page (wire.MetaRelist.Next). It
// sends the list's start and, per page, the objects the ledger holds at their
// revision, up to metaChunk at a time; the list keeps the others for fetch.
func (w *watcher) metaList(ctx context.Context, list *wire.MetaRelist) error {
	var snapshot string // the first page's revision, which every page must share, as in pagedList
	for !list.Done() {
		err := w.bound(ctx, list.Next)
		if err != nil {
			return err
		}
		if list.Pages() == 1 {
			snapshot = list.ResourceVersion()
		} else if list.ResourceVersion() != snapshot {
			return fmt.Errorf("%w: a page at revision %q after one at %q", errPagesDiffer, list.ResourceVersion(), snapshot)
		}
		if list.Pages() == 1 && !w.send(ctx, event{kind: evInitStart}) {
			return ctx.Err()
		}
		for first := true; first || list.Known() > 0; first = false {
			if !w.send(ctx, event{kind: evInitApply, objs: list.Unchanged(metaChunk)}) {
				return ctx.Err()
			}
		}
	}
	return nil
}

// metaChunk is how many known objects of a metadata page go to the loop in
// one event: a page grows with the type (metaPageSize), its values need not.
const metaChunk = 500

// fetchBatch is how many fetched objects go to the loop in one event.
const fetchBatch = 100

// errGetRefused: the server refused a GET (403: a role of list and watch only),
// so the type relists in full from now on.
var errGetRefused = fmt.Errorf("%w: GET refused", errFullRelist)

// fetch has the list GET each changed object at rv or newer, up to
// MetadataRelist.Gets at a time, each under the progress deadline, and
// hands them on as a list's objects (decoded, or lazy) in the list's order
// (wire.MetaRelist.Fetch); it returns the bytes of the objects. The first
// answer that ends the relist decides, and cancels the other GETs: an object
// gone since the list makes a full list follow, which orders its deletion
// with the watch that comes after.
func (w *watcher) fetch(ctx context.Context, list *wire.MetaRelist, rv string) (int, error) {
	n, err := list.Fetch(ctx, rv, w.cfg.metaGets, fetchBatch, w.bound, func(ctx context.Context, vals []wire.Value) bool {
		return w.send(ctx, event{kind: evInitApply, objs: vals})
	})
	switch {
	case apierrors.IsNotFound(err):
		return n, fmt.Errorf("%w: %w: it is gone", errFullRelist, err)
	case apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err):
		return n, fmt.Errorf("%w: %w", errGetRefused, err)
	}
	return n, err
}

// minSaving is the share of a full list's bytes that the metadata list must
// save for a type to keep relisting metadata first.
const minSaving = 0.2

// pays decides, from what this relist measured, whether the type's next ones
// read metadata first: a full list would have cost about total objects of the
// average size the GETs read, and a type whose metadata list costs more than
// 1-minSaving of that (objects that are mostly metadata: namespaces, service
// accounts, small config maps) lists in full from now on (the loop hears so by
// evFullOnly).
func (w *watcher) pays(metaBytes, getBytes, gets, total int) bool {
	if gets == 0 || getBytes == 0 {
		return true // nothing measured of a whole object
	}
	full := float64(getBytes) / float64(gets) * float64(total)
	if float64(metaBytes) <= (1-minSaving)*full {
		return true
	}
	w.cfg.log.WithField("type", w.t.Name).WithField("metadataBytes", metaBytes).WithField("fullBytes", int(full)).
		Info("A metadata list costs this type about what a full one does; relisting it in full from now on")
	return false
}

// stale reports whether a watch event for o is older than what the ledger holds
// of it: a GET of a metadata-first relist returned a newer revision than the
// list's, and the watch from the list's revision replays the events before it.
// Skipping them keeps every key's revision from going back.
func (ts *typeState) stale(o object) bool { return ts.ledger.Newer(o.ID, o.Rev) }

// relistMetaFirst runs the metadata-first relist, then the watch from its
// revision after watchDelay, and reports whether it did; false: the watcher
// lists in full now.
func (w *watcher) relistMetaFirst(ctx context.Context, page int64, watchDelay time.Duration) bool {
	rv, err := w.metaRelist(ctx, page)
	switch {
	case errors.Is(err, errFullRelist):
		// Info: a full list costs the apiserver what the metadata list was to save.
		w.cfg.log.WithField("type", w.t.Name).WithError(err).Info("Metadata-first relist gives way to a full list")
		return false
	case err != nil:
		w.fail(ctx, event{err: err})
		return true
	}
	w.listed = true
	if w.sleep(ctx, watchDelay) {
		w.watch(ctx, rv)
	}
	return true
}
