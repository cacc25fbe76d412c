package syncer

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
)

// simFile is the simulated agent's checkpoint file: what survives a kill. Like
// package checkpoint's bbolt file, a write is one transaction, all or nothing;
// torn stands for a file damaged at a write, which the next Open discards.
type simFile struct {
	cluster string // the header's cluster identity; "" until confirmed
	types   map[string]*simFileType
	torn    bool
	written time.Time
	writes  int
}

type simFileType struct {
	rev  string
	objs map[string]simRecord
	// by says what the loop was handling when it noted rev, for a report.
	by string
}

// record is what the file holds of the object id; none when the type has no
// record yet (a nil ft).
func (ft *simFileType) record(id string) (simRecord, bool) {
	if ft == nil {
		return simRecord{}, false
	}
	rec, ok := ft.objs[id]
	return rec, ok
}

// simRecord is an object as the file holds it: decoded (obj), or a lazy
// value's bytes and its UID (RecordLazy).
type simRecord struct {
	rev     string
	obj     runtime.Object
	encoded []byte
	uid     types.UID
}

// identity is the namespace, name and UID of the object the record holds, of
// id; false if it holds none. A lazy record's are its id's and its own UID, as
// a warm start resumes it.
func (rec simRecord) identity(id string) (namespace, name string, uid types.UID, ok bool) {
	if rec.obj == nil {
		if rec.encoded == nil {
			return "", "", "", false
		}
		namespace, name, err := cache.SplitMetaNamespaceKey(id)
		return namespace, name, rec.uid, err == nil
	}
	m, err := meta.Accessor(rec.obj)
	if err != nil {
		return "", "", "", false
	}
	return m.GetNamespace(), m.GetName(), m.GetUID(), true
}

// persisted is the record as Open hands it back, a copy of what the file holds.
func (rec simRecord) persisted(id string) PersistedObject {
	if rec.obj == nil {
		return PersistedObject{ID: id, Revision: rec.rev, Encoded: slices.Clone(rec.encoded), UID: rec.uid}
	}
	return PersistedObject{ID: id, Revision: rec.rev, Object: rec.obj.DeepCopyObject()}
}

// simStore is one process's Checkpoint on the file, modelled on
// checkpoint.Store: the notes go to pending changes in memory (Record, Delete,
// Clear, Revision, as checkpoint/writer.go keeps them), which flush writes in
// one transaction, as Store.write does; a kill loses what was not flushed.
// Confirm is Store.Confirm, and tells the simulator its answer.
type simStore struct {
	mu        sync.Mutex // Confirm comes from the identity's goroutine
	f         *simFile
	now       func() time.Time
	types     map[string]bool
	cluster   string
	hdrDirty  bool
	pending   map[string]*simChanges
	confirmed chan bool // each Confirm's answer, for the simulator to wait on
	snapshot  bool      // Open returned a snapshot
	// doing says what the loop is handling, for a report of who noted a revision.
	doing func() string
	// staleLazy breaks the store on purpose (simBreakLazyStale): a lazy record
	// keeps the bytes the file held of the object before, at its new revision.
	staleLazy bool
}

type simChanges struct {
	cleared bool
	objs    map[string]*simRecord // nil record: deleted
	rev     string
	hasRev  bool
	by      string
}

var (
	_ Checkpoint   = (*simStore)(nil)
	_ LazyRecorder = (*simStore)(nil)
)

func newSimStore(f *simFile, now func() time.Time) *simStore {
	return &simStore{f: f, now: now, types: map[string]bool{}, pending: map[string]*simChanges{},
		confirmed: make(chan bool, 4)}
}

