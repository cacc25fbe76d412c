package sim

import (
	"fmt"
	"slices"
	"strings"
)

// Object is one API object as etcd holds it. App is its label "app" and Phase
// its field status.phase: what the modelled selectors select on.
type Object struct {
	Namespace, Name string
	UID             string
	Rev             int64
	App, Phase      string
	// Gen changes with every update, so that two revisions differ in content.
	Gen int
}

// ID is the object's namespace/name.
func (o Object) ID() string { return o.Namespace + "/" + o.Name }

// EventType is what a change did, as a watch reports it.
type EventType uint8

// The types of a change.
const (
	Added EventType = iota + 1
	Modified
	Deleted
)

func (t EventType) String() string {
	switch t {
	case Added:
		return "Added"
	case Modified:
		return "Modified"
	case Deleted:
		return "Deleted"
	}
	return fmt.Sprintf("EventType(%d)", uint8(t))
}

// Change is one write to etcd: the object after it (for a deletion, the object
// as it was, at the deletion's revision) and before it (nil for a creation).
type Change struct {
	Type EventType
	Rev  int64
	Obj  Object
	Prev *Object
}

// Resource is one resource's objects and the history of their changes. Its
// whole history is kept, so that any revision's state can be read back; etcd's
// compaction only says which revisions a watch or a continue may no longer
// start from.
type Resource struct {
	Name string
	// Served is false while the resource is not served (a CRD removed): 404.
	Served bool
	objs   map[string]Object
	log    []Change
	// at is the state at atRev when the log was atLen long (all).
	at    []Object
	atRev int64
	atLen int
}

// Cluster is etcd and its apiservers. UID is the cluster's identity (the
// kube-system namespace's UID).
type Cluster struct {
	UID       string
	rev       int64
	compacted int64
	uids      int
	resources map[string]*Resource
	Servers   []*Server
}

// New returns a cluster named uid serving resources, with n apiservers whose
// caches start at etcd's revision.
func New(uid string, n int, resources ...string) *Cluster {
	c := &Cluster{UID: uid, rev: 1, resources: map[string]*Resource{}}
	for _, r := range resources {
		c.resources[r] = &Resource{Name: r, Served: true, objs: map[string]Object{}}
	}
	for i := range n {
		c.Servers = append(c.Servers, newServer(fmt.Sprintf("apiserver-%d", i), c))
	}
	return c
}

// Rev is etcd's current revision.
func (c *Cluster) Rev() int64 { return c.rev }

// Compacted is the revision of etcd's last compaction: no watch or continue
// may start before it.
func (c *Cluster) Compacted() int64 { return c.compacted }

// Resource returns the named resource.
func (c *Cluster) Resource(name string) *Resource {
	r, ok := c.resources[name]
	if !ok {
		panic("sim: unknown resource " + name)
	}
	return r
}

// Compact compacts etcd at its current revision.
func (c *Cluster) Compact() { c.compacted = c.rev }

func (c *Cluster) write(r *Resource, t EventType, o Object, prev *Object) Change {
	c.rev++
	o.Rev = c.rev
	ch := Change{Type: t, Rev: c.rev, Obj: o, Prev: prev}
	r.log = append(r.log, ch)
	if t == Deleted {
		delete(r.objs, o.ID())
	} else {
		r.objs[o.ID()] = o
	}
	return ch
}

// Create creates ns/name with a new UID; it updates the object if it exists.
func (c *Cluster) Create(res, ns, name, app, phase string) Change {
	r := c.Resource(res)
	if old, ok := r.objs[ns+"/"+name]; ok {
		return c.Update(res, old.ID(), func(o *Object) { o.App, o.Phase = app, phase })
	}
	c.uids++
	o := Object{Namespace: ns, Name: name, UID: fmt.Sprintf("%.8s-0000-4000-8000-%012x", c.UID, c.uids), App: app, Phase: phase}
	return c.write(r, Added, o, nil)
}

// Update changes the object id with mutate; false if it does not exist.
func (c *Cluster) Update(res, id string, mutate func(*Object)) Change {
	r := c.Resource(res)
	old, ok := r.objs[id]
	if !ok {
		return Change{}
	}
	o := old
	mutate(&o)
	o.Gen++
	return c.write(r, Modified, o, &old)
}

