package syncertest

import (
	"fmt"
	"sync/atomic"
)

// Revisions is a revision counter that fake resources can share, as every
// resource of a cluster shares etcd's one revision: a list or bookmark of any
// type then reports the cluster's current revision, and a revision of one type
// can be compared with another's. The zero value is a counter at 0, whose first
// change is revision 1. It is safe for concurrent use.
type Revisions struct{ n atomic.Uint64 }

// NewRevisions returns a counter at revision 1.
func NewRevisions() *Revisions {
	c := &Revisions{}
	c.n.Store(1)
	return c
}

// Current is the last revision handed out.
func (c *Revisions) Current() uint64 { return c.n.Load() }

// Skip moves the counter forward to rev, as writes to resources no fake serves
// move a cluster's revision, so that the next change gets rev+1. It panics if rev
// is behind the current revision: revisions never go back.
func (c *Revisions) Skip(rev uint64) {
	for {
		cur := c.n.Load()
		if rev < cur {
			panic(fmt.Sprintf("syncertest: Skip to revision %d, behind the current %d", rev, cur))
		}
		if c.n.CompareAndSwap(cur, rev) {
			return
		}
	}
}

func (c *Revisions) next() uint64 { return c.n.Add(1) }
