package wire

import (
	"context"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
)

// Clients are the API clients a Type lists and watches with: typed clients
// (protobuf) for built-in kinds, the dynamic client for everything else.
type Clients struct {
	Typed   kubernetes.Interface
	Dynamic dynamic.Interface
	// Metadata, when set, serves KeysOnly custom types: the apiserver sends only
	// each object's metadata (PartialObjectMetadata, as protobuf).
	Metadata metadata.Interface
	// Documents, when set, reads custom types' list pages and watch streams as
	// CBOR or JSON bytes, metadata first (DocumentListerWatcher); NewDocumentsClient
	// makes it. Without it they are decoded in full by the dynamic client.
	Documents rest.Interface
}

// NewClients returns every client of Clients for cfg. Client-side rate limiting
// stays off unless cfg sets QPS or a RateLimiter: client-go's 5 requests/s would
// throttle paged lists. The typed clients ask for protobuf. Every client shares
// one HTTP client over client-go's transport for cfg (which clients of an equal
// config share), and un-gzips with GzipDecoding unless cfg disables compression.
func NewClients(cfg *rest.Config) (Clients, error) {
	c := rest.CopyConfig(cfg)
	if c.QPS == 0 && c.RateLimiter == nil {
		c.QPS = -1
	}
	hc, err := httpClientFor(c)
	if err != nil {
		return Clients{}, fmt.Errorf("http client: %w", err)
	}
	dyn, err := dynamic.NewForConfigAndClient(c, hc)
	if err != nil {
		return Clients{}, fmt.Errorf("dynamic client: %w", err)
	}
	proto := rest.CopyConfig(c)
	proto.ContentType = runtime.ContentTypeProtobuf
	proto.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	typed, err := kubernetes.NewForConfigAndClient(proto, hc)
	if err != nil {
		return Clients{}, fmt.Errorf("typed client: %w", err)
	}
	md, err := metadata.NewForConfigAndClient(c, hc)
	if err != nil {
		return Clients{}, fmt.Errorf("metadata client: %w", err)
	}
	docs, err := newDocumentsClient(c, hc)
	if err != nil {
		return Clients{}, err
	}
	return Clients{Typed: typed, Dynamic: dyn, Metadata: md, Documents: docs}, nil
}

// httpClientFor is rest.HTTPClientFor with GzipDecoding over the transport, not
// in it: a wrapped rest.Config would make client-go build a transport of its
// own for each client, where it shares one among clients of equal configs.
func httpClientFor(c *rest.Config) (*http.Client, error) {
	rt, err := rest.TransportFor(c)
	if err != nil {
		return nil, err
	}
	if !c.DisableCompression {
		rt = GzipDecoding{Next: rt}
	}
	return &http.Client{Transport: rt, Timeout: c.Timeout}, nil
}

// ListerWatcher returns the client that lists and watches t: for a built-in type
// a RawListerWatcher over the typed clientset; for a KeysOnly custom type the
// metadata client, if there is one; for any other custom type a
// DocumentListerWatcher over the dynamic client, or the dynamic client alone
// without a documents client.
func ListerWatcher(t resources.Type, c Clients) cache.ListerWatcherWithContext {
	if lw := builtin(t, c.Typed); lw != nil {
		return lw
	}
	ns := ""
	if t.Namespaced {
		ns = t.Namespace
	}
	if t.KeysOnly && c.Metadata != nil {
		r := c.Metadata.Resource(t.GVR)
		if ns != "" {
			return listWatch[*metav1.PartialObjectMetadataList](r.Namespace(ns))
		}
		return listWatch[*metav1.PartialObjectMetadataList](r)
	}
	r := c.Dynamic.Resource(t.GVR)
	var lw *cache.ListWatch
	if ns != "" {
		lw = listWatch[*unstructured.UnstructuredList](r.Namespace(ns))
	} else {
		lw = listWatch[*unstructured.UnstructuredList](r)
	}
	if c.Documents == nil {
		return lw
	}
	return &DocumentListerWatcher{ListerWatcherWithContext: lw,
		rawClient: rawClient{rc: c.Documents, target: documentTarget(t.GVR, ns),
			item: documentItem(t.GVR), f: &docFormat{name: t.Name}}}
}

// lister is what the typed, dynamic and metadata clients have in common.
type lister[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// listWatch adapts a typed, dynamic or metadata client to a ListerWatcher.
func listWatch[L runtime.Object](r lister[L]) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return r.List(ctx, o)
		},
		WatchFuncWithContext: r.Watch,
	}
}
