package bench

import (
	"fmt"
	"unique"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Experimental contenders: variants of (b) that test a proposed change to
// syncer/ or resources/ from the outside. They are not run by default (pass them
// in -contenders) and have no targets.
const (
	// ExpStoreQueue1k is (b) with WithMaxQueued(1000) instead of 10000: fewer
	// decoded objects wait for the consumer.
	ExpStoreQueue1k = "x-kubesync-store-q1k"
	// ExpStoreIntern is (b) with a conversion that also interns the namespace and
	// the label keys and values (resources.Type.WithConvert).
	ExpStoreIntern = "x-kubesync-store-intern"
	// ExpNoStoreQueue1k is (a) with WithMaxQueued(1000).
	ExpNoStoreQueue1k = "x-kubesync-nostore-q1k"
	// ExpNoStoreNoGzip and ExpInformerNoGzip are (a) with
	// syncer.WithCompression(false) and (c) asking for the identity encoding: the
	// apiserver sends the stream uncompressed.
	ExpNoStoreNoGzip  = "x-kubesync-nostore-nogzip"
	ExpInformerNoGzip = "x-informer-nogzip"
)

// Experiments lists the experimental contenders.
var Experiments = []string{ExpNoStoreQueue1k, ExpStoreQueue1k, ExpStoreIntern, ExpNoStoreNoGzip, ExpInformerNoGzip}

func init() {
	contenderLabels[ExpStoreQueue1k] = "(x) (b) with WithMaxQueued(1000)"
	contenderLabels[ExpStoreIntern] = "(x) (b) with interned namespace and labels"
	contenderLabels[ExpNoStoreQueue1k] = "(x) (a) with WithMaxQueued(1000)"
	contenderLabels[ExpNoStoreNoGzip] = "(x) (a) without gzip"
	contenderLabels[ExpInformerNoGzip] = "(x) (c) without gzip"
}

// experimentOptions returns the syncer options and type of an experimental
// kubesync contender, and whether it keeps a store.
func experimentOptions(kind string, t resources.Type) ([]syncer.Option, resources.Type, bool) {
	switch kind {
	case ExpNoStoreQueue1k:
		return []syncer.Option{syncer.WithMaxQueued(1000)}, t, false
	case ExpNoStoreNoGzip:
		return []syncer.Option{syncer.WithCompression(false)}, t, false
	case ExpStoreQueue1k:
		return []syncer.Option{syncer.WithMaxQueued(1000)}, t, true
	case ExpStoreIntern:
		return nil, t.WithConvert(internConvert(t)), true
	}
	return nil, t, false
}

// internConvert is the default conversion (one KVPair holding the object, managed
// fields stripped) that also interns the strings that repeat across objects.
func internConvert(t resources.Type) resources.ConvertFunc {
	return func(obj runtime.Object) ([]resources.KVPair, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, fmt.Errorf("%s: object %T has no metadata: %w", t.Name, obj, err)
		}
		m.SetManagedFields(nil)
		m.SetNamespace(intern(m.GetNamespace()))
		if l := m.GetLabels(); len(l) > 0 {
			in := make(map[string]string, len(l))
			for k, v := range l {
				in[intern(k)] = intern(v)
			}
			m.SetLabels(in)
		}
		return []resources.KVPair{{
			Key:      t.KeyFor(m.GetNamespace(), m.GetName()),
			Value:    obj,
			Revision: m.GetResourceVersion(),
			UID:      m.GetUID(),
		}}, nil
	}
}

func intern(s string) string { return unique.Make(s).Value() }
