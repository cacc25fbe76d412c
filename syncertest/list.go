package syncertest

import (
	"context"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ListWithContext serves a paged list of the objects that o selects, sorted by
// key. The continue token is a revision, an offset and the first page's
// revision: without KeepingHistory a token of an older revision than the
// resource's last change is refused with 410 Gone, as an apiserver refuses a
// compacted one; with it, a token is served at its revision until Compact passes
// it. Every page of a list carries the first page's revision, as an apiserver's
// pages of one snapshot do, though revisions shared with other resources
// (SharingRevisions) move on meanwhile.
func (r *Resource) ListWithContext(_ context.Context, o metav1.ListOptions) (runtime.Object, error) {
	items, lm, err := r.list("", o)
	if err != nil {
		return nil, err
	}
	list := &metav1.PartialObjectMetadataList{ListMeta: lm}
	for _, it := range items {
		list.Items = append(list.Items, *partial(it))
	}
	return list, nil
}

// list serves one page of the objects in namespace ("": all) that o selects.
func (r *Resource) list(namespace string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("list", namespace, o)
	if err := r.failing(r.listErr); err != nil {
		return nil, metav1.ListMeta{}, err
	}
	if o.Continue != "" {
		if err := failure(r.continueErr); err != nil {
			return nil, metav1.ListMeta{}, err
		}
	}
	m, err := newMatcher(namespace, o)
	if err != nil {
		return nil, metav1.ListMeta{}, err
	}
	at, start, err := r.listAt(o)
	if err != nil {
		return nil, metav1.ListMeta{}, err
	}
	state := r.stateAt(at)
	keys := make([]string, 0, len(state))
	for k, obj := range state {
		if m.matches(obj) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	start = min(start, len(keys))
	end := len(keys)
	if o.Limit > 0 && start+int(o.Limit) < end {
		end = start + int(o.Limit)
	}
	lm := metav1.ListMeta{ResourceVersion: strconv.FormatUint(at, 10)}
	items := make([]runtime.Object, 0, end-start)
	for _, k := range keys[start:end] {
		items = append(items, state[k].DeepCopyObject())
	}
	if end < len(keys) {
		pin := at
		if r.history == nil {
			pin = r.rev
		}
		lm.Continue = strconv.FormatUint(pin, 10) + "/" + strconv.Itoa(end) + "/" + lm.ResourceVersion
	}
	return items, lm, nil
}

// listAt returns the revision a list is served at and the offset of its page.
func (r *Resource) listAt(o metav1.ListOptions) (at uint64, offset int, err error) {
	current := r.revs.Current()
	if o.Continue != "" {
		return r.continueAt(o.Continue)
	}
	if r.history == nil {
		return current, 0, nil
	}
	rev, err := parseRevision(o.ResourceVersion)
	if err != nil || rev == 0 {
		return current, 0, err
	}
	switch {
	case rev > current:
		return 0, 0, r.tooLarge(rev)
	case o.ResourceVersionMatch == metav1.ResourceVersionMatchExact && rev < r.compacted:
		return 0, 0, r.expired(rev)
	case o.ResourceVersionMatch == metav1.ResourceVersionMatchExact:
		return rev, 0, nil
	}
	return current, 0, nil
}

// failure is fn's error, if fn is set.
func failure(fn func() error) error {
	if fn == nil {
		return nil
	}
	return fn()
}

// continueAt returns the revision a continued page is served at (its first
// page's) and its offset, or 410 Gone for a token the resource has moved past.
func (r *Resource) continueAt(token string) (at uint64, offset int, err error) {
	parts := strings.Split(token, "/")
	if len(parts) != 3 {
		return 0, 0, apierrors.NewBadRequest("bad continue token")
	}
	pin, err1 := strconv.ParseUint(parts[0], 10, 64)
	offset, err2 := strconv.Atoi(parts[1])
	at, err3 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, apierrors.NewBadRequest("bad continue token")
	}
	if r.history == nil && pin != r.rev || pin < r.compacted {
		return 0, 0, apierrors.NewResourceExpired("the continue token is too old")
	}
	return at, offset, nil
}
