package checkpoint

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/sirupsen/logrus"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/resources"
)

// Bucket layout: meta/header holds the header as JSON; types/NAME/rev the type's
// revision, types/NAME/kind the scheme kind of its protobuf records, and
// types/NAME/objects/ID one record per object.
var (
	bucketMeta    = []byte("meta")
	keyHeader     = []byte("header")
	bucketTypes   = []byte("types")
	keyRev        = []byte("rev")
	keyKind       = []byte("kind")
	bucketObjects = []byte("objects")
)

// Store is an open checkpoint. Its Record, Delete and Revision methods are cheap
// and safe for concurrent use; a background goroutine writes what they noted.
type Store struct {
	cfg   config
	path  string
	db    *bolt.DB
	log   logrus.FieldLogger
	types map[string]resources.Type

	wmu      sync.Mutex // held by a write from taking its batch to its commit
	mu       sync.Mutex
	pending  map[string]*changes // by type name
	hdr      header
	hdrDirty bool
	closed   bool
	warned   map[string]bool // types whose unencodable object was logged
	writes   int

	wake chan struct{}
	stop chan struct{}
	done chan struct{}
}

// Open opens the checkpoint at path for types, read from the cluster id, and
// returns what it held: nil when there is nothing to resume from (no checkpoint
// yet, or one that was corrupt or taken with another header; the reason is logged
// once and the file starts again empty). Its error is one line: a refused path
// (wrapping ErrRefused), a file held by another process, or one that cannot be
// created. Close the Store when done: it writes what is pending.
func Open(path string, id Identity, types []resources.Type, opts ...Option) (*Store, *Snapshot, error) {
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	if err := CheckPath(path); err != nil {
		return nil, nil, err
	}
	s := &Store{
		cfg: cfg, path: path, log: cfg.log.WithField("checkpoint", path),
		types: map[string]resources.Type{}, pending: map[string]*changes{}, warned: map[string]bool{},
		hdr: newHeader(id, types), wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	for _, t := range types {
		s.types[t.Name] = t
	}
	snap, err := s.open()
	if err != nil {
		return nil, nil, err
	}
	go s.writeLoop()
	return s, snap, nil
}

// open opens the file and loads it; a corrupt file is moved aside and replaced.
func (s *Store) open() (*Snapshot, error) {
	db, err := s.openDB()
	if err == nil {
		s.db = db
		var snap *Snapshot
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
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, fmt.Errorf("checkpoint: %s is in use by another process", s.path)
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrChecksum),
		errors.Is(err, bolterrors.ErrVersionMismatch), errors.Is(err, bolterrors.ErrInvalidMapping):
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
func (s *Store) load() (snap *Snapshot, err error) {
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
		snap, err = s.loadTypes(tx)
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
	case snap.empty():
		s.log.Info("Checkpoint holds nothing to resume from; starting cold")
		return nil, nil
	}
	snap.Identity = old.Identity
	if s.hdr.Identity.Cluster == "" {
		s.hdr.Identity.Cluster = old.Identity.Cluster // still to be confirmed
	} else if old.Identity.Cluster == "" {
		s.hdrDirty = true // confirmed now
	}
	return snap, nil
}

func (s *Store) loadTypes(tx *bolt.Tx) (*Snapshot, error) {
	snap := &Snapshot{Types: map[string]*TypeSnapshot{}}
	all := tx.Bucket(bucketTypes)
	for name, t := range s.types {
		ts := &TypeSnapshot{}
		snap.Types[name] = ts
		b := all.Bucket([]byte(name))
		if b == nil {
			continue // no record yet: the type lists
		}
		ts.Revision = string(b.Get(keyRev))
		objs := b.Bucket(bucketObjects)
		if objs == nil {
			continue
		}
		var raw []rawRecord
		if err := objs.ForEach(func(k, v []byte) error {
			raw = append(raw, rawRecord{k, v})
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
		if ts.Objects, err = decodeAll(newDecoder(gvk), raw); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", errCorrupt, name, err)
		}
	}
	return snap, nil
}

type rawRecord struct{ key, val []byte }

// decodeAll decodes records on every core: it is most of a warm start's time.
func decodeAll(d decoder, raw []rawRecord) ([]Object, error) {
	out := make([]Object, len(raw))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(raw)/256))
	chunk := (len(raw) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(raw))
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					errs[w] = fmt.Errorf("%v", r)
				}
			}()
			for i := lo; i < hi; i++ {
				rev, obj, err := d.decodeRecord(raw[i].val)
				if err != nil {
					errs[w] = fmt.Errorf("object %s: %w", raw[i].key, err)
					return
				}
				out[i] = Object{ID: string(raw[i].key), Revision: rev, Object: obj}
			}
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// gvkOf is the group, version and kind of t's objects.
func gvkOf(t resources.Type) schema.GroupVersionKind {
	return t.GVR.GroupVersion().WithKind(schema.ParseGroupKind(t.Kind).Kind)
}

// reset empties the checkpoint and writes the header.
func (s *Store) reset() error {
	s.mu.Lock()
	hdr := s.hdr
	s.mu.Unlock()
	err := s.db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketMeta, bucketTypes} {
			if tx.Bucket(name) != nil {
				if err := tx.DeleteBucket(name); err != nil {
					return err
				}
			}
		}
		return writeHeader(tx, hdr)
	})
	if err != nil {
		return fmt.Errorf("checkpoint: writing %s: %w", s.path, err)
	}
	return nil
}

func writeHeader(tx *bolt.Tx, h header) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	if _, err := tx.CreateBucketIfNotExists(bucketTypes); err != nil {
		return err
	}
	js, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return meta.Put(keyHeader, seal(js))
}

// Confirm compares the cluster identity, once known, with the one the checkpoint
// was taken with. It returns false if they differ: the checkpoint now carries the
// new identity and every type's revision is cleared, so the caller must relist
// every type (diffed against what it loaded) before the revisions mean anything.
func (s *Store) Confirm(cluster string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.hdr.Identity.Cluster
	if old == cluster {
		return true
	}
	s.hdr.Identity.Cluster, s.hdrDirty = cluster, true
	s.signal()
	if old == "" {
		return true
	}
	s.log.WithFields(logrus.Fields{"was": old, "now": cluster}).Warn("Checkpoint was taken from another cluster")
	for name := range s.types {
		s.changesOf(name).setRev("")
	}
	return false
}

// Discard empties the checkpoint: the caller starts cold after all, e.g. because
// Confirm found the snapshot came from another cluster before it was used.
func (s *Store) Discard() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	s.pending, s.hdrDirty = map[string]*changes{}, false
	s.mu.Unlock()
	if err := s.reset(); err != nil {
		s.log.WithError(err).Warn("Emptying the checkpoint failed")
	}
}

// Close writes what is pending and closes the file. It is safe to call twice.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.stop)
	<-s.done
	return s.db.Close()
}

// Path is the file's path.
func (s *Store) Path() string { return s.path }
