package syncertest

import (
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// Server is a fake kube-apiserver over HTTP, serving the types of an API from
// the same Resources, so that code that builds its own clients from a
// rest.Config (client-go's typed, dynamic and metadata-less REST clients, the
// syncer's raw path, a command) runs against the same double as a syncer given
// api.Option(). It answers as kube-apiserver does:
//
//   - list and watch of each type's collection, in all namespaces
//     (/api/v1/pods) or one (/api/v1/namespaces/ns/pods), and GET of one object
//     (/api/v1/namespaces/ns/pods/name, /api/v1/nodes/name), which the syncer's
//     metadata-first relist makes; anything else is 404;
//   - built-in types as protobuf to a client that accepts it, custom types as
//     CBOR to one that asks for it when ServingCBOR is set, JSON otherwise, and
//     metadata only (PartialObjectMetadata, protobuf or JSON) to client-go's
//     metadata client;
//   - paged lists (limit, continue), streaming lists (sendInitialEvents) with the
//     initial-events-end bookmark, watches from a revision, 410 from a compacted
//     one, bookmarks, timeoutSeconds, selectors: what the API's Resources do;
//   - the errors a Resource is made to fail with (Refuse: 403, 401, 404, 500,
//     TooManyRequests: 429) as the apiserver's Status, with its HTTP code and,
//     when the Status asks the client to wait, a Retry-After header; while the
//     API is Down with a refused connection, every request's connection is
//     closed unanswered.
//
// It does not serve writes, discovery, tables or gzip, and
// every response is sent at once (no apiserver latency). It is safe for
// concurrent use.
type Server struct {
	api  *API
	http *httptest.Server
	cbor bool

	mu     sync.Mutex
	paths  []string
	served map[string]int // responses by Content-Type
	// metaLists counts the list pages answered with metadata only.
	metaLists int
}

// ServerOption configures a Server.
type ServerOption func(*Server)

// ServingCBOR makes the server answer CBOR for custom types to a client whose
// Accept asks for application/cbor, as kube-apiserver does with its
// CBORServingAndStorage gate on. Default: JSON only, as with the gate off.
func ServingCBOR() ServerOption { return func(s *Server) { s.cbor = true } }

// NewServer starts serving api on a loopback port; Close stops it.
func NewServer(api *API, opts ...ServerOption) *Server {
	s := &Server{api: api, served: map[string]int{}}
	for _, o := range opts {
		o(s)
	}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the server's base address, http://127.0.0.1:port.
func (s *Server) URL() string { return s.http.URL }

// Config is a rest.Config for the server, without client-side rate limiting,
// as the fake answers at once.
func (s *Server) Config() *rest.Config { return &rest.Config{Host: s.http.URL, QPS: -1} }

// Close ends open watches and stops the server.
func (s *Server) Close() {
	s.http.CloseClientConnections()
	s.http.Close()
}

// Paths returns the URL path of every request so far, in order.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths)
}

// ContentTypes returns how many responses were sent per Content-Type, e.g.
// "application/vnd.kubernetes.protobuf" or "application/json;stream=watch".
func (s *Server) ContentTypes() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.served)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.paths = append(s.paths, r.URL.Path)
	s.mu.Unlock()
	if refused(s.api.unreachable()) {
		hangUp(w)
		return
	}
	t, namespace, name, ok := s.route(r.URL.Path)
	if !ok || r.Method != http.MethodGet {
		s.writeStatus(w, apierrors.NewNotFound(schema.GroupResource{}, ""))
		return
	}
	if name != "" {
		s.serveGet(w, r, t, namespace, name)
		return
	}
	var o metav1.ListOptions
	if err := scheme.ParameterCodec.DecodeParameters(r.URL.Query(), schema.GroupVersion{Version: "v1"}, &o); err != nil {
		s.writeStatus(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	c := negotiate(r.Header.Get("Accept"), t.gvk, s.cbor)
	lw := &objectsLW{r: t.r, namespace: namespace}
	if o.Watch {
		s.watch(w, r, lw, c, o)
		return
	}
	items, lm, err := lw.r.list(namespace, o)
	if err != nil {
		s.writeStatus(w, err)
		return
	}
	b, err := c.list(lm, items)
	if err != nil {
		s.writeStatus(w, apierrors.NewInternalError(err))
		return
	}
	s.mu.Lock()
	if c.metadata {
		s.metaLists++
	}
	s.mu.Unlock()
	s.header(w, c.media, http.StatusOK)
	_, _ = w.Write(b)
}

// MetadataLists returns how many list pages were answered with metadata only
// (PartialObjectMetadataList), as asked by an Accept with
// as=PartialObjectMetadataList.
func (s *Server) MetadataLists() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.metaLists
}

// watch streams one watch until it ends, the client goes or the server closes.
func (s *Server) watch(w http.ResponseWriter, r *http.Request, lw *objectsLW, c codec, o metav1.ListOptions) {
	wi, err := lw.WatchWithContext(r.Context(), o)
	if err != nil {
		s.writeStatus(w, err)
		return
	}
	defer wi.Stop()
	s.header(w, c.media+";stream=watch", http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case e, ok := <-wi.ResultChan():
			if !ok {
				return
			}
			if c.frame(w, e) != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}

// servedType is one type of the API as the server routes it.
type servedType struct {
	r   *Resource
	gvk schema.GroupVersionKind
}

// route finds the type and namespace of a collection's path, and the name of
// an object's.
func (s *Server) route(path string) (t servedType, namespace, name string, ok bool) {
	var gv schema.GroupVersion
	var rest []string
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		gv, rest = schema.GroupVersion{Version: parts[1]}, parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		gv, rest = schema.GroupVersion{Group: parts[1], Version: parts[2]}, parts[3:]
	default:
		return servedType{}, "", "", false
	}
	namespaced := len(rest) >= 3 && rest[0] == "namespaces"
	if namespaced && len(rest) <= 4 {
		namespace, rest = rest[1], rest[2:]
	}
	switch len(rest) {
	case 1:
	case 2:
		name = rest[1]
	default:
		return servedType{}, "", "", false
	}
	gvr := gv.WithResource(rest[0])
	s.api.mu.Lock()
	defer s.api.mu.Unlock()
	for _, st := range s.api.order {
		if st.t.GVR == gvr && (namespace == "" && (name == "" || !st.t.Namespaced) || namespace != "" && st.t.Namespaced) {
			gk := schema.ParseGroupKind(st.t.Kind)
			return servedType{r: st.r, gvk: gk.WithVersion(gvr.Version)}, namespace, name, true
		}
	}
	return servedType{}, "", "", false
}

// hangUp closes the request's connection without an answer, as a client sees an
// apiserver that has gone away.
func hangUp(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
		return
	}
	panic(http.ErrAbortHandler) // a connection that cannot be taken over: abort the response
}

// writeStatus answers err as the apiserver's Status, with its code; an error
// that is not an apiserver's is a 500. A Status that asks the client to wait
// (TooManyRequests) says so in a Retry-After header too, as kube-apiserver
// does.
func (s *Server) writeStatus(w http.ResponseWriter, err error) {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		st = apierrors.NewInternalError(err)
	}
	status := st.Status()
	status.APIVersion, status.Kind = "v1", "Status"
	if d := status.Details; d != nil && d.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(d.RetryAfterSeconds)))
	}
	s.header(w, mediaJSON, int(status.Code))
	_ = json.NewEncoder(w).Encode(status)
}

// header begins a response and counts its Content-Type.
func (s *Server) header(w http.ResponseWriter, contentType string, code int) {
	s.mu.Lock()
	s.served[contentType]++
	s.mu.Unlock()
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
}
