package wire

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// Reader reads one type's list pages and watches through its lister/watcher:
// raw, each object's metadata first, while its raw source is on (RawOf), else
// through its typed or dynamic client. What the raw path does not expect turns
// it off for good (DisableRaw), once Off is told why: a list page is then read
// again through the fallback client, a watch that is refused is opened through
// it, and a stream that surprised ends (Ended says why).
type Reader struct {
	// Name is the type's, for errors.
	Name string
	LW   cache.ListerWatcherWithContext
	// Whole asks the raw path to decode every body at once (see RawSource).
	Whole bool
	// Off is told why the raw path goes off, before it does; nil: nobody is.
	Off func(error)
}

// Items is one list page as objects, each a *Object (read raw, body not
// decoded) or a decoded object of its own, and the page's revision and
// continue token.
type Items struct {
	Objects []runtime.Object
	Meta    ListMeta
	// Decoded counts the objects decoded to read the page (a page read through
	// the fallback client, or decoded whole).
	Decoded int
}

// Bound runs one request under a deadline of the caller's: request gets a
// context that the deadline cancels, and Bound returns its error, explained.
type Bound func(ctx context.Context, request func(context.Context) error) error

// Page reads one list page with opts, each request under bound (the raw one and,
// if it surprised, the fallback's).
func (r Reader) Page(ctx context.Context, opts metav1.ListOptions, bound Bound) (Items, error) {
	if rs := RawOf(r.LW); rs != nil {
		var page Page
		err := bound(ctx, func(ctx context.Context) (err error) {
			page, err = rs.ListRaw(ctx, opts, r.Whole)
			return err
		})
		switch {
		case err == nil:
			return r.items(rs, page)
		case !errors.Is(err, ErrUnexpected) && !Refused(err):
			return Items{}, err
		}
		r.off(rs, err)
	}
	list, err := r.List(ctx, opts, bound)
	if err != nil {
		return Items{}, err
	}
	return r.decoded(list)
}

// List reads one page through the fallback client, under bound.
func (r Reader) List(ctx context.Context, opts metav1.ListOptions, bound Bound) (runtime.Object, error) {
	var list runtime.Object
	err := bound(ctx, func(ctx context.Context) (err error) {
		list, err = r.LW.ListWithContext(ctx, opts)
		return err
	})
	return list, err
}

// items is a raw page's objects; a page the raw path read in full, or that
// turned it off, is decoded as the fallback client's would be.
func (r Reader) items(rs RawSource, page Page) (Items, error) {
	if page.Off != nil {
		r.off(rs, page.Off)
	}
	if page.List != nil {
		return r.decoded(page.List)
	}
	objs := make([]runtime.Object, len(page.Objects))
	for i, o := range page.Objects {
		objs[i] = o
	}
	return Items{Objects: objs, Meta: page.Meta}, nil
}

// decoded is the items of a decoded list page, copied out one by one so that a
// kept value does not pin its page.
func (r Reader) decoded(list runtime.Object) (Items, error) {
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return Items{}, fmt.Errorf("%s: list response %T: %w", r.Name, list, err)
	}
	items, err := meta.ExtractListWithAlloc(list)
	if err != nil {
		return Items{}, fmt.Errorf("%s: list response %T: %w", r.Name, list, err)
	}
	return Items{Objects: items, Meta: ListMeta{ResourceVersion: lm.GetResourceVersion(), Continue: lm.GetContinue()},
		Decoded: len(items)}, nil
}

// Watch opens a watch with opts: a raw Stream while the raw source is on, else
// the fallback client's; a raw watch refused in the encoding asked (Refused)
// turns the raw path off and opens the fallback's.
func (r Reader) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if rs := RawOf(r.LW); rs != nil {
		s, err := rs.WatchRaw(ctx, opts, r.Whole)
		if err == nil {
			return s, nil
		}
		if !Refused(err) {
			return nil, err
		}
		r.off(rs, err)
	}
	return r.LW.WatchWithContext(ctx, opts)
}

// Ended is why a watch whose result channel closed ended (StreamErr), after
// which the raw path is off if what the stream read was unexpected.
func (r Reader) Ended(wi watch.Interface) error {
	err := StreamErr(wi)
	if rs := RawOf(r.LW); rs != nil && errors.Is(err, ErrUnexpected) {
		r.off(rs, err)
	}
	return err
}

func (r Reader) off(rs RawSource, why error) {
	if r.Off != nil {
		r.Off(why)
	}
	rs.DisableRaw()
}

// Identity is what the syncer's ledger knows obj by (Object.Identity), raw or
// decoded.
func (r Reader) Identity(obj runtime.Object) (id, rev string, uid types.UID, err error) {
	if o, ok := obj.(*Object); ok {
		id, rev, uid = o.Identity()
		return id, rev, uid, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", "", "", fmt.Errorf("%s: object %T has no metadata: %w", r.Name, obj, err)
	}
	return objectID(m.GetNamespace(), m.GetName()), m.GetResourceVersion(), m.GetUID(), nil
}

// Bookmark reads a watch bookmark's revision and whether it ends a streamed
// list's initial events. A raw bookmark is never decoded: its metadata says
// both.
func Bookmark(obj runtime.Object) (rv string, initialEventsEnd bool, err error) {
	if o, ok := obj.(*Object); ok {
		return o.Meta.ResourceVersion, o.Meta.InitialEventsEnd, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", false, fmt.Errorf("bookmark %T: %w", obj, err)
	}
	return m.GetResourceVersion(), m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true", nil
}

// Release hands a raw object's frame back to its stream (Object.Release) once
// the caller has read all it needs of it; any other object is left as it is.
func Release(obj runtime.Object) {
	if o, ok := obj.(*Object); ok {
		o.Release()
	}
}
