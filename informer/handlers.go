package informer

import (
	"context"
	"errors"
	"time"

	"k8s.io/client-go/tools/cache"
)

// minimumResync is client-go's floor of a handler's resync period.
const minimumResync = time.Second

// AddEventHandler adds a handler with the informer's default resync period
// (WithResyncPeriod). Added after the informer has started, the handler first
// gets an Add (isInInitialList true) for every object held.
func (inf *Informer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return inf.addHandler(h, inf.opts.resync)
}

// AddEventHandlerWithResyncPeriod adds a handler that, every period, gets an
// Update with the same object as old and new for every object held. A period
// under a second is a second, as in client-go.
func (inf *Informer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, period time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return inf.addHandler(h, period)
}

// AddEventHandlerWithOptions adds a handler with options.ResyncPeriod, or the
// default period if nil; the Logger option is not used.
func (inf *Informer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, o cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	period := inf.opts.resync
	if o.ResyncPeriod != nil {
		period = *o.ResyncPeriod
	}
	return inf.addHandler(h, period)
}

// RemoveEventHandler stops the handler of a registration: it gets nothing more.
func (inf *Informer) RemoveEventHandler(reg cache.ResourceEventHandlerRegistration) error {
	l, ok := reg.(*listener)
	if !ok {
		return errors.New("informer: not a registration of this informer")
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	for i, x := range inf.listeners {
		if x == l {
			inf.listeners = append(inf.listeners[:i], inf.listeners[i+1:]...)
			l.stop()
			return nil
		}
	}
	return nil
}

func (inf *Informer) addHandler(h cache.ResourceEventHandler, period time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	if period > 0 && period < minimumResync {
		period = minimumResync
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.stopped {
		return nil, errors.New("informer: handler not added: the informer has stopped")
	}
	l := newListener(h, period)
	inf.listeners = append(inf.listeners, l)
	if inf.started {
		for _, obj := range inf.indexer.List() { // under inf.mu: no batch lands meanwhile
			l.add(notification{kind: added, newObj: obj, initial: true})
		}
		inf.startListener(inf.ctx, l)
	}
	return l, nil
}

// startListener runs l and its resyncs; the caller holds inf.mu.
func (inf *Informer) startListener(ctx context.Context, l *listener) {
	go l.run()
	if inf.latch.HasSynced() {
		l.synced()
	}
	if l.resync > 0 {
		go inf.resyncLoop(ctx, l)
	}
}

func (inf *Informer) resyncLoop(ctx context.Context, l *listener) {
	t := time.NewTicker(l.resync)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.done:
			return
		case <-t.C:
			inf.resync(l)
		}
	}
}

// resync sends l an Update(obj, obj) of every object held.
func (inf *Informer) resync(l *listener) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	for _, obj := range inf.indexer.List() {
		l.add(notification{kind: updated, oldObj: obj, newObj: obj})
	}
}

// markSynced records that the informer has synced, after the initial list's
// updates were applied (the syncer reports InSync after them).
func (inf *Informer) markSynced() {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	_ = inf.latch.Replace(nil, "")
	for _, l := range inf.listeners {
		l.synced()
	}
}
