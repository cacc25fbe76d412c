package checkpoint

import (
	"encoding/binary"
	"fmt"
	"maps"
	"time"

	bolt "go.etcd.io/bbolt"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// changes are one type's changes noted since the last write: the newest per object
// (a nil obj deletes it) and the newest revision.
type changes struct {
	cleared bool // every object written before is gone; objs are on top
	objs    map[string]change
	rev     string
	hasRev  bool
	revAt   time.Time // when rev was noted: the type's view was confirmed then
}

// change is an object's newest note: decoded (obj), or as its lazy value held
// it (lazy, with its uid); neither is a deletion.
type change struct {
	rev  string
	obj  runtime.Object
	lazy []byte
	uid  types.UID
}

func (ch change) deleted() bool { return ch.obj == nil && ch.lazy == nil }

func (c *changes) setRev(rev string) { c.rev, c.hasRev, c.revAt = rev, true, time.Now() }

// changesOf returns typeName's pending changes; s.mu is held.
func (s *Store) changesOf(typeName string) *changes {
	c := s.pending[typeName]
	if c == nil {
		c = &changes{objs: map[string]change{}}
		s.pending[typeName] = c
	}
	return c
}

// Record notes that the object id of typeName is obj at rev. obj is encoded later,
// in the background, and must not be modified meanwhile.
func (s *Store) Record(typeName, id, rev string, obj runtime.Object) {
	s.note(typeName, func(c *changes) { c.objs[id] = change{rev: rev, obj: obj} })
}

// RecordLazy notes that the object id of typeName, whose UID is uid, is encoded
// at rev: the bytes of its lazy value (syncer.LazyRecorder), kept as they are,
// not decoded, and read back into PersistedObject.Encoded. They must not be
// modified meanwhile.
func (s *Store) RecordLazy(typeName, id, rev string, uid types.UID, encoded []byte) {
	s.note(typeName, func(c *changes) { c.objs[id] = change{rev: rev, lazy: encoded, uid: uid} })
}

// Delete notes that the object id of typeName is gone.
func (s *Store) Delete(typeName, id string) {
	s.note(typeName, func(c *changes) { c.objs[id] = change{} })
}

// Clear notes that typeName holds no object any more, and must list again after a
// restart until a revision is noted.
func (s *Store) Clear(typeName string) {
	s.note(typeName, func(c *changes) {
		c.cleared, c.objs = true, map[string]change{}
		c.setRev("")
	})
}

// Revision notes that typeName's watch reached rev with every change before it
// noted. "" means the type must list again after a restart.
func (s *Store) Revision(typeName, rev string) {
	s.note(typeName, func(c *changes) { c.setRev(rev) })
}

func (s *Store) note(typeName string, fn func(*changes)) {
	if _, ok := s.types[typeName]; !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.changesOf(typeName))
	s.signal()
}

// signal wakes the writer; s.mu is held.
func (s *Store) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// writeLoop writes pending changes when there are some, at most once per
// interval, and a last time at Close.
func (s *Store) writeLoop() {
	defer close(s.done)
	var last time.Time
	for {
		select {
		case <-s.stop:
			s.write()
			return
		case <-s.wake:
		}
		if wait := s.cfg.interval - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-s.stop:
				t.Stop()
				s.write()
				return
			case <-t.C:
			}
		}
		s.write()
		last = time.Now()
	}
}

// Flush writes what is pending now. The background writer does this on its own;
// Flush serves tests and callers that want a write at a point of their choosing.
func (s *Store) Flush() error { return s.write() }

