package syncer_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// pbServer is a fake apiserver for ConfigMaps that answers in protobuf, as
// kube-apiserver does: paged lists, streamed lists (sendInitialEvents) ending
// at an initial-events-end bookmark, and watches that stay open.
type pbServer struct {
	*httptest.Server
	mu   sync.Mutex
	objs []*corev1.ConfigMap
	rev  int
	pb   *protobuf.Serializer
}

func newPBServer(n int) *pbServer {
	s := &pbServer{pb: protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)}
	for i := range n {
		s.rev++
		s.objs = append(s.objs, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "cm" + strconv.Itoa(i), Namespace: "ns", UID: types.UID("u" + strconv.Itoa(i)),
				ResourceVersion: strconv.Itoa(s.rev),
				ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "test"}}},
			Data: map[string]string{"k": "v" + strconv.Itoa(i)},
		})
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// change gives the first n objects a new revision and value.
func (s *pbServer) change(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.objs[:n] {
		s.rev++
		o.ResourceVersion = strconv.Itoa(s.rev)
		o.Data["k"] += "'"
	}
}

func (s *pbServer) clientset() kubernetes.Interface {
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: s.URL, ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}, QPS: -1})
	if err != nil {
		panic(err)
	}
	return cs
}

func (s *pbServer) encode(obj runtime.Object) []byte {
	var b bytes.Buffer
	if err := s.pb.Encode(obj, &b); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func (s *pbServer) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	objs := make([]*corev1.ConfigMap, len(s.objs))
	for i, o := range s.objs {
		objs[i] = o.DeepCopy()
	}
	rv := strconv.Itoa(s.rev)
	s.mu.Unlock()
	if q.Get("watch") != "true" {
		from, _ := strconv.Atoi(q.Get("continue"))
		limit, _ := strconv.Atoi(q.Get("limit"))
		to := len(objs)
		list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
		if limit > 0 && from+limit < to {
			to = from + limit
			list.Continue = strconv.Itoa(to)
		}
		for _, o := range objs[from:to] {
			list.Items = append(list.Items, *o)
		}
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		_, _ = w.Write(s.encode(list))
		return
	}
	w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf;stream=watch")
	fw := protobuf.LengthDelimitedFramer.NewFrameWriter(w)
	frame := func(typ string, obj runtime.Object) {
		ev := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: s.encode(obj)}}
		_, _ = fw.Write(s.encode(ev))
	}
	if q.Get("sendInitialEvents") == "true" {
		for _, o := range objs {
			frame("ADDED", o)
		}
		frame("BOOKMARK", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv,
			Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}})
	}
	frame("BOOKMARK", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}})
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}
