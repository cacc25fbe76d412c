package wire

import (
	"context"
	"errors"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/wire/meta"
)

// MetadataAccept asks for a collection's metadata only: a PartialObjectMetadataList,
// as protobuf, else as JSON. kube-apiserver serves both for every kind, built-in and
// custom, from its watch cache, as client-go's metadata client asks for it.
const MetadataAccept = runtime.ContentTypeProtobuf + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," +
	runtime.ContentTypeJSON + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"

// MetaPage is one page of a metadata-only list: each item's metadata, and the
// page's revision and continue token.
type MetaPage struct {
	Items []meta.Meta
	// IDs are the items' ids ("namespace/name"), as reading them made them
	// (meta.Identify): no item's id is built twice. An id left empty (an item
	// the JSON scanner could not read, a CBOR page), or a page without them (a
	// fake's), has it built from its item by MetaPages.Next.
	IDs  []string
	Meta ListMeta
	// Bytes is the size of the page's body, as received once un-gzipped.
	Bytes int
}

// ListMetadata reads one page of the collection's metadata only (see
// MetadataAccept): the apiserver sends no body, so a caller that compares the
// page with what it holds fetches only the objects that changed (GetRaw). A
// server that ignores the Accept and sends whole objects is read alike. A
// protobuf page is read as it arrives, one item at a time (meta.ReadItems), so
// that a page of thousands of items costs its items' metadata, not its body.
func (c *rawClient) ListMetadata(ctx context.Context, opts metav1.ListOptions) (MetaPage, error) {
	body, err := c.request(opts).SetHeader("Accept", MetadataAccept).Stream(ctx)
	if err != nil {
		return MetaPage{}, err
	}
	defer body.Close()
	// A page holds at most Limit items: made once, the slice leaves no garbage
	// of its growth behind (a metadata page may be thousands of items).
	ahead := min(opts.Limit, maxItemsAhead)
	p := MetaPage{Items: make([]meta.Meta, 0, ahead), IDs: make([]string, 0, ahead)}
	add := func(read func([]byte) (meta.Meta, string, error)) func([]byte) error {
		return func(item []byte) error {
			m, id, err := read(item)
			if err == nil {
				p.Items, p.IDs = append(p.Items, m), append(p.IDs, id)
			}
			return err
		}
	}
	r := meta.NewBody(body, metaReadBuffer)
	if r.IsProtobuf() {
		p.Meta, p.Bytes, err = meta.ReadItems(r, add(meta.Identify))
	} else {
		var all []byte
		if all, err = io.ReadAll(r); err != nil {
			err = &meta.ReadError{Err: err}
		} else {
			p.Bytes = len(all)
			p.Meta, err = meta.DocItems(all, add(meta.DocIdentify))
		}
	}
	var cut *meta.ReadError
	switch {
	case errors.As(err, &cut):
		return MetaPage{}, fmt.Errorf("metadata list page: %w", cut.Err) // as client-go's Do reports a body it could not read
	case err != nil:
		return MetaPage{}, surprise(fmt.Errorf("metadata list page: %w", err))
	}
	return p, nil
}

// maxItemsAhead bounds the items a metadata page makes room for before
// reading them, whatever its limit says.
const maxItemsAhead = 10_000

// metaReadBuffer is the buffer a metadata page is read through.
const metaReadBuffer = 32 << 10

// MetaPages reads a metadata-only list (ListMetadata) page by page, following
// its continue tokens, and counts what it read.
type MetaPages struct {
	src  MetaSource
	opts metav1.ListOptions
	done bool
	// Pages, Objects and Bytes count the pages read so far, their items and
	// their bytes (MetaPage.Bytes).
	Pages, Objects, Bytes int
	// ResourceVersion is the revision of the page read last: the list's, once
	// Done. A continue token pins its list's revision, so every page should
	// carry the first one's.
	ResourceVersion string
}

// NewMetaPages starts a metadata-only list of src with opts, whose Limit is the
// page size.
func NewMetaPages(src MetaSource, opts metav1.ListOptions) *MetaPages {
	return &MetaPages{src: src, opts: opts}
}

// Done reports whether the list's last page has been read.
func (p *MetaPages) Done() bool { return p.done }

// Next reads the next page under ctx (a deadline of the page's own, as each
// request may have) and returns its items' metadata and ids. A page that
// fails may be read again by another call.
func (p *MetaPages) Next(ctx context.Context) ([]meta.Meta, []string, error) {
	page, err := p.src.ListMetadata(ctx, p.opts)
	if err != nil {
		return nil, nil, err
	}
	if len(page.IDs) != len(page.Items) {
		page.IDs = make([]string, len(page.Items))
	}
	for i, id := range page.IDs {
		if id == "" {
			page.IDs[i] = objectID(page.Items[i].Namespace, page.Items[i].Name)
		}
	}
	p.Pages++
	p.Objects += len(page.Items)
	p.Bytes += page.Bytes
	p.opts.Continue, p.ResourceVersion = page.Meta.Continue, page.Meta.ResourceVersion
	p.done = page.Meta.Continue == ""
	return page.Items, page.IDs, nil
}

// GetRaw reads one object (namespace "" for a cluster-scoped one) at
// resourceVersion rv or newer ("not older than", served from the watch cache;
// "": the latest), its metadata read and its body not decoded, and the size of
// the object as a list page would carry it (without the protobuf envelope).
func (c *rawClient) GetRaw(ctx context.Context, namespace, name, rv string) (*Object, int, error) {
	if c.item == nil {
		return nil, 0, surprise(fmt.Errorf("no single-object path"))
	}
	req := c.item(c.rc.Get(), namespace, name)
	if rv != "" {
		req = req.Param("resourceVersion", rv)
	}
	res := req.Do(ctx)
	body, err := res.Raw()
	if err != nil {
		return nil, 0, res.Error()
	}
	if meta.IsProtobuf(body) {
		if _, body, err = meta.Unwrap(body); err != nil {
			return nil, 0, surprise(fmt.Errorf("object %s/%s: %w", namespace, name, err))
		}
	}
	m, id, err := c.f.metaOf(body)
	if err != nil {
		return nil, 0, surprise(fmt.Errorf("object %s/%s: %w", namespace, name, err))
	}
	return &Object{Meta: m, id: id, body: body, f: c.f}, len(body), nil
}

// builtinItem points a request at one object of a built-in resource.
func builtinItem(resource string) func(*rest.Request, string, string) *rest.Request {
	return func(r *rest.Request, namespace, name string) *rest.Request {
		return r.NamespaceIfScoped(namespace, namespace != "").Resource(resource).Name(name)
	}
}

// documentItem points a request at one object of a custom resource.
func documentItem(gvr schema.GroupVersionResource) func(*rest.Request, string, string) *rest.Request {
	return func(r *rest.Request, namespace, name string) *rest.Request {
		return documentTarget(gvr, namespace)(r).Name(name)
	}
}
