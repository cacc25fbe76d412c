package syncer_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/cputime"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// BenchmarkStreamedSync measures the client's side of a first sync: a syncer
// with lazy values streams 10,000 RoleBindings (the shape of BENCHMARKS.md's
// rolebindings workload, managed fields included) and reaches InSync. The
// stream is recorded once from syncertest's server and replayed gzipped, as
// kube-apiserver sends it, so that what the server spends encoding is not in
// the figure: cpu-ms/op is the process's CPU, and nearly all of it the
// syncer's. Its allocations repeat within 1%; its CPU, on a shared
// machine, spreads by a third (docs/cpu.md), so that an A/B comparison runs
// two builds' test binaries in turn, several times each.
//
//	go test -run '^$' -bench StreamedSync -benchmem ./syncer
func BenchmarkStreamedSync(b *testing.B) {
	const n = 10000
	api := syncertest.NewAPIWith([]resources.Type{resources.RoleBindings}, syncertest.SharingRevisions(&syncertest.Revisions{}))
	for i := range n {
		api.Put(resources.RoleBindings, benchRoleBinding(i))
	}
	backend := syncertest.NewServer(api)
	defer backend.Close()
	rp := &replay{backend: backend.URL(), frames: n + 1} // every object, then the bookmark
	srv := httptest.NewServer(rp)
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL, QPS: -1}

	firstSync := func() {
		synced := make(inSync)
		s, err := syncer.New(cfg, []resources.Type{resources.RoleBindings}, synced, syncer.WithLazyValues(), quietLogger())
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s.Start(ctx)
		select {
		case <-synced:
		case <-ctx.Done():
			b.Fatal("no InSync within a minute")
		}
		s.Stop()
		s.Wait()
	}
	firstSync() // records the stream
	if rp.recorded() == 0 {
		b.Fatal("no stream was recorded")
	}
	b.ResetTimer()
	var cpu time.Duration
	for b.Loop() {
		cpu0 := cputime.Process()
		firstSync()
		cpu += cputime.Process() - cpu0
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// benchRoleBinding is the i-th RoleBinding: a ClusterRole, three subjects, three
// labels and one managed-fields entry, as the bench's are once created.
func benchRoleBinding(i int) *rbacv1.RoleBinding {
	ns := fmt.Sprintf("bench-%d", i%10)
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: fmt.Sprintf("rb-%05d", i),
			UID: types.UID(fmt.Sprintf("6f1c2d3e-%04x-4a5b-8c9d-%012x", i%65536, i)),
			Labels: map[string]string{
				"app.kubernetes.io/name":      "kubesync-bench",
				"app.kubernetes.io/instance":  fmt.Sprintf("instance-%d", i%97),
				"app.kubernetes.io/component": [...]string{"api", "worker", "db", "cache"}[i%4],
			},
			CreationTimestamp: metav1.Unix(1_780_000_000+int64(i), 0),
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "benchmark", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "rbac.authorization.k8s.io/v1",
				Time: &metav1.Time{Time: time.Unix(1_780_000_000+int64(i), 0)}, FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app.kubernetes.io/component":{},` +
					`"f:app.kubernetes.io/instance":{},"f:app.kubernetes.io/name":{}}},"f:roleRef":{},"f:subjects":{}}`)},
			}},
		},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: [...]string{"view", "edit", "admin"}[i%3]},
		Subjects: []rbacv1.Subject{
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: fmt.Sprintf("user-%d@example.com", i)},
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: fmt.Sprintf("team-%d", i%50)},
			{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: fmt.Sprintf("sa-%d", i%20)},
		},
	}
}

// replay answers a streamed list with the bytes the backend sent for the same
// request the first time: its first frames of a protobuf watch, gzipped, then
// holds the stream open as a watch until the client goes. Anything else it
// refuses.
type replay struct {
	backend string
	frames  int

	mu      sync.Mutex
	streams map[string][]byte // streamKey → the stream's frames, gzipped
}

// streamKey is the request's path and query, less the timeout that a client
// draws afresh for every watch.
func streamKey(r *http.Request) string {
	q := r.URL.Query()
	q.Del("timeout")
	q.Del("timeoutSeconds")
	return r.URL.Path + "?" + q.Encode()
}

func (rp *replay) recorded() int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return len(rp.streams)
}

func (rp *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("sendInitialEvents") != "true" {
		http.Error(w, "only streamed lists are replayed", http.StatusNotFound)
		return
	}
	body, err := rp.stream(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf;stream=watch")
	w.Header().Set("Content-Encoding", "gzip")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// stream returns the recorded stream of r, recording it first if need be.
func (rp *replay) stream(r *http.Request) ([]byte, error) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	key := streamKey(r)
	if body, ok := rp.streams[key]; ok {
		return body, nil
	}
	if !strings.Contains(r.Header.Get("Accept"), "protobuf") {
		return nil, fmt.Errorf("the stream was not asked for in protobuf: %q", r.Header.Get("Accept"))
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, rp.backend+r.URL.RequestURI(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", r.Header.Get("Accept"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	for range rp.frames {
		var size [4]byte
		if _, err := io.ReadFull(resp.Body, size[:]); err != nil {
			return nil, fmt.Errorf("reading a frame's length: %w", err)
		}
		frame := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(resp.Body, frame); err != nil {
			return nil, fmt.Errorf("reading a frame: %w", err)
		}
		_, _ = zw.Write(size[:])
		_, _ = zw.Write(frame)
	}
	// Flushed, not closed: a stream that stays open has no gzip trailer, and a
	// reader that saw one would wait for the next member before it handed on
	// the last frame.
	if err := zw.Flush(); err != nil {
		return nil, err
	}
	if rp.streams == nil {
		rp.streams = map[string][]byte{}
	}
	rp.streams[key] = zipped.Bytes()
	return zipped.Bytes(), nil
}
