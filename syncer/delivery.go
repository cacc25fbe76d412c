package syncer

// delivery is one callback call waiting for the consumer. The queue of deliveries is
// FIFO, which is what flushes pending updates before a later status change.
type delivery struct {
	updates []Update
	// whole marks the batch of a relist: it is delivered in one call, so nothing is
	// ever appended to it.
	whole bool

	isStatus bool
	status   SyncStatus

	typeName string
	object   any
	err      error
	failure  deliveryFailure
}

type deliveryFailure uint8

const (
	noFailure deliveryFailure = iota
	parseFailure
	syncFailure
)

func (s *Syncer) enqueue(d delivery) {
	s.queue = append(s.queue, d)
	s.queued += len(d.updates)
}

// enqueueUpdates adds updates to the queue in batches of at most maxBatch, filling
// the last queued batch first: while the consumer is busy, updates coalesce.
func (s *Syncer) enqueueUpdates(ups []Update) {
	for len(ups) > 0 {
		if n := len(s.queue); n > 0 {
			last := &s.queue[n-1]
			if !last.isStatus && last.failure == noFailure && !last.whole && len(last.updates) < s.cfg.maxBatch {
				k := min(s.cfg.maxBatch-len(last.updates), len(ups))
				last.updates = append(last.updates, ups[:k]...)
				s.queued += k
				ups = ups[k:]
				continue
			}
		}
		k := min(s.cfg.maxBatch, len(ups))
		batch := make([]Update, k, min(s.cfg.maxBatch, max(k, 16)))
		copy(batch, ups[:k])
		s.enqueue(delivery{updates: batch})
		ups = ups[k:]
	}
}

// deliver calls the consumer, one delivery at a time, until the loop closes the
// channel.
func (s *Syncer) deliver() {
	parse, _ := s.cb.(ParseFailureHandler)
	syncFail, _ := s.cb.(SyncFailureHandler)
	for d := range s.deliveries {
		switch {
		case d.isStatus:
			s.cb.OnStatusUpdated(d.status)
		case d.failure == parseFailure:
			if parse != nil {
				parse.OnParseFailed(d.typeName, d.object, d.err)
			}
		case d.failure == syncFailure:
			if syncFail != nil {
				syncFail.OnSyncFailed(d.typeName, d.err)
			}
		default:
			s.cb.OnUpdates(d.updates)
		}
	}
}
