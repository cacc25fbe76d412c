package ha

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Consumer is a syncer's Callbacks: a consistency.Mirror that also checks,
// per key, that the revisions of its New and Updated updates increase. A
// Deleted forgets the key, so a New after it may come at any revision.
// Revisions are compared as numbers: opaque to kubesync, they are etcd's
// revisions on the apiserver the specs run.
type Consumer struct {
	*consistency.Mirror

	mu        sync.Mutex
	last      map[resources.Key]uint64
	backwards []string
}

// NewConsumer returns a Consumer that has seen nothing.
func NewConsumer() *Consumer {
	return &Consumer{Mirror: consistency.NewMirror(), last: map[resources.Key]uint64{}}
}

// OnUpdates implements syncer.Callbacks.
func (c *Consumer) OnUpdates(ups []syncer.Update) {
	c.mu.Lock()
	for _, u := range ups {
		if u.UpdateType == syncer.KVDeleted {
			delete(c.last, u.Key)
			continue
		}
		rev, err := strconv.ParseUint(u.Revision, 10, 64)
		if err != nil {
			c.backwards = append(c.backwards, fmt.Sprintf("%s %s at revision %q, not a number", u.UpdateType, u.Key, u.Revision))
			continue
		}
		if prev, ok := c.last[u.Key]; ok && rev <= prev {
			c.backwards = append(c.backwards, fmt.Sprintf("%s %s at revision %d after %d", u.UpdateType, u.Key, rev, prev))
		}
		c.last[u.Key] = max(rev, c.last[u.Key])
	}
	c.mu.Unlock()
	c.Mirror.OnUpdates(ups)
}

// Backwards returns every update whose revision did not increase on the
// key's last one, in the order they came.
func (c *Consumer) Backwards() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.backwards)
}
