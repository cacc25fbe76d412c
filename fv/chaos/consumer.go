package chaos

import (
	"sync"

	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/syncer"
)

// consumer is the syncer's Callbacks: a consistency.Mirror that a SlowConsumer
// fault can block in OnUpdates, and that counts the updates it saw.
type consumer struct {
	*consistency.Mirror

	mu      sync.Mutex
	blocked chan struct{} // non-nil while slow; closed when it ends
	updates int
}

// OnUpdates implements syncer.Callbacks: it waits while the consumer is slow.
func (c *consumer) OnUpdates(ups []syncer.Update) {
	c.mu.Lock()
	block := c.blocked
	c.updates += len(ups)
	c.mu.Unlock()
	if block != nil {
		<-block
	}
	c.Mirror.OnUpdates(ups)
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
