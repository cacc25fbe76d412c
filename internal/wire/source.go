package wire

import (
	"context"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// RawSource is the raw path of a type's lister/watcher (RawListerWatcher,
// DocumentListerWatcher): list pages and watches whose objects arrive as
// *Object, metadata read and body not decoded, and a switch to the typed or
// dynamic client it falls back to. whole asks for every body decoded at once,
// for a caller that has nothing to compare with.
type RawSource interface {
	RawEnabled() bool
	DisableRaw()
	ListRaw(ctx context.Context, opts metav1.ListOptions, whole bool) (Page, error)
	WatchRaw(ctx context.Context, opts metav1.ListOptions, whole bool) (Stream, error)
	LazyDecoder(typeName string, decodes *atomic.Int64) func([]byte) (runtime.Object, error)
}

// MetaSource is what a metadata-first relist reads through: a metadata-only
// list page by page (MetaPages) and the objects that changed one by one.
type MetaSource interface {
	ListMetadata(ctx context.Context, opts metav1.ListOptions) (MetaPage, error)
	GetRaw(ctx context.Context, namespace, name, rv string) (*Object, int, error)
}

// Both raw lister/watchers serve the raw path and the metadata-first relist:
// were one not to, its type would silently read through its fallback client
// only.
var (
	_ RawSource  = (*RawListerWatcher)(nil)
	_ RawSource  = (*DocumentListerWatcher)(nil)
	_ MetaSource = (*RawListerWatcher)(nil)
	_ MetaSource = (*DocumentListerWatcher)(nil)
)

// RawOf returns lw's raw source if it has one and its raw path is on, else nil.
func RawOf(lw any) RawSource {
	if rs, ok := lw.(RawSource); ok && rs.RawEnabled() {
		return rs
	}
	return nil
}

// StreamErr is why a watch whose result channel closed ended: nil for a clean
// end or a watch that is not a raw Stream, else why the stream could not be
// read (Stream.Err; ErrUnexpected: switch to the fallback client).
func StreamErr(wi watch.Interface) error {
	if s, ok := wi.(Stream); ok {
		return s.Err()
	}
	return nil
}