// Open is Store.Open and load: a damaged file, or one with nothing to resume
// from, means a cold start.
func (c *simStore) Open(id ClusterIdentity, types []resources.Type, _ logrus.FieldLogger) (*Persisted, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range types {
		c.types[t.Name] = true
	}
	c.cluster = id.Cluster
	if c.f.torn || c.f.types == nil {
		*c.f = simFile{types: map[string]*simFileType{}, written: c.now()}
		return nil, nil
	}
	snap := &Persisted{Identity: ClusterIdentity{Server: id.Server, Cluster: c.f.cluster}, Written: c.f.written,
		Types: map[string]*PersistedType{}}
	whole := false
	for name := range c.types {
		pt := &PersistedType{}
		snap.Types[name] = pt
		ft := c.f.types[name]
		if ft == nil {
			continue
		}
		pt.Revision = ft.rev
		for _, id := range slices.Sorted(maps.Keys(ft.objs)) {
			rec := ft.objs[id]
			pt.Objects = append(pt.Objects, rec.persisted(id))
		}
		whole = whole || pt.Revision != "" || len(pt.Objects) > 0
	}
	if !whole {
		return nil, nil
	}
	if c.cluster == "" {
		c.cluster = c.f.cluster // still to be confirmed
	}
	c.snapshot = true
	return snap, nil
}

func (c *simStore) changesOf(name string) *simChanges {
	ch := c.pending[name]
	if ch == nil {
		ch = &simChanges{objs: map[string]*simRecord{}}
		c.pending[name] = ch
	}
	return ch
}

func (c *simStore) note(name string, fn func(*simChanges)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.types[name] {
		fn(c.changesOf(name))
	}
}

func (c *simStore) Record(name, id, rev string, obj runtime.Object) {
	c.note(name, func(ch *simChanges) { ch.objs[id] = &simRecord{rev: rev, obj: obj} })
}

func (c *simStore) RecordLazy(name, id, rev string, uid types.UID, encoded []byte) {
	c.note(name, func(ch *simChanges) {
		if was, ok := c.f.types[name].record(id); ok && c.staleLazy && was.encoded != nil {
			encoded = was.encoded
		}
		ch.objs[id] = &simRecord{rev: rev, encoded: encoded, uid: uid}
	})
}

func (c *simStore) Delete(name, id string) {
	c.note(name, func(ch *simChanges) { ch.objs[id] = nil })
}

func (c *simStore) Clear(name string) {
	c.note(name, func(ch *simChanges) {
		ch.cleared, ch.objs, ch.rev, ch.hasRev = true, map[string]*simRecord{}, "", true
	})
}

func (c *simStore) Revision(name, rev string) {
	by := ""
	if c.doing != nil {
		by = c.doing()
	}
	c.note(name, func(ch *simChanges) { ch.rev, ch.hasRev, ch.by = rev, true, by })
}

func (c *simStore) Confirm(cluster string) bool {
	ok := c.confirm(cluster)
	c.confirmed <- ok
	return ok
}

func (c *simStore) confirm(cluster string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.cluster
	if old == cluster {
		return true
	}
	c.cluster, c.hdrDirty = cluster, true
	if old == "" {
		return true
	}
	for name := range c.types {
		ch := c.changesOf(name)
		ch.rev, ch.hasRev = "", true
	}
	return false
}

// Close writes what is pending, as Store.Close does.
func (c *simStore) Close() error {
	c.flush()
	return nil
}

// flush writes every pending change in one transaction (Store.write); it
// reports whether anything was written.
func (c *simStore) flush() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 && !c.hdrDirty {
		return false
	}
	c.f.cluster, c.f.written = c.cluster, c.now()
	for name, ch := range c.pending {
		ft := c.f.types[name]
		if ft == nil || ch.cleared {
			ft = &simFileType{objs: map[string]simRecord{}, rev: ft.revOr("")}
			c.f.types[name] = ft
		}
		for id, rec := range ch.objs {
			if rec == nil {
				delete(ft.objs, id)
			} else {
				ft.objs[id] = *rec
			}
		}
		if ch.hasRev {
			ft.rev, ft.by = ch.rev, ch.by
		}
	}
	c.pending, c.hdrDirty = map[string]*simChanges{}, false
	c.f.writes++
	return true
}

func (ft *simFileType) revOr(def string) string {
	if ft == nil {
		return def
	}
	return ft.rev
}
