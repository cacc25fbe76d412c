package syncer

import (
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/identity"
	"github.com/kubesync/kubesync/resources"
)

// Checkpoint is where a syncer persists what its ledgers hold, so that a restart
// can hand its consumer the same snapshot at once and watch on from where it
// stopped (WithCheckpoint). Package checkpoint implements it with a bbolt file;
// the syncer itself stores nothing.
//
// The syncer calls Open once, on its loop goroutine at Start, then Record, Delete,
// Clear and Revision from that goroutine, in the order its ledgers change, and
// Close once the loop and every watcher have stopped. What it notes is what its
// consumer was told: a relist's changes come once the relist completes, as the
// consumer's do, and a relist under way at Close never comes. Confirm may come from another
// goroutine. The note methods run on the loop and must be cheap (note in memory,
// write in the background), and a persisted revision must never be ahead of the
// persisted objects: a restart that watches on from it would miss what came before.
type Checkpoint interface {
	// Open loads the checkpoint for types, taken from the cluster id, and returns
	// what it held, or nil when there is nothing to resume from (no checkpoint, or
	// one that is damaged or was taken with another identity, types or selectors):
	// never half a state. id.Cluster may be empty (not known yet; see Confirm). log
	// is the syncer's logger. An error means the syncer runs without a checkpoint.
	Open(id ClusterIdentity, types []resources.Type, log logrus.FieldLogger) (*Persisted, error)
	// Record notes that the object id (namespace/name, or name) of typeName is obj
	// at rev. obj is shared with the consumer and must not be modified.
	Record(typeName, id, rev string, obj runtime.Object)
	// Delete notes that the object id of typeName is gone.
	Delete(typeName, id string)
	// Clear notes that typeName holds no object and must list after a restart.
	Clear(typeName string)
	// Revision notes that typeName reached rev with every change before it noted;
	// "" means the type must list after a restart.
	Revision(typeName, rev string)
	// Confirm compares the cluster's identity, once read, with the one the
	// checkpoint was taken with, and reports whether they are the same. If not, the
	// checkpoint takes the new identity and forgets every type's revision.
	Confirm(cluster string) bool
	// Close writes what is pending and releases the checkpoint.
	Close() error
}

// LazyRecorder is an optional interface of Checkpoint. A syncer made with
// WithLazyValues hands one that implements it each lazy value's encoding as it
// holds it (resources.Raw.Bytes), where it would otherwise decode the object
// once for Record; the checkpoint hands it back at Open in
// PersistedObject.Encoded. Neither the sync nor a warm start then decodes
// anything the consumer does not read. checkpoint.Store implements it.
type LazyRecorder interface {
	// RecordLazy notes that the object id of typeName, whose UID is uid, is
	// encoded at rev: the bytes of its lazy value, shared and read-only.
	RecordLazy(typeName, id, rev string, uid types.UID, encoded []byte)
}

// ClusterIdentity names the cluster a checkpoint belongs to.
type ClusterIdentity struct {
	// Server is the apiserver's address (rest.Config.Host).
	Server string
	// Cluster is the cluster's own identity: the UID of the kube-system namespace,
	// which a cluster keeps for its whole life and another cluster does not share.
	// Empty means not known yet.
	Cluster string
}

// Persisted is what a Checkpoint held when it was opened.
type Persisted struct {
	// Identity is the identity the checkpoint was taken with; its Cluster is empty
	// if it was never confirmed.
	Identity ClusterIdentity
	// Written is when the checkpoint was last written: the state is as of then.
	// Zero if unknown.
	Written time.Time
	// Types holds every type of the checkpoint, by name.
	Types map[string]*PersistedType
}

// PersistedType is one type's persisted state.
type PersistedType struct {
	// Revision is the last revision the type reached with every object below
	// recorded, or "" if the type must list (it never completed a list, or an
	// object of it could not be persisted).
	Revision string
	// Confirmed is when the type's view was confirmed at Revision, as the
	// checkpoint recorded it; zero if unknown, when Persisted.Written stands
	// for it. A warm start counts the resumed type's TypeStatus.Age from it.
	Confirmed time.Time
	Objects   []PersistedObject
}

