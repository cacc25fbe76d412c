package syncertest

import (
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// change is one write to a Resource: the object at rev (for a deletion, its last
// value with the deletion's revision) and the value it replaced (nil if none).
type change struct {
	rev  uint64
	key  string
	typ  watch.EventType
	obj  runtime.Object
	prev runtime.Object
}

// history is the changes of a Resource after its compacted revision, oldest
// first.
type history struct{ changes []change }

func (h *history) add(c change) {
	if h != nil {
		h.changes = append(h.changes, c)
	}
}

// Compact forgets the revisions before rev, as etcd's compaction does: a watch
// or an exact list (resourceVersionMatch=Exact) from an older revision, and a
// continue token of one, answer 410 Expired. Watches already open go on. With
// KeepingHistory the changes up to rev leave the history.
func (r *Resource) Compact(rev uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.compacted = max(r.compacted, rev)
	if r.history == nil {
		return
	}
	keep := r.history.changes[:0]
	for _, c := range r.history.changes {
		if c.rev > rev {
			keep = append(keep, c)
		}
	}
	r.history.changes = keep
}

// expired is the apiserver's answer to a request from a compacted revision.
func (r *Resource) expired(rev uint64) *apierrors.StatusError {
	return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rev, r.compacted))
}

// tooLarge is the apiserver's answer to a revision it has not reached; unlike
// the apiserver, the fake does not wait the 3s it waits for one first.
func (r *Resource) tooLarge(rev uint64) *apierrors.StatusError {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", rev, r.revs.Current()), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

// stateAt returns the objects as they were at rev, undoing the changes after it.
func (r *Resource) stateAt(rev uint64) map[string]runtime.Object {
	out := make(map[string]runtime.Object, len(r.objects))
	for k, o := range r.objects {
		out[k] = o
	}
	if r.history == nil {
		return out
	}
	for i := len(r.history.changes) - 1; i >= 0 && r.history.changes[i].rev > rev; i-- {
		c := r.history.changes[i]
		if c.prev == nil {
			delete(out, c.key)
		} else {
			out[c.key] = c.prev
		}
	}
	return out
}

// since returns the changes after rev.
func (r *Resource) since(rev uint64) []change {
	if r.history == nil {
		return nil
	}
	cs := r.history.changes
	i := len(cs)
	for i > 0 && cs[i-1].rev > rev {
		i--
	}
	return cs[i:]
}

// withRevision returns a copy of obj at rev.
func withRevision(obj runtime.Object, rev uint64) runtime.Object {
	obj = obj.DeepCopyObject()
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(strconv.FormatUint(rev, 10))
	}
	return obj
}

// bookmarkAt is a bookmark's object: only a revision, and the initial-events-end
// annotation if end.
func bookmarkAt(rev uint64, end bool) *metav1.PartialObjectMetadata {
	bm := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{ResourceVersion: strconv.FormatUint(rev, 10)}}
	if end {
		bm.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return bm
}

// parseRevision reads a resourceVersion; "" and "0" are 0.
func parseRevision(rv string) (uint64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", rv))
	}
	return n, nil
}
