package snapshot

import (
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// pendingSet is the changes a subscriber has not been handed yet, at most one per
// key. It is sized by what is pending: the zero value is empty and allocates
// nothing, and a set that was handed on is replaced by a fresh one, never
// cleared, because a cleared Go map keeps its buckets.
type pendingSet struct {
	updates []syncer.Update
	// index maps a key to its position in updates. Small sets have none and
	// are scanned instead.
	index map[resources.Key]int
}

// indexAbove is the size past which a set indexes its keys.
const indexAbove = 16

func (p *pendingSet) len() int { return len(p.updates) }

// retained is how many update slots and index entries the set holds allocated.
func (p *pendingSet) retained() int { return cap(p.updates) + len(p.index) }

func (p *pendingSet) find(k resources.Key) (int, bool) {
	if p.index != nil {
		i, ok := p.index[k]
		return i, ok
	}
	for i := range p.updates {
		if p.updates[i].Key == k {
			return i, true
		}
	}
	return 0, false
}

// add merges one change into the set. Applied after what the subscriber has
// already seen, the set gives the same state as every change one by one:
// New then Deleted cancel out, Deleted then New is Updated, New then Updated stays
// New, and otherwise the latest change wins.
func (p *pendingSet) add(u syncer.Update) {
	i, ok := p.find(u.Key)
	if !ok {
		p.updates = append(p.updates, u)
		switch {
		case p.index != nil:
			p.index[u.Key] = len(p.updates) - 1
		case len(p.updates) > indexAbove:
			p.index = make(map[resources.Key]int, 2*len(p.updates))
			for j := range p.updates {
				p.index[p.updates[j].Key] = j
			}
		}
		return
	}
	prev := p.updates[i].UpdateType
	switch {
	case prev == syncer.KVNew && u.UpdateType == syncer.KVDeleted:
		p.removeAt(i) // never seen by the subscriber: nothing to tell
		return
	case prev == syncer.KVNew:
		u.UpdateType = syncer.KVNew
	case prev == syncer.KVDeleted && u.UpdateType == syncer.KVNew:
		u.UpdateType = syncer.KVUpdated
	}
	p.updates[i] = u
}

// removeAt drops position i by moving the last update into it: keys are unique
// in a set, so their order does not matter to the state they give.
func (p *pendingSet) removeAt(i int) {
	last := len(p.updates) - 1
	if p.index != nil {
		delete(p.index, p.updates[i].Key)
	}
	if i != last {
		p.updates[i] = p.updates[last]
		if p.index != nil {
			p.index[p.updates[i].Key] = i
		}
	}
	p.updates[last] = syncer.Update{} // let the value go
	p.updates = p.updates[:last]
}
