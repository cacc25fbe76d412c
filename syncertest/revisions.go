package syncertest

import "sync/atomic"

// Revisions is a revision counter that fake resources can share, as every
// resource of a cluster shares etcd's one revision: a list or bookmark of any
// type then reports the cluster's current revision, and a revision of one type
// can be compared with another's. It is safe for concurrent use.
type Revisions struct{ n atomic.Uint64 }

// NewRevisions returns a counter at revision 1.
func NewRevisions() *Revisions {
	c := &Revisions{}
	c.n.Store(1)
	return c
}

// Current is the last revision handed out.
func (c *Revisions) Current() uint64 { return c.n.Load() }

func (c *Revisions) next() uint64 { return c.n.Add(1) }

// ResourceOption configures a fake Resource.
type ResourceOption func(*Resource)

// SharingRevisions makes the resource take its revisions from c. Default: a
// counter of its own.
func SharingRevisions(c *Revisions) ResourceOption { return func(r *Resource) { r.clock = c } }
