package wire

import (
	"context"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/internal/wire/meta"
)

// MetaRelist is a metadata-first relist of one type: a metadata-only list,
// read page by page (Next), whose objects the Source's Holder knows at their
// revision become Unchanged values (Unchanged), and the others are kept for
// Fetch to GET.
// Its caller decides whether to fetch them (how many changed, of how many)
// and what an error means.
type MetaRelist struct {
	src     *Source
	ms      MetaSource
	pages   *MetaPages
	changed []meta.Meta
	known   []meta.Meta // the page's objects the Holder knows, not yet taken
	knownID []string    // their ids
}

// MetaRelist starts a metadata-first relist of s with opts (whose Limit is the
// page size), or reports false when s cannot read metadata first: its raw path
// is off, or its lister/watcher reads no metadata-only list.
func (s *Source) MetaRelist(opts metav1.ListOptions) (*MetaRelist, bool) {
	ms, ok := RawOf(s.LW).(MetaSource)
	if !ok {
		return nil, false
	}
	return s.MetaRelistOf(ms, opts), true
}

// MetaRelistOf is MetaRelist through ms.
func (s *Source) MetaRelistOf(ms MetaSource, opts metav1.ListOptions) *MetaRelist {
	return &MetaRelist{src: s, ms: ms, pages: NewMetaPages(ms, opts)}
}

// CanRelistMetadataFirst reports whether a type read through lw can relist
// metadata first: it is read raw (RawSource).
func CanRelistMetadataFirst(lw any) bool {
	_, ok := lw.(RawSource)
	return ok
}

// Done reports whether the list's last page has been read.
func (l *MetaRelist) Done() bool { return l.pages.Done() }

// Pages is how many pages were read; ResourceVersion the revision of the last
// (the list's, once Done); Objects and Bytes the items and bytes read.
func (l *MetaRelist) Pages() int              { return l.pages.Pages }
func (l *MetaRelist) ResourceVersion() string { return l.pages.ResourceVersion }
func (l *MetaRelist) Objects() int            { return l.pages.Objects }
func (l *MetaRelist) Bytes() int              { return l.pages.Bytes }

// Changed is how many objects the list found that its Holder does not know
// at their revision: what Fetch GETs.
func (l *MetaRelist) Changed() int { return len(l.changed) }

// Next reads the next page under ctx (a deadline of the page's own): it keeps
// the objects the Holder knows at their revision for Unchanged, and the
// others for Fetch.
func (l *MetaRelist) Next(ctx context.Context) error {
	items, ids, err := l.pages.Next(ctx)
	if err != nil {
		return err
	}
	known, knownID := items[:0], ids[:0]
	for i, m := range items {
		if l.src.holder == nil || !l.src.holder.Known(ids[i], m.ResourceVersion, types.UID(m.UID)) {
			l.changed = append(l.changed, m)
			continue
		}
		known, knownID = append(known, m), append(knownID, ids[i])
	}
	l.known, l.knownID = known, knownID
	return nil
}

// Known is how many of the page's known objects Unchanged has yet to take.
func (l *MetaRelist) Known() int { return len(l.known) }

// Unchanged takes up to n of the page's known objects as Unchanged values: a
// caller that hands a page on in parts makes each part's values as it goes,
// so that a page of thousands never has them all at once.
func (l *MetaRelist) Unchanged(n int) []Value {
	part, ids := l.known[:min(n, len(l.known))], l.knownID
	l.known, l.knownID = l.known[len(part):], l.knownID[len(part):]
	vals := make([]Value, len(part))
	for i, m := range part {
		vals[i] = l.src.Unchanged(ids[i], m.ResourceVersion, types.UID(m.UID))
	}
	return vals
}

