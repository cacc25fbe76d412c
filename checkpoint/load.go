package checkpoint

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// open opens the file and loads it; a corrupt file is moved aside and replaced.
func (s *Store) open() (*syncer.Persisted, error) {
	db, err := s.openDB()
	if err == nil {
		s.db = db
		var snap *syncer.Persisted
		if snap, err = s.load(); err == nil {
			return snap, nil
		}
		_ = db.Close()
	}
	if !errors.Is(err, errCorrupt) {
		return nil, err
	}
	s.log.WithError(err).Warn("Checkpoint is corrupt; moved aside, starting cold")
	if err := os.Rename(s.path, s.path+".corrupt"); err != nil {
		return nil, fmt.Errorf("checkpoint: moving the corrupt %s aside: %w", s.path, err)
	}
	if s.db, err = s.openDB(); err != nil {
		return nil, err
	}
	return nil, s.reset()
}

var errCorrupt = errors.New("corrupt")

func (s *Store) openDB() (db *bolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil { // bbolt panics on some damaged pages
			db, err = nil, fmt.Errorf("%w: %v", errCorrupt, r)
		}
	}()
	db, err = bolt.Open(s.path, 0o600, &bolt.Options{Timeout: s.cfg.lockWait})
	switch {
	case err == nil:
		return db, nil
	// bolt's own ErrTimeout and the rest, not go.etcd.io/bbolt/errors': that
	// package came with bbolt v1.4, whose go.mod requires cobra, and the
	// library's go.mod requires v1.3, so that an importer's module graph has
	// no cobra. From v1.4 on they are the same errors.
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("checkpoint: %s is in use by another process", s.path)
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrChecksum),
		errors.Is(err, bolt.ErrVersionMismatch), errors.Is(err, bolt.ErrInvalidMapping):
		return nil, fmt.Errorf("%w: %w", errCorrupt, err)
	}
	// bbolt reports some damage as a plain error: a file too small or unreadable
	// as a database. Anything but a failure to open the file itself is damage.
	var pe *os.PathError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return nil, fmt.Errorf("%w: %w", errCorrupt, err)
}

// load reads the whole checkpoint, or nothing: any damage is errCorrupt.
func (s *Store) load() (snap *syncer.Persisted, err error) {
	defer func() {
		if r := recover(); r != nil {
			snap, err = nil, fmt.Errorf("%w: %v", errCorrupt, r)
		}
	}()
	var old header
	found := false
	err = s.db.View(func(tx *bolt.Tx) error {
		var damage error
		for cerr := range tx.Check() { // drained: the checker stops only then
			damage = cmp.Or(damage, cerr)
		}
		if damage != nil {
			return fmt.Errorf("%w: %w", errCorrupt, damage)
		}
		meta := tx.Bucket(bucketMeta)
		if meta == nil || meta.Get(keyHeader) == nil {
			return nil
		}
		found = true
		js, ok := unseal(meta.Get(keyHeader))
		if !ok {
			return fmt.Errorf("%w: the header fails its checksum", errCorrupt)
		}
		if err := json.Unmarshal(js, &old); err != nil {
			return fmt.Errorf("%w: header: %w", errCorrupt, err)
		}
		if s.hdr.mismatch(old) != "" {
			return nil
		}
		if snap, err = s.loadTypes(tx); err == nil {
			snap.Written = readWritten(meta)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	switch {
	case !found:
		s.log.Info("No checkpoint yet; starting cold")
		return nil, s.reset()
	case snap == nil:
		s.log.WithField("reason", s.hdr.mismatch(old)).Warn("Checkpoint does not match; starting cold")
		return nil, s.reset()
	case empty(snap):
		s.log.Info("Checkpoint holds nothing to resume from; starting cold")
		return nil, nil
	}
	snap.Identity = syncer.ClusterIdentity(old.Identity)
	if old.Format != FormatVersion {
		s.hdrDirty = true // an older format, read: the next write says it is this one
	}
	if s.hdr.Identity.Cluster == "" {
		s.hdr.Identity.Cluster = old.Identity.Cluster // still to be confirmed
	} else if old.Identity.Cluster == "" {
		s.hdrDirty = true // confirmed now
	}
	return snap, nil
}

func (s *Store) loadTypes(tx *bolt.Tx) (*syncer.Persisted, error) {
	snap := &syncer.Persisted{Types: map[string]*syncer.PersistedType{}}
	all := tx.Bucket(bucketTypes)
	for name, t := range s.types {
		ts := &syncer.PersistedType{}
		snap.Types[name] = ts
		b := all.Bucket([]byte(name))
		if b == nil {
			continue // no record yet: the type lists
		}
		ts.Revision = string(b.Get(keyRev))
		if ts.Revision != "" {
			ts.Confirmed = readTime(b.Get(keyRevAt))
		}
		s.revs[name] = ts.Revision
		objs := b.Bucket(bucketObjects)
		if objs == nil {
			continue
		}
		var raw []rawRecord
		var ids []byte // every key, end to end: one string for them all
		if err := objs.ForEach(func(k, v []byte) error {
			raw = append(raw, rawRecord{key: k, val: v, lo: len(ids), hi: len(ids) + len(k)})
			ids = append(ids, k...)
			return nil
		}); err != nil {
			return nil, err
		}
		gvk := gvkOf(t)
		if k := b.Get(keyKind); k != nil {
			var ok bool
			if gvk, ok = parseKind(k); !ok {
				return nil, fmt.Errorf("%w: %s: kind %q", errCorrupt, name, k)
			}
		}
		var err error
		if ts.Objects, err = decodeAll(newDecoder(gvk), raw, string(ids)); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", errCorrupt, name, err)
		}
	}
	return snap, nil
}

// rawRecord is a record as bbolt holds it, and where its key is in the type's ids.
type rawRecord struct {
	key, val []byte
	lo, hi   int
}

// decodeAll decodes records on every core: it is most of a warm start's time.
// ids holds every record's key (rawRecord.lo, hi): each object's ID is a
// substring of it, not an allocation of its own.
func decodeAll(d decoder, raw []rawRecord, ids string) ([]syncer.PersistedObject, error) {
	out := make([]syncer.PersistedObject, len(raw))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(raw)/256))
	chunk := (len(raw) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(raw))
		// wg.Add and go, not wg.Go: the module's go line is 1.24, whose
		// WaitGroup has no Go.
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[w] = fmt.Errorf("%v", r)
				}
			}()
			for i := lo; i < hi; i++ {
				po, err := d.decodeRecord(raw[i].val)
				if err != nil {
					errs[w] = fmt.Errorf("object %s: %w", raw[i].key, err)
					return
				}
				po.ID = ids[raw[i].lo:raw[i].hi]
				out[i] = po
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// gvkOf is the group, version and kind of t's objects.
func gvkOf(t resources.Type) schema.GroupVersionKind {
	return t.GVR.GroupVersion().WithKind(schema.ParseGroupKind(t.Kind).Kind)
}

// readWritten is the time of the last write, zero if unknown.
func readWritten(meta *bolt.Bucket) time.Time { return readTime(meta.Get(keyWritten)) }

// readTime reads a time as the Store writes it, zero if there is none.
func readTime(b []byte) time.Time {
	if len(b) != 8 {
		return time.Time{}
	}
	return time.Unix(0, int64(binary.LittleEndian.Uint64(b)))
}

// empty reports a snapshot with no object and no revision: nothing to resume.
func empty(p *syncer.Persisted) bool {
	for _, t := range p.Types {
		if t.Revision != "" || len(t.Objects) > 0 {
			return false
		}
	}
	return true
}
