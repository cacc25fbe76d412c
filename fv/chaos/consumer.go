package chaos

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/syncer"
)

// consumer is the syncer's Callbacks: a consistency.Mirror that a SlowConsumer
// fault can block in OnUpdates, and that counts the updates it saw, the calls it
// held, and when each canary object came (fired.go).
type consumer struct {
	*consistency.Mirror

	mu       sync.Mutex
	blocked  chan struct{} // non-nil while slow; closed when it ends
	updates  int
	held     int         // calls that found the consumer slow
	resumed  []time.Time // when each of them went on
	canaryAt map[string]time.Time
}

// OnUpdates implements syncer.Callbacks: it waits while the consumer is slow.
func (c *consumer) OnUpdates(ups []syncer.Update) {
	c.mu.Lock()
	block := c.blocked
	c.updates += len(ups)
	if block != nil {
		c.held++
	}
	c.mu.Unlock()
	if block != nil {
		<-block
	}
	c.Mirror.OnUpdates(ups)
	c.mu.Lock()
	defer c.mu.Unlock()
	if block != nil {
		c.resumed = append(c.resumed, time.Now())
	}
	for _, u := range ups {
		if _, ok := c.canaryAt[u.Key.Name]; !ok && strings.HasPrefix(u.Key.Name, canaryPrefix) {
			c.canaryAt[u.Key.Name] = time.Now()
		}
	}
}

// heldCalls is how many calls found the consumer slow so far.
func (c *consumer) heldCalls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held
}

// resumedWithin reports whether a held call went on between from and until.
func (c *consumer) resumedWithin(from, until time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.ContainsFunc(c.resumed, func(t time.Time) bool { return !t.Before(from) && !t.After(until) })
}

// canaries returns when each canary object was first delivered.
func (c *consumer) canaries() map[string]time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.canaryAt)
}

// slow blocks OnUpdates until the returned function is called.
func (c *consumer) slow() (resume func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	if c.blocked == nil {
		c.blocked = ch
	}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.blocked == ch {
			close(ch)
			c.blocked = nil
		}
	}
}

func (c *consumer) seen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.updates
}
