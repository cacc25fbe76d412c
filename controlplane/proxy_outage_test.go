package controlplane_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/controlplane"
)

// The whole apiserver goes away and comes back through the proxy; the control
// plane is shared by the subtests.
func TestProxyTakesTheAPIServerAway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cp.Stop() }()

	t.Run("refused until back, at the same address", func(t *testing.T) {
		p, cs, client := newProxy(ctx, t, cp)
		w := openWatch(ctx, t, cs)
		if err := get(client, p); err != nil { // a connection kept alive, idle
			t.Fatalf("before: %v", err)
		}
		if err := p.RefuseConnections(true); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, w)
		// The idle connection is closed too, and a new one refused.
		if err := get(client, p); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("while refused: got %v, want connection refused", err)
		}
		if err := p.RefuseConnections(false); err != nil {
			t.Fatal(err)
		}
		if err := get(client, p); err != nil {
			t.Fatalf("back: %v", err)
		}
		waitEvent(ctx, t, cp, openWatch(ctx, t, cs))
	})

	t.Run("every connection cut, new ones going through", func(t *testing.T) {
		p, cs, client := newProxy(ctx, t, cp)
		w := openWatch(ctx, t, cs)
		if err := get(client, p); err != nil {
			t.Fatalf("before: %v", err)
		}
		if n := p.CutAll(); n < 1 {
			t.Fatalf("CutAll cut %d requests; the watch was open", n)
		}
		waitClosed(t, w)
		if err := get(client, p); err != nil {
			t.Fatalf("after the cut: %v", err)
		}
		waitEvent(ctx, t, cp, openWatch(ctx, t, cs))
	})
}

// newProxy starts a proxy in front of cp, with a clientset and a plain HTTP
// client (keeping connections alive) through it.
func newProxy(ctx context.Context, t *testing.T, cp *controlplane.ControlPlane) (*controlplane.Proxy, kubernetes.Interface, *http.Client) {
	t.Helper()
	p, err := controlplane.NewProxy(cp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	cs, err := kubernetes.NewForConfig(p.Config())
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	return p, cs, client
}

// get asks the proxy for /version.
func get(client *http.Client, p *controlplane.Proxy) error {
	resp, err := client.Get(p.URL() + "/version")
	if err != nil {
		return err
	}
	// Read to the end, so that the connection stays open for the next request.
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}

func openWatch(ctx context.Context, t *testing.T, cs kubernetes.Interface) watch.Interface {
	t.Helper()
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

// waitClosed waits for w's channel to close, as a watch whose connection ended.
func waitClosed(t *testing.T, w watch.Interface) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case _, open := <-w.ResultChan():
			if !open {
				return
			}
		case <-deadline:
			t.Fatal("the watch is still open")
		}
	}
}

// waitEvent creates a ConfigMap as the admin and waits for w to tell it.
func waitEvent(ctx context.Context, t *testing.T, cp *controlplane.ControlPlane, w watch.Interface) {
	t.Helper()
	admin, err := cp.Clientset()
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "back-"}}
	if cm, err = admin.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev, open := <-w.ResultChan():
			if !open {
				t.Fatal("the watch ended")
			}
			if got, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Added && got.Name == cm.Name {
				return
			}
		case <-deadline:
			t.Fatalf("ConfigMap %s not seen through the proxy", cm.Name)
		}
	}
}
