package syncer

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/internal/rawmeta"
)

// rawPage reads one list page as protobuf bytes (or, for a custom type, CBOR or
// JSON) and walks its items reading only their metadata; convertRaw then decodes only what the ledger does not hold.
// Decoded objects copy what they keep, so nothing retains the page.
func (w *watcher) rawPage(ctx context.Context, rs rawSource, opts metav1.ListOptions) ([]object, rawmeta.ListMeta, error) {
	g := w.guard(ctx, w.cfg.progressTimeout)
	body, err := rs.ListRaw(g.ctx, opts)
	g.stop()
	if err = g.explain(err); err != nil {
		return nil, rawmeta.ListMeta{}, err
	}
	if readsDocuments(rs) {
		return w.documentPage(body, rs)
	}
	if !rawmeta.IsProtobuf(body) { // a server that ignored the Accept header
		list, err := rs.DecodeResponse(body)
		if err != nil {
			return nil, rawmeta.ListMeta{}, surprise(err)
		}
		w.disableRaw(rs, fmt.Errorf("%s: list page: %w", w.t.Name, rawmeta.ErrNotProtobuf))
		return w.convertList(list)
	}
	_, list, err := rawmeta.Unwrap(body)
	if err != nil {
		return nil, rawmeta.ListMeta{}, surprise(fmt.Errorf("%s: list page: %w", w.t.Name, err))
	}
	var objs []object
	lm, err := rawmeta.Items(list, func(item []byte) error {
		m, err := rawmeta.ObjectMeta(item)
		if err != nil {
			return err
		}
		objs = append(objs, w.convert(&rawObject{meta: m, msg: item, src: rs}))
		return nil
	})
	if err != nil {
		return nil, rawmeta.ListMeta{}, surprise(fmt.Errorf("%s: list page: %w", w.t.Name, err))
	}
	return objs, lm, nil
}

// documentPage reads a custom type's list page, CBOR or JSON, metadata first; or,
// for a fresh watcher, in full at once.
func (w *watcher) documentPage(body []byte, rs rawSource) ([]object, rawmeta.ListMeta, error) {
	if w.decodesAll() {
		list, err := rs.DecodeResponse(body)
		if err != nil {
			return nil, rawmeta.ListMeta{}, surprise(fmt.Errorf("%s: list page: %w", w.t.Name, err))
		}
		return w.convertList(list)
	}
	var objs []object
	lm, err := rawmeta.DocItems(body, func(item []byte) error {
		m, err := rawmeta.DocMeta(item)
		if err != nil {
			return err
		}
		objs = append(objs, w.convert(&rawObject{meta: m, msg: item, doc: true, src: rs}))
		return nil
	})
	if err != nil {
		return nil, rawmeta.ListMeta{}, surprise(fmt.Errorf("%s: list page: %w", w.t.Name, err))
	}
	return objs, lm, nil
}

// decodesAll reports whether the watcher decodes documents in full without
// reading their metadata first: it is fresh, and its type needs bodies, decoded
// (lazy values need each document's bytes, not its decoded object).
func (w *watcher) decodesAll() bool { return w.fresh && !w.t.KeysOnly && !w.lazy() }
