package wire

import (
	"bufio"
	"bytes"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesync/kubesync/resources"
)

// holds is a Holder that knows the ids it holds, at any revision and UID.
type holds map[string]bool

func (h holds) Known(id, _ string, _ types.UID) bool { return h[id] }

// rawPod is the first pod of podFrames as a raw watch reads it: metadata
// read, body not decoded.
func rawPod(t *testing.T) watch.Event {
	t.Helper()
	p := &pbFormat{name: "pods", gvk: corev1.SchemeGroupVersion.WithKind("Pod")}
	ev, err := p.events(bufio.NewReader(bytes.NewReader(podFrames(t, 1))), 0, false)()
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// podsLW is a raw lister/watcher of pods that makes no request: it gives a
// Source its lazy decoder.
func podsLW() *RawListerWatcher {
	return &RawListerWatcher{rawClient: rawClient{f: &pbFormat{name: "pods", gvk: corev1.SchemeGroupVersion.WithKind("Pod")}}}
}

// A Source decides how each raw object becomes a value, and reads each watch
// event once.
func TestSourceDecides(t *testing.T) {
	keysOnly := resources.Pods
	keysOnly.KeysOnly = true
	for _, c := range []struct {
		name    string
		t       resources.Type
		opts    []SourceOption
		later   bool // left undecoded
		decoded bool // Value holds the decoded pod
		lazy    bool // Value holds a *resources.Raw
		decodes int64
	}{
		{name: "decoded", t: resources.Pods, decoded: true, decodes: 1},
		{name: "keys only", t: keysOnly},
		{name: "held", t: resources.Pods, opts: []SourceOption{WithHolder(holds{"team-a/web-0": true})}, later: true},
		{name: "lazy", t: resources.Pods, opts: []SourceOption{WithLazyValues()}, lazy: true},
		{name: "lazy, typed sources", t: resources.Pods, opts: []SourceOption{WithLazyValues(), WithTypedSources()},
			lazy: true, decodes: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var n atomic.Int64
			src := NewSource(c.t, podsLW(), append(c.opts, WithDecodes(&n))...)
			ev, err := src.Event(rawPod(t))
			if err != nil || ev.Type != watch.Added {
				t.Fatalf("event %v, %v", ev.Type, err)
			}
			v := ev.Value
			if v.ID != "team-a/web-0" || v.Rev != "1000" || v.Err != nil {
				t.Fatalf("value %+v", v)
			}
			if got := v.Later != nil; got != c.later {
				t.Fatalf("left undecoded: %v, want %v", got, c.later)
			}
			if c.later {
				if len(v.KVs) != 0 {
					t.Fatalf("an undecoded value has %d pairs", len(v.KVs))
				}
				v = v.Later()
			}
			if len(v.KVs) != 1 || v.KVs[0].Revision != "1000" {
				t.Fatalf("pairs %+v", v.KVs)
			}
			_, isPod := v.KVs[0].Value.(*corev1.Pod)
			_, isRaw := v.KVs[0].Value.(*resources.Raw)
			if isPod != (c.decoded || c.later) || isRaw != c.lazy {
				t.Fatalf("value %T", v.KVs[0].Value)
			}
			if c.t.KeysOnly != (v.KVs[0].Value == nil) {
				t.Fatalf("keys only %v, value %T", c.t.KeysOnly, v.KVs[0].Value)
			}
			if want := c.decodes + map[bool]int64{true: 1}[c.later]; n.Load() != want {
				t.Fatalf("%d decodes, want %d", n.Load(), want)
			}
		})
	}
}

// A value its holder knew by its metadata alone decodes to an error, which
// names it, should the holder turn out not to hold it.
func TestUnchangedLater(t *testing.T) {
	v := NewSource(resources.Pods, nil).Unchanged("team-a/web-0", "5", "u")
	if v.Later == nil || v.Err != nil {
		t.Fatalf("unchanged %+v", v)
	}
	d := v.Later()
	if d.Err == nil || d.ID != "team-a/web-0" || d.Later != nil {
		t.Fatalf("its Later %+v", d)
	}
}

// A bookmark is read once: its revision and whether it ends the initial events.
func TestSourceBookmark(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9",
		Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	ev, err := NewSource(resources.Pods, nil).Event(watch.Event{Type: watch.Bookmark, Object: pod})
	if err != nil || ev.RV != "9" || !ev.InitialEventsEnd {
		t.Fatalf("bookmark %+v, %v", ev, err)
	}
}
