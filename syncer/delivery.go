package syncer

// delivery is one callback call waiting for the consumer. The queue of deliveries is
// FIFO, which is what flushes pending updates before a later status change. The
// marker method seals the union: only the kinds below, and resumedSignal
// (resume.go), are deliveries.
type delivery interface{ isDelivery() }

// statusChange is a call to OnStatusUpdated.
type statusChange struct{ status SyncStatus }

// updateBatch is a call to OnUpdates. A whole batch carries a relist: it is
// delivered in one call, so nothing is ever appended to it.
type updateBatch struct {
	updates []Update
	whole   bool
	// confirms: revisions the types reached once these updates are delivered (waitfor.go).
	confirms []confirmed
}

// parseFailure is a call to OnParseFailed.
type parseFailure struct {
	typeName string
	object   any
	err      error
}

// syncFailure is a call to OnSyncFailed.
type syncFailure struct {
	typeName string
	err      error
}

// syncRecovery is a call to OnSyncRecovered.
type syncRecovery struct{ typeName string }

func (statusChange) isDelivery() {}
func (*updateBatch) isDelivery() {}
func (parseFailure) isDelivery() {}
func (syncFailure) isDelivery()  {}
func (syncRecovery) isDelivery() {}

func (s *Syncer) enqueue(d delivery) {
	s.beforeDelivery(d) // liveness.go: no updates under WaitForDatastore
	s.queue = append(s.queue, d)
	switch d := d.(type) {
	case *updateBatch:
		s.queued += len(d.updates)
	case syncFailure:
		s.publishFailure(d)
	}
}

// enqueueUpdates adds updates to the queue in batches of at most maxBatch, filling
// the last queued batch first: while the consumer is busy, updates coalesce. It
// takes ups: a new batch is a part of it, which the caller must not use again.
func (s *Syncer) enqueueUpdates(ups []Update) {
	for len(ups) > 0 {
		if last := s.openBatch(); last != nil {
			k := min(s.cfg.maxBatch-len(last.updates), len(ups))
			last.updates = append(last.updates, ups[:k]...)
			s.queued += k
			ups = ups[k:]
			continue
		}
		// ups itself, exactly k long: a consumer that keeps up takes most
		// batches as they are made, one object's updates each, which the step
		// made for them; a copy, or room for more, would be garbage at every
		// object of a sync. A batch that waits grows by append, into an array
		// of its own.
		k := min(s.cfg.maxBatch, len(ups))
		s.enqueue(&updateBatch{updates: ups[:k:k]})
		ups = ups[k:]
	}
}

// openBatch is the last queued delivery if more updates may join it.
func (s *Syncer) openBatch() *updateBatch {
	if len(s.queue) == 0 {
		return nil
	}
	b, ok := s.queue[len(s.queue)-1].(*updateBatch)
	if !ok || b.whole || len(b.updates) >= s.cfg.maxBatch {
		return nil
	}
	return b
}

// deliver calls the consumer, one delivery at a time, until the loop closes the
// channel or Stop is called: the callback in progress is then the last one.
func (s *Syncer) deliver() {
	h := s.handlers()
	for d := range s.deliveries {
		if s.stopped.Load() {
			return
		}
		s.deliverOne(h, d)
	}
}

// handlers are the optional callback interfaces cb implements.
type handlers struct {
	parse    ParseFailureHandler
	syncFail SyncFailureHandler
}

func (s *Syncer) handlers() handlers {
	var h handlers
	h.parse, _ = s.cb.(ParseFailureHandler)
	h.syncFail, _ = s.cb.(SyncFailureHandler)
	return h
}

// deliverOne makes the callback call that d stands for.
func (s *Syncer) deliverOne(h handlers, d delivery) {
	switch d := d.(type) {
	case statusChange:
		s.cb.OnStatusUpdated(d.status)
	case *updateBatch:
		s.cb.OnUpdates(d.updates)
		s.delivered(d.confirms)
	case *confirmMark:
		s.delivered(d.confirms)
	case parseFailure:
		if h.parse != nil {
			h.parse.OnParseFailed(d.typeName, d.object, d.err)
		}
	case syncFailure:
		if h.syncFail != nil {
			h.syncFail.OnSyncFailed(d.typeName, d.err)
		}
	case syncRecovery:
		if h.syncFail != nil {
			h.syncFail.OnSyncRecovered(d.typeName)
		}
	case resumedSignal:
		s.deliverResumed(d.Resumed)
	}
}