// Fetch GETs each changed object at rv or newer, up to n at a time, each
// under bound, and hands them on to send as Values (Source.Convert: decoded,
// or lazy) in the list's order, whatever order the answers come in, batch at
// a time, under a context that a failed GET cancels; send returns false
// when that context ended first. It returns the bytes of
// the objects read. The first GET that fails ends it: the others are
// cancelled, and every GET has ended when Fetch returns; its error names the
// object and wraps the server's answer. Only Fetch's own goroutine calls send.
// With n 1 the GETs run on the caller's goroutine, one after another.
func (l *MetaRelist) Fetch(ctx context.Context, rv string, n, batch int, bound Bound, send func(context.Context, []Value) bool) (int, error) {
	if n <= 1 {
		return l.fetchInline(ctx, rv, batch, bound, send)
	}
	g, gctx := errgroup.WithContext(ctx)
	fetched := make([]*Object, len(l.changed)) // each index written by the one GET that claimed it
	got := make(chan int)                      // the index of a GET answered; it publishes fetched[i]
	var bytes, claimed atomic.Int64
	for range min(n, len(l.changed)) {
		g.Go(func() error {
			for i := claimed.Add(1) - 1; i < int64(len(l.changed)); i = claimed.Add(1) - 1 {
				r, err := l.get(gctx, l.changed[i], rv, bound, &bytes)
				if err != nil {
					return err
				}
				fetched[i] = r
				select {
				case got <- int(i):
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
	}
	sent := l.handOn(gctx, got, fetched, batch, send)
	err := g.Wait()
	if err == nil && !sent {
		err = ctx.Err()
	}
	return int(bytes.Load()), err
}

// fetchInline is Fetch of one GET at a time, on the caller's goroutine: no
// goroutine to hand the answers over, and the same batches in the same order.
func (l *MetaRelist) fetchInline(ctx context.Context, rv string, batch int, bound Bound, send func(context.Context, []Value) bool) (int, error) {
	var bytes atomic.Int64
	vals := make([]Value, 0, min(len(l.changed), batch))
	for i, m := range l.changed {
		r, err := l.get(ctx, m, rv, bound, &bytes)
		if err != nil {
			return int(bytes.Load()), err
		}
		vals = append(vals, l.src.Convert(r))
		if len(vals) < batch && i < len(l.changed)-1 {
			continue
		}
		if !send(ctx, vals) {
			return int(bytes.Load()), ctx.Err()
		}
		vals = make([]Value, 0, min(len(l.changed)-i-1, batch))
	}
	return int(bytes.Load()), nil
}

// get is one GET under bound; it adds the bytes read to bytes.
func (l *MetaRelist) get(ctx context.Context, m meta.Meta, rv string, bound Bound, bytes *atomic.Int64) (*Object, error) {
	var r *Object
	err := bound(ctx, func(ctx context.Context) (err error) {
		var n int
		r, n, err = l.ms.GetRaw(ctx, m.Namespace, m.Name, rv)
		bytes.Add(int64(n))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", objectID(m.Namespace, m.Name), err)
	}
	return r, nil
}

// handOn converts the fetched objects in the list's order as their GETs answer
// (got) and sends them batch at a time; false: ctx ended first (a GET failed,
// or the caller stops), or send stopped, and the rest is not sent.
func (l *MetaRelist) handOn(ctx context.Context, got <-chan int, fetched []*Object, batch int, send func(context.Context, []Value) bool) bool {
	answered := make([]bool, len(fetched))
	vals := make([]Value, 0, min(len(fetched), batch))
	for next := 0; next < len(fetched); {
		select {
		case i := <-got:
			answered[i] = true
		case <-ctx.Done():
			return false
		}
		for ; next < len(fetched) && answered[next]; next++ {
			vals = append(vals, l.src.Convert(fetched[next]))
			fetched[next] = nil // the caller holds it now
			if len(vals) < batch && next < len(fetched)-1 {
				continue
			}
			if !send(ctx, vals) {
				return false
			}
			vals = make([]Value, 0, min(len(fetched)-next-1, batch))
		}
	}
	return true
}

// errChangedMeanwhile is an Unchanged value's Later: its holder no longer held
// it at the revision the metadata list carried.
func errChangedMeanwhile(typeName, id string) error {
	return fmt.Errorf("%s %s: changed in its holder during its metadata relist", typeName, id)
}