// PersistedObject is one persisted object.
type PersistedObject struct {
	// ID is namespace/name, or name for a cluster-scoped object.
	ID       string
	Revision string
	// Object is the source object, which the type's conversion turns into values
	// again; nil when the object was recorded lazily (Encoded).
	Object runtime.Object
	// Encoded and UID are an object recorded lazily (LazyRecorder): the bytes of
	// its lazy value, and its UID. A syncer made with WithLazyValues hands them on
	// undecoded, as the same lazy value; one made without decodes them first.
	Encoded []byte
	UID     types.UID
}

// Len is the number of objects of every type.
func (p *Persisted) Len() int {
	n := 0
	for _, t := range p.Types {
		n += len(t.Objects)
	}
	return n
}

// WithCheckpoint persists what the syncer reports to cp (checkpoint.New makes one
// on a bbolt file), and resumes from it at Start:
//
//  1. The persisted objects go to the callbacks at once, converted again by each
//     type's conversion, even while the apiserver is unreachable. The status is
//     ResyncInProgress. Then a ResumeHandler hears OnResumed: the snapshot is
//     whole (see Resumed for what an agent does with it).
//  2. Each type watches from its persisted revision: what changed since arrives as
//     ordinary updates.
//  3. A type is in sync once its watch reaches the server's current revision,
//     taken at start by a consistent read that returns no object (see FenceName).
//  4. A type whose revision expired (410) relists; the list is diffed against the
//     persisted ledger, so only the difference is reported, in one batch.
//
// The cluster's identity is the kube-system namespace's UID, which the syncer
// reads itself at Start (in parallel with Open; a warm start waits for it at most
// a second, a start with nothing to resume not at all), with a client made from
// New's rest.Config: the caller needs "get" on namespaces, name
// kube-system (watchersets.Set.ClusterRole grants it). While it cannot be read the
// apiserver's address decides, and the read is retried with backoff; if it then
// differs, every type relists, diffed against what was delivered. If it is refused
// (403 or 401), it is logged once and not asked again: the address alone decides.
// Without a rest.Config (WithListerWatcher) the address is empty and the identity
// unknown.
//
// A type with no persisted revision, a checkpoint taken from another apiserver or
// cluster, or with other types, selectors or keys-only setting, and a damaged file
// all mean a cold start, logged once. Values handed to callbacks must not be
// modified: the checkpoint encodes them later. Default: no checkpoint (nil).
func WithCheckpoint(cp Checkpoint) Option {
	return func(c *config) { c.checkpoint = cp }
}

// identityWait bounds how long a warm start waits for the cluster's identity before
// it hands over the snapshot, trusting the apiserver's address meanwhile.
const identityWait = time.Second

// checkpointState is the syncer's side of its checkpoint, before and after it
// opened (the warm start's layer, Syncer.warm, is there once it did).
type checkpointState struct {
	cp       Checkpoint
	server   string
	identity identity.Reader // nil: unknown (no rest.Config)
}

// checkpointFor prepares the checkpoint of New; it is opened at Start.
func checkpointFor(cfg *config, restCfg *rest.Config) (*checkpointState, error) {
	if cfg.checkpoint == nil {
		return nil, nil
	}
	cs := &checkpointState{cp: cfg.checkpoint}
	if restCfg != nil {
		cs.server = restCfg.Host
		var err error
		if cs.identity, err = identity.For(restCfg); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

// closeCheckpoint writes what is pending and closes the checkpoint, once the loop
// and every watcher have stopped.
func (s *Syncer) closeCheckpoint() {
	if s.warm == nil {
		return
	}
	s.ckptWG.Wait()
	if err := s.ckpt.cp.Close(); err != nil {
		s.cfg.log.WithError(err).Warn("Closing the checkpoint")
	}
}