// Delete deletes the object id, if it exists.
func (c *Cluster) Delete(res, id string) Change {
	r := c.Resource(res)
	old, ok := r.objs[id]
	if !ok {
		return Change{}
	}
	return c.write(r, Deleted, old, &old)
}

// Remove stops serving res (a CRD deleted): its objects are deleted first.
func (c *Cluster) Remove(res string) {
	r := c.Resource(res)
	for _, id := range r.IDs() {
		c.Delete(res, id)
	}
	r.Served = false
}

// Restore serves res again, empty.
func (c *Cluster) Restore(res string) { c.Resource(res).Served = true }

// IDs returns the ids of the objects that exist now, sorted.
func (r *Resource) IDs() []string {
	ids := make([]string, 0, len(r.objs))
	for id := range r.objs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Len is the number of objects that exist now.
func (r *Resource) Len() int { return len(r.objs) }

// Current returns the object id as it is now.
func (r *Resource) Current(id string) (Object, bool) {
	o, ok := r.objs[id]
	return o, ok
}

// At returns the objects that existed at revision rev and that sel selects,
// sorted by id: the current state with every later change undone.
func (r *Resource) At(rev int64, sel Selector) []Object {
	all := r.all(rev)
	out := make([]Object, 0, len(all))
	for _, o := range all {
		if sel.Matches(o) {
			out = append(out, o)
		}
	}
	return out
}

// all is every object at rev, sorted by id; the last answer is kept until the
// history grows.
func (r *Resource) all(rev int64) []Object {
	if r.at != nil && r.atRev == rev && r.atLen == len(r.log) {
		return r.at
	}
	state := make(map[string]Object, len(r.objs))
	for id, o := range r.objs {
		state[id] = o
	}
	for i := len(r.log) - 1; i >= 0 && r.log[i].Rev > rev; i-- {
		ch := r.log[i]
		if ch.Prev == nil {
			delete(state, ch.Obj.ID())
		} else {
			state[ch.Prev.ID()] = *ch.Prev
		}
	}
	out := make([]Object, 0, len(state))
	for _, o := range state {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b Object) int { return strings.Compare(a.ID(), b.ID()) })
	r.at, r.atRev, r.atLen = out, rev, len(r.log)
	return out
}

// Get returns the object id as it was at revision rev, whatever a selector
// says: a GET carries none.
func (r *Resource) Get(id string, rev int64) (Object, bool) {
	o, ok := r.objs[id]
	for i := len(r.log) - 1; i >= 0 && r.log[i].Rev > rev; i-- {
		ch := r.log[i]
		if ch.Obj.ID() != id {
			continue
		}
		if ch.Prev == nil {
			o, ok = Object{}, false
		} else {
			o, ok = *ch.Prev, true
		}
	}
	return o, ok
}

// ChangedAfter reports whether the object id has a change after rev.
func (r *Resource) ChangedAfter(id string, rev int64) bool {
	for i := len(r.log) - 1; i >= 0 && r.log[i].Rev > rev; i-- {
		if r.log[i].Obj.ID() == id {
			return true
		}
	}
	return false
}

// Next is the first change after pos and up to upto that a watch with sel
// sends, as the watch cache sends it: a change into the selector is Added, out
// of it Deleted (the object before the change, at the change's revision). skipped
// is how far the watch got past changes it does not send, when none is sent.
func (r *Resource) Next(pos, upto int64, sel Selector) (ev Change, ok bool, skipped int64) {
	i, _ := slices.BinarySearchFunc(r.log, pos+1, func(c Change, rev int64) int {
		switch {
		case c.Rev < rev:
			return -1
		case c.Rev > rev:
			return 1
		}
		return 0
	})
	skipped = pos
	for ; i < len(r.log) && r.log[i].Rev <= upto; i++ {
		ch := r.log[i]
		cur := ch.Type != Deleted && sel.Matches(ch.Obj)
		old := ch.Prev != nil && sel.Matches(*ch.Prev)
		switch {
		case cur && !old:
			return Change{Type: Added, Rev: ch.Rev, Obj: ch.Obj}, true, pos
		case cur && old:
			return Change{Type: Modified, Rev: ch.Rev, Obj: ch.Obj}, true, pos
		case old:
			gone := *ch.Prev
			gone.Rev = ch.Rev
			return Change{Type: Deleted, Rev: ch.Rev, Obj: gone}, true, pos
		}
		skipped = ch.Rev
	}
	return Change{}, false, skipped
}
