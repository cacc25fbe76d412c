package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// fakeAPI is a tiny apiserver over plain HTTP: it streams the initial state of
// the resources it holds (WatchList), then keeps the watch open for events that
// a test sends; it answers 403 for forbidden resources and 404 for the rest.
type fakeAPI struct {
	srv *httptest.Server

	mu        sync.Mutex
	objects   map[string][]map[string]any // by collection path, e.g. /api/v1/pods
	forbidden map[string]bool
	kinds     map[string][2]string     // apiVersion and kind by collection path
	gates     map[string]chan struct{} // initial states held back until released
	watches   map[string][]chan string // open watches by collection path
	requests  []string
}

func newFakeAPI() *fakeAPI {
	f := &fakeAPI{objects: map[string][]map[string]any{}, forbidden: map[string]bool{},
		kinds: map[string][2]string{}, gates: map[string]chan struct{}{}, watches: map[string][]chan string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	DeferCleanup(f.srv.Close)
	return f
}

// object is a minimal API object.
func object(apiVersion, kind, namespace, name, rv string) map[string]any {
	md := map[string]any{"name": name, "resourceVersion": rv, "uid": "uid-" + name}
	if namespace != "" {
		md["namespace"] = namespace
	}
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md}
}

// add serves the collection at path, of objects of apiVersion and kind.
func (f *fakeAPI) add(path, apiVersion, kind string, objs ...map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kinds[path] = [2]string{apiVersion, kind}
	f.objects[path] = append(f.objects[path], objs...)
}

// hold makes watches of path wait, once their response has begun, before they
// send the initial state, until release is called.
func (f *fakeAPI) hold(path string) (release func()) {
	gate := make(chan struct{})
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gates[path] = gate
	return func() { close(gate) }
}

func (f *fakeAPI) forbid(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forbidden[path] = true
}

func (f *fakeAPI) allow(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.forbidden, path)
}

// send delivers a watch event to the open watches of path.
func (f *fakeAPI) send(path, eventType string, obj map[string]any) {
	line, err := json.Marshal(map[string]any{"type": eventType, "object": obj})
	Expect(err).NotTo(HaveOccurred())
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.watches[path] {
		ch <- string(line)
	}
}

// watching reports how many watches of path are open.
func (f *fakeAPI) watching(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watches[path])
}

func (f *fakeAPI) requested() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	f.mu.Lock()
	f.requests = append(f.requests, path)
	objs := f.objects[path]
	kind, known := f.kinds[path]
	forbidden := f.forbidden[path]
	gate := f.gates[path]
	f.mu.Unlock()
	switch {
	case forbidden:
		status(w, http.StatusForbidden, "Forbidden",
			fmt.Sprintf("%s is forbidden: User \"test\" cannot list it", path))
		return
	case !known:
		status(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Query().Get("watch") != "true" && r.URL.Query().Get("watch") != "1" {
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": kind[0], "kind": kind[1] + "List",
			"metadata": map[string]any{"resourceVersion": "100"}, "items": objs})
		return
	}
	ch := make(chan string, 16)
	f.mu.Lock()
	f.watches[path] = append(f.watches[path], ch)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		list := f.watches[path]
		for i, c := range list {
			if c == ch {
				f.watches[path] = append(list[:i:i], list[i+1:]...)
			}
		}
	}()
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	flusher := w.(http.Flusher)
	flusher.Flush()
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	if r.URL.Query().Get("sendInitialEvents") == "true" {
		for _, o := range objs {
			_ = enc.Encode(map[string]any{"type": "ADDED", "object": o})
		}
		_ = enc.Encode(map[string]any{"type": "BOOKMARK", "object": map[string]any{
			"apiVersion": kind[0], "kind": kind[1], "metadata": map[string]any{
				"resourceVersion": "100",
				"annotations":     map[string]any{"k8s.io/initial-events-end": "true"},
			}}})
	}
	flusher.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case line := <-ch:
			_, _ = fmt.Fprintln(w, line)
			flusher.Flush()
		}
	}
}

func status(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure",
		"message": msg, "reason": reason, "code": code})
}

// kubeconfig writes a kubeconfig for server into a temporary folder.
func kubeconfig(server string) string {
	path := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	cfg := strings.Join([]string{
		"apiVersion: v1",
		"kind: Config",
		"clusters:",
		"- name: fake",
		"  cluster: {server: \"" + server + "\"}",
		"users:",
		"- name: test",
		"  user: {token: secret}",
		"contexts:",
		"- name: fake",
		"  context: {cluster: fake, user: test}",
		"current-context: fake",
		"",
	}, "\n")
	Expect(os.WriteFile(path, []byte(cfg), 0o600)).To(Succeed())
	return path
}
