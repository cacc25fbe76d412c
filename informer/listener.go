package informer

import (
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
)

// notification is one call to a handler.
type notification struct {
	kind    uint8 // added, updated or deleted
	oldObj  interface{}
	newObj  interface{}
	initial bool // an Add of the initial list
}

const (
	added uint8 = iota
	updated
	deleted
)

// doneLatch is client-go's FIFO used as a one-way latch: it reports HasSynced
// (and, in client-go versions that have it, HasSyncedChecker) once Replace has
// been called with nothing. Being client-go's own type, it satisfies the
// registration and controller interfaces of every client-go version.
type doneLatch = cache.ResourceEventHandlerRegistration

func newLatch() *cache.FIFO { return cache.NewFIFO(cache.MetaNamespaceKeyFunc) }

// listener delivers notifications to one handler, in order, from its own
// goroutine, with an unbounded queue: a slow handler delays only itself.
type listener struct {
	doneLatch // HasSynced: the informer synced and the initial Adds delivered

	handler cache.ResourceEventHandler
	latch   *cache.FIFO
	resync  time.Duration

	mu       sync.Mutex
	cond     *sync.Cond
	queue    []notification
	initial  int  // initial-list Adds queued and not yet delivered
	upstream bool // the informer has synced
	stopped  bool
	done     chan struct{}
}

func newListener(h cache.ResourceEventHandler, resync time.Duration) *listener {
	latch := newLatch()
	l := &listener{doneLatch: latch, handler: h, latch: latch, resync: resync, done: make(chan struct{})}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// add queues n; a stopped listener drops it.
func (l *listener) add(n notification) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	if n.initial {
		l.initial++
	}
	l.queue = append(l.queue, n)
	l.cond.Signal()
}

// synced tells the listener that the informer has synced.
func (l *listener) synced() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.upstream = true
	l.checkSyncedLocked()
}

func (l *listener) checkSyncedLocked() {
	if l.upstream && l.initial == 0 {
		_ = l.latch.Replace(nil, "") // closes the latch; later calls change nothing
	}
}

func (l *listener) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	l.queue = nil
	l.cond.Signal()
}

// run delivers notifications until stop.
func (l *listener) run() {
	defer close(l.done)
	for {
		n, ok := l.next()
		if !ok {
			return
		}
		l.deliver(n)
		if n.initial {
			l.mu.Lock()
			l.initial--
			l.checkSyncedLocked()
			l.mu.Unlock()
		}
	}
}

func (l *listener) next() (notification, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.queue) == 0 && !l.stopped {
		l.cond.Wait()
	}
	if l.stopped {
		return notification{}, false
	}
	n := l.queue[0]
	l.queue[0] = notification{}
	l.queue = l.queue[1:]
	return n, true
}

func (l *listener) deliver(n notification) {
	switch n.kind {
	case added:
		l.handler.OnAdd(n.newObj, n.initial)
	case updated:
		l.handler.OnUpdate(n.oldObj, n.newObj)
	case deleted:
		l.handler.OnDelete(n.oldObj)
	}
}
