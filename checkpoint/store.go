package checkpoint

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	bolt "go.etcd.io/bbolt"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Bucket layout: meta/header holds the header as JSON, meta/written the time of
// the last write; types/NAME/rev the type's revision, types/NAME/revat when that
// revision was noted (absent in files written before it was kept: readers that do
// not know it ignore it, so the format version is unchanged), types/NAME/kind the
// scheme kind of its protobuf records, and types/NAME/objects/ID one record per
// object.
var (
	bucketMeta    = []byte("meta")
	keyHeader     = []byte("header")
	keyWritten    = []byte("written")
	bucketTypes   = []byte("types")
	keyRev        = []byte("rev")
	keyRevAt      = []byte("revat")
	keyKind       = []byte("kind")
	bucketObjects = []byte("objects")
)

// Store is a checkpoint file: a syncer.Checkpoint. Its Record, Delete, Clear and
// Revision methods are cheap and safe for concurrent use; a background goroutine
// writes what they noted.
type Store struct {
	cfg   config
	path  string
	db    *bolt.DB
	log   logrus.FieldLogger
	types map[string]resources.Type

	wmu      sync.Mutex // held by a write from taking its batch to its commit
	mu       sync.Mutex
	opened   bool                // Open was called
	running  bool                // the writer runs: Open succeeded
	pending  map[string]*changes // by type name
	hdr      header
	hdrDirty bool
	closed   bool
	warned   map[string]bool // types whose unencodable object was logged
	writes   int
	// Owned by the write in progress (wmu): what the file holds of each type.
	missing map[string]map[string]bool // ids whose newest record could not be encoded
	revs    map[string]string          // the newest revision noted and written

	wake chan struct{}
	stop chan struct{}
	done chan struct{}
}

var _ syncer.Checkpoint = (*Store)(nil)

// New checks that path may hold a checkpoint (CheckPath: its error is one line and
// wraps ErrRefused) and returns a Store for it, to hand to syncer.WithCheckpoint.
// The file is opened by Store.Open, which the syncer calls at Start.
func New(path string, opts ...Option) (*Store, error) {
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	if err := CheckPath(path); err != nil {
		return nil, err
	}
	return &Store{
		cfg: cfg, path: path, types: map[string]resources.Type{}, pending: map[string]*changes{},
		warned: map[string]bool{}, missing: map[string]map[string]bool{}, revs: map[string]string{},
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}, nil
}

// Open is New followed by Store.Open, for a program that keeps a checkpoint
// without a syncer, or one that writes a checkpoint for a syncer to find.
func Open(path string, id syncer.ClusterIdentity, types []resources.Type, opts ...Option) (*Store, *syncer.Persisted, error) {
	s, err := New(path, opts...)
	if err != nil {
		return nil, nil, err
	}
	snap, err := s.Open(id, types, nil)
	if err != nil {
		return nil, nil, err
	}
	return s, snap, nil
}

// Open opens the checkpoint for types, read from the cluster id, and returns what
// it held: nil when there is nothing to resume from (no checkpoint yet, or one
// that was corrupt or taken with another header; the reason is logged once and
// the file starts again empty). log is used unless WithLogger was given (nil:
// logrus's standard logger). Its error is one line: a refused path (wrapping
// ErrRefused), a file held by another process, or one that cannot be created. A
// Store is opened once. Close it when done: it writes what is pending.
func (s *Store) Open(id syncer.ClusterIdentity, types []resources.Type, log logrus.FieldLogger) (*syncer.Persisted, error) {
	if s.cfg.log != nil || log == nil {
		log = orStandard(s.cfg.log)
	}
	s.mu.Lock()
	if s.opened {
		s.mu.Unlock()
		return nil, fmt.Errorf("checkpoint: %s is already open", s.path)
	}
	s.opened = true
	s.log, s.hdr = log.WithField("checkpoint", s.path), newHeader(id, types)
	for _, t := range types {
		s.types[t.Name] = t
	}
	s.mu.Unlock()
	if err := CheckPath(s.path); err != nil { // again: the path may have changed since New
		return nil, err
	}
	snap, err := s.open()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.running = true
	s.mu.Unlock()
	go s.writeLoop()
	return snap, nil
}

func orStandard(l logrus.FieldLogger) logrus.FieldLogger {
	if l == nil {
		return logrus.StandardLogger()
	}
	return l
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
		return writeHeader(tx, hdr, time.Now())
	})
	if err != nil {
		return fmt.Errorf("checkpoint: writing %s: %w", s.path, err)
	}
	return nil
}

// writeHeader writes the header and the time of this write.
func writeHeader(tx *bolt.Tx, h header, now time.Time) error {
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
	if err := meta.Put(keyHeader, seal(js)); err != nil {
		return err
	}
	return meta.Put(keyWritten, binary.LittleEndian.AppendUint64(nil, uint64(now.UnixNano())))
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

// Close writes what is pending and closes the file. It is safe to call twice.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	running := s.running
	s.mu.Unlock()
	if !running {
		return nil
	}
	close(s.stop)
	<-s.done
	return s.db.Close()
}

// Path is the file's path.
func (s *Store) Path() string { return s.path }
