package syncertest

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Get returns the object named namespace/name ("" for a cluster-scoped one) as
// it is now, or 404, as kube-apiserver answers a GET with resourceVersion "" or
// one it has reached ("not older than"). It is recorded as a call of verb "get",
// with the object's namespace.
func (r *Resource) Get(namespace, name string, o metav1.GetOptions) (runtime.Object, error) {
	r.mu.Lock()
	before := r.beforeGet
	r.mu.Unlock()
	if before != nil {
		before(namespace, name) // outside the lock: it may change the resource
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("get", namespace, metav1.ListOptions{ResourceVersion: o.ResourceVersion})
	if err := r.failing(r.getErr); err != nil {
		return nil, err
	}
	if rev, err := parseRevision(o.ResourceVersion); err == nil && rev > r.revs.Current() {
		return nil, r.tooLarge(rev)
	}
	obj, ok := r.objects[objectKey(namespace, name)]
	if !ok {
		return nil, apierrors.NewNotFound(r.gr, name)
	}
	return obj.DeepCopyObject(), nil
}

// BeforeGets calls fn with the namespace and name of every GET before it is
// served, so that a test can change the object in between (a GET that returns a
// newer revision than the list before it); nil restores.
func (r *Resource) BeforeGets(fn func(namespace, name string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.beforeGet = fn
}

// FailGets makes GETs fail with fn's error while it returns one (a 403 for a role
// of list and watch only); nil restores.
func (r *Resource) FailGets(fn func() error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.getErr = fn
}

// serveGet answers a GET of one object in the codec the client negotiated: the
// object with its envelope (protobuf), a document, or its metadata.
func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, t servedType, namespace, name string) {
	c := negotiate(r.Header.Get("Accept"), t.gvk, s.cbor)
	obj, err := t.r.Get(namespace, name, metav1.GetOptions{ResourceVersion: r.URL.Query().Get("resourceVersion")})
	if err != nil {
		s.writeStatus(w, err)
		return
	}
	b, err := c.object(obj)
	if err != nil {
		s.writeStatus(w, apierrors.NewInternalError(err))
		return
	}
	s.header(w, c.media, http.StatusOK)
	_, _ = w.Write(b)
}

// object encodes one object as a response body.
func (c codec) object(obj runtime.Object) ([]byte, error) {
	if c.pb != nil {
		typed, err := c.typed(obj)
		if err != nil {
			return nil, err
		}
		return c.protobuf(typed)
	}
	content, err := c.content(obj)
	if err != nil {
		return nil, err
	}
	return c.document(content)
}