// write takes every pending change and writes it in one transaction. The changes
// are taken together, so the revisions written match the objects written. If the
// write fails they are put back under any change noted since, and retried at the
// next write.
func (s *Store) write() error {
	// One write at a time, in the order the batches were taken: an older batch
	// committed after a newer one would put old objects under a new revision.
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	batch, hdr, hdrDirty := s.pending, s.hdr, s.hdrDirty
	s.pending, s.hdrDirty = map[string]*changes{}, false
	s.mu.Unlock()
	if len(batch) == 0 && !hdrDirty {
		return nil
	}
	recs, kinds, unencodable := s.encode(batch)
	missing, revs := s.fileAfter(batch, unencodable)
	err := s.db.Update(func(tx *bolt.Tx) error {
		if err := writeHeader(tx, hdr, time.Now()); err != nil {
			return err
		}
		all := tx.Bucket(bucketTypes)
		for name, c := range batch {
			if err := writeType(all, name, c, recs[name], kinds, missing[name], revs[name]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.putBack(batch, hdrDirty)
		s.log.WithError(err).Warn("Writing the checkpoint failed; retrying at the next write")
		return fmt.Errorf("checkpoint: writing %s: %w", s.path, err)
	}
	for name := range batch {
		s.missing[name], s.revs[name] = missing[name], revs[name]
	}
	s.mu.Lock()
	s.writes++
	s.mu.Unlock()
	return nil
}

// fileAfter is what the file will hold of each type of batch once it is written:
// the ids whose newest record could not be encoded, and the newest revision
// noted. While an id is missing the type's revision stays out of the file, in
// every later write too, so a restart lists the type instead of watching on
// without the object.
func (s *Store) fileAfter(batch map[string]*changes, unencodable map[string]map[string]bool) (map[string]map[string]bool, map[string]string) {
	missing := make(map[string]map[string]bool, len(batch))
	revs := make(map[string]string, len(batch))
	for name, c := range batch {
		m := map[string]bool{}
		if !c.cleared {
			maps.Copy(m, s.missing[name])
		}
		for id := range c.objs {
			if unencodable[name][id] {
				m[id] = true
			} else {
				delete(m, id)
			}
		}
		missing[name], revs[name] = m, s.revs[name]
		if c.hasRev {
			revs[name] = c.rev
		}
	}
	return missing, revs
}

// objectsFill is how full a page of records is written: bbolt's default, half,
// left a fleet agent's records of about 1 KB two to a page (41% full), so that a
// warm start's consistency check and read walked twice the pages. A write's
// records go into pages in one pass at its commit, whatever their order, and a
// later change that overflows a page splits it: 0.9 keeps room for a record that
// grows a little.
const objectsFill = 0.9

// writeType writes one type's changes: its kind, its records (nil deletes one)
// and its revision, or none while an object is missing.
func writeType(all *bolt.Bucket, name string, c *changes, recs map[string][]byte,
	kinds map[string]schema.GroupVersionKind, missing map[string]bool, rev string) error {
	b, err := all.CreateBucketIfNotExists([]byte(name))
	if err != nil {
		return err
	}
	if gvk, ok := kinds[name]; ok {
		if err := b.Put(keyKind, formatKind(gvk)); err != nil {
			return err
		}
	}
	if c.cleared && b.Bucket(bucketObjects) != nil {
		if err := b.DeleteBucket(bucketObjects); err != nil {
			return err
		}
	}
	objs, err := b.CreateBucketIfNotExists(bucketObjects)
	if err != nil {
		return err
	}
	objs.FillPercent = objectsFill
	for id, rec := range recs {
		if rec == nil {
			err = objs.Delete([]byte(id))
		} else {
			err = objs.Put([]byte(id), rec)
		}
		if err != nil {
			return err
		}
	}
	if len(missing) > 0 {
		// A missing object would be lost by a restart that watches on: list.
		return b.Put(keyRev, nil)
	}
	if err := writeRevAt(b, c, rev); err != nil {
		return err
	}
	return b.Put(keyRev, []byte(rev))
}

// writeRevAt records when the type's revision was noted, when this write moves
// it: a warm start counts the resumed view's age from then. A revision carried
// over from an earlier write keeps its time.
func writeRevAt(b *bolt.Bucket, c *changes, rev string) error {
	if !c.hasRev || c.rev != rev || rev == "" {
		return nil
	}
	return b.Put(keyRevAt, binary.LittleEndian.AppendUint64(nil, uint64(c.revAt.UnixNano())))
}

// encode encodes every noted object; nil stands for a deletion. A type with an
// object that cannot be encoded is reported in unencodable, logged once.
func (s *Store) encode(batch map[string]*changes) (map[string]map[string][]byte, map[string]schema.GroupVersionKind, map[string]map[string]bool) {
	recs := make(map[string]map[string][]byte, len(batch))
	kinds := map[string]schema.GroupVersionKind{}
	unencodable := map[string]map[string]bool{}
	for name, c := range batch {
		m := make(map[string][]byte, len(c.objs))
		recs[name] = m
		for id, ch := range c.objs {
			switch {
			case ch.deleted():
				m[id] = nil
				continue
			case ch.obj == nil:
				m[id] = encodeLazy(ch.rev, ch.uid, ch.lazy)
				continue
			}
			rec, err := encodeRecord(ch.rev, ch.obj)
			if err != nil {
				m[id] = nil
				if unencodable[name] == nil {
					unencodable[name] = map[string]bool{}
				}
				unencodable[name][id] = true
				s.mu.Lock()
				warn := !s.warned[name]
				s.warned[name] = true
				s.mu.Unlock()
				if warn {
					s.log.WithError(err).WithField("type", name).Warn("Object cannot be checkpointed; this type will list after a restart")
				}
				continue
			}
			m[id] = rec
			if _, done := kinds[name]; !done {
				if gvk, ok := kindOf(ch.obj); ok {
					kinds[name] = gvk
				}
			}
		}
	}
	return recs, kinds, unencodable
}

// putBack returns a failed batch to the pending changes, under those noted since.
func (s *Store) putBack(batch map[string]*changes, hdrDirty bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hdrDirty = s.hdrDirty || hdrDirty
	for name, old := range batch {
		cur := s.pending[name]
		if cur == nil {
			s.pending[name] = old
			continue
		}
		if !cur.cleared {
			maps.Copy(old.objs, cur.objs)
			cur.objs, cur.cleared = old.objs, old.cleared
		}
		if !cur.hasRev {
			cur.rev, cur.hasRev, cur.revAt = old.rev, old.hasRev, old.revAt
		}
	}
}

// Writes is how many background or explicit writes succeeded.
func (s *Store) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}
