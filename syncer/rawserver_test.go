package syncer_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/wire"
	"github.com/kubesync/kubesync/resources"
)

// pbServer is a fake apiserver that answers as kube-apiserver does: protobuf for
// built-in types, JSON for custom ones; paged lists, streamed lists
// (sendInitialEvents) ending at an initial-events-end bookmark, and watches that
// stay open.
type pbServer struct {
	*httptest.Server
	mu   sync.Mutex
	rev  int
	objs map[string][]runtime.Object // by request path of the collection
	pb   *protobuf.Serializer
	// cbor: custom types are served as CBOR to a client that asks for it, as
	// kube-apiserver does with its CBORServingAndStorage gate on.
	cbor   bool
	served map[string]int // responses per content type
}

func newServer() *pbServer {
	s := &pbServer{pb: protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), objs: map[string][]runtime.Object{},
		served: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// newPBServer serves n ConfigMaps in namespace "ns".
func newPBServer(n int) *pbServer {
	s := newServer()
	for i := range n {
		s.add(resources.ConfigMaps, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "cm" + strconv.Itoa(i), Namespace: "ns", UID: types.UID("u" + strconv.Itoa(i)),
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "test"}}},
			Data: map[string]string{"k": "v" + strconv.Itoa(i)},
		})
	}
	return s
}

func collectionPath(t resources.Type) string {
	if t.GVR.Group == "" {
		return "/api/" + t.GVR.Version + "/" + t.GVR.Resource
	}
	return "/apis/" + t.GVR.Group + "/" + t.GVR.Version + "/" + t.GVR.Resource
}

// add serves obj as an object of type t, at the next revision.
func (s *pbServer) add(t resources.Type, obj runtime.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	obj.(metav1.Object).SetResourceVersion(strconv.Itoa(s.rev))
	p := collectionPath(t)
	s.objs[p] = append(s.objs[p], obj)
}

// change gives the first n ConfigMaps a new revision and value.
func (s *pbServer) change(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.objs[collectionPath(resources.ConfigMaps)][:n] {
		cm := o.(*corev1.ConfigMap)
		s.rev++
		cm.ResourceVersion = strconv.Itoa(s.rev)
		cm.Data["k"] += "'"
	}
}

func (s *pbServer) clients() wire.Clients {
	c := &rest.Config{Host: s.URL, QPS: -1}
	pc := rest.CopyConfig(c)
	pc.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := kubernetes.NewForConfig(pc)
	if err != nil {
		panic(err)
	}
	dyn, err := dynamic.NewForConfig(c)
	if err != nil {
		panic(err)
	}
	docs, err := wire.NewDocumentsClient(c)
	if err != nil {
		panic(err)
	}
	return wire.Clients{Typed: cs, Dynamic: dyn, Documents: docs}
}

func (s *pbServer) clientset() kubernetes.Interface { return s.clients().Typed }

// encoder writes objects of one collection: protobuf or JSON.
type encoder interface {
	object(obj runtime.Object) []byte
	list(rv, cont string, items []runtime.Object) []byte
	frames(w io.Writer) func(typ string, obj runtime.Object)
	contentType() string
}

type pbEncoder struct{ pb *protobuf.Serializer }

func (e pbEncoder) object(obj runtime.Object) []byte {
	var b bytes.Buffer
	if err := e.pb.Encode(obj, &b); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func (e pbEncoder) list(rv, cont string, items []runtime.Object) []byte {
	l, err := scheme.Scheme.New(items[0].GetObjectKind().GroupVersionKind().GroupVersion().WithKind(kindOf(items[0]) + "List"))
	if err != nil {
		panic(err)
	}
	lm, _ := l.(metav1.ListInterface)
	lm.SetResourceVersion(rv)
	lm.SetContinue(cont)
	if err := setItems(l, items); err != nil {
		panic(err)
	}
	return e.object(l)
}

func (e pbEncoder) frames(w io.Writer) func(string, runtime.Object) {
	fw := protobuf.LengthDelimitedFramer.NewFrameWriter(w)
	return func(typ string, obj runtime.Object) {
		// As kube-apiserver's stream serializer does: the event without envelope,
		// its object with one.
		ev := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: e.object(obj)}}
		b, err := ev.Marshal()
		if err != nil {
			panic(err)
		}
		_, _ = fw.Write(b)
	}
}

func (pbEncoder) contentType() string { return "application/vnd.kubernetes.protobuf" }

type jsonEncoder struct{}

func (jsonEncoder) object(obj runtime.Object) []byte {
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return b
}

func (e jsonEncoder) list(rv, cont string, items []runtime.Object) []byte {
	raw := make([]json.RawMessage, len(items))
	for i, it := range items {
		raw[i] = e.object(it)
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List",
		"metadata": map[string]any{"resourceVersion": rv, "continue": cont}, "items": raw})
	return b
}

func (e jsonEncoder) frames(w io.Writer) func(string, runtime.Object) {
	return func(typ string, obj runtime.Object) {
		b, _ := json.Marshal(map[string]any{"type": typ, "object": json.RawMessage(e.object(obj))})
		_, _ = w.Write(append(b, '\n'))
	}
}

func (jsonEncoder) contentType() string { return "application/json" }

func kindOf(obj runtime.Object) string {
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		panic(err)
	}
	return gvks[0].Kind
}

func setItems(list runtime.Object, items []runtime.Object) error { return meta.SetList(list, items) }

func (s *pbServer) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	src := s.objs[r.URL.Path]
	objs := make([]runtime.Object, len(src))
	for i, o := range src {
		objs[i] = o.DeepCopyObject()
	}
	rv := strconv.Itoa(s.rev)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.served[w.Header().Get("Content-Type")]++
	}()
	var enc encoder = jsonEncoder{}
	if s.cbor && strings.Contains(r.Header.Get("Accept"), "application/cbor") {
		enc = cborEncoder{}
	}
	if strings.HasPrefix(r.URL.Path, "/api/") || !strings.Contains(r.URL.Path, ".projectcalico.org") {
		enc = pbEncoder{s.pb}
		for _, o := range objs { // the protobuf serializer writes the kind in its envelope
			gvks, _, _ := scheme.Scheme.ObjectKinds(o)
			o.GetObjectKind().SetGroupVersionKind(gvks[0])
		}
	}
	bookmark := func(end bool) runtime.Object {
		var b runtime.Object = &corev1.ConfigMap{}
		if len(objs) > 0 {
			b = objs[0].DeepCopyObject()
		}
		m := b.(metav1.Object)
		m.SetResourceVersion(rv)
		if end {
			m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
		}
		return b
	}
	if q.Get("watch") != "true" {
		from, _ := strconv.Atoi(q.Get("continue"))
		limit, _ := strconv.Atoi(q.Get("limit"))
		to, cont := len(objs), ""
		if limit > 0 && from+limit < to {
			to = from + limit
			cont = strconv.Itoa(to)
		}
		w.Header().Set("Content-Type", enc.contentType())
		if len(objs) == 0 {
			_, _ = w.Write(jsonEncoder{}.list(rv, "", nil))
			return
		}
		_, _ = w.Write(enc.list(rv, cont, objs[from:to]))
		return
	}
	w.Header().Set("Content-Type", enc.contentType()+";stream=watch")
	frame := enc.frames(w)
	if q.Get("sendInitialEvents") == "true" {
		for _, o := range objs {
			frame("ADDED", o)
		}
		frame("BOOKMARK", bookmark(true))
	}
	frame("BOOKMARK", bookmark(false))
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}
