// Package checkpoint persists what a syncer has reported, so that a restarted agent
// can hand its consumer the same snapshot at once and resume each watch from where
// it stopped, instead of listing the whole cluster again.
//
// Store implements syncer.Checkpoint: New checks the path and makes one, which
// syncer.WithCheckpoint takes, and the syncer opens it at Start. Open does both
// at once, for a program that keeps a checkpoint without a syncer. The syncer
// imports nothing of this package: only a program that keeps a checkpoint links
// bbolt.
//
// A checkpoint is one go.etcd.io/bbolt file. It holds a header (format version,
// apiserver address, cluster identity such as the kube-system namespace's UID,
// every type with its scope, selectors and KeysOnly, and the time of the last
// write) and, per type, the last revision reached and every object the syncer's
// ledger holds, keyed by namespace/name, each with its revision and its encoded
// source object: protobuf for typed built-in objects, a compact tagged binary
// form of the content for unstructured ones (format 2; format 1 wrote JSON,
// which is still read, and JSON is still written for a value the binary form
// does not hold). A restart decodes the objects and runs the type's
// conversion on them again, so a Type with a custom Convert gets the same values
// back as long as its conversion is deterministic. The ledger's keys are what that
// conversion produces; they are not stored twice. A syncer with lazy values
// hands the Store each value's bytes and UID instead (RecordLazy, format 3),
// which are kept as they are and handed back undecoded
// (syncer.PersistedObject.Encoded): its warm start decodes nothing.
//
// # Consistency
//
// Record, Delete, Clear and Revision are called by the syncer's loop in the order in which
// its ledger changes. They only note the change in memory (a map per type, the
// newest change per object); a background goroutine writes what changed, at most
// once per interval (WithInterval) and at Close, in one bbolt transaction. A
// transaction holds every change noted before a point, so the persisted revision is
// never ahead of the persisted objects: a restart that watches from it misses
// nothing. bbolt commits atomically (two meta pages, fsync), so a process killed in
// the middle of a write leaves the previous checkpoint.
//
// The objects noted but not yet written are kept by reference until the next
// write: values handed to a consumer must not be modified while a checkpoint is
// on (the syncer's values are shared in any case).
//
// # What is refused, and what is ignored
//
// The file holds cluster data, possibly Secrets. New (and Open again) refuses,
// with one line wrapping ErrRefused, a path that is a symlink, a file or
// directory that is group- or world-writable, or one owned by another user; Open
// creates the file with mode 0600. A file that bbolt cannot open, that fails
// bbolt's consistency check, or whose records fail their checksums or do not
// decode is reported once, moved aside to PATH.corrupt, and replaced by an empty
// checkpoint: the agent starts cold, never with half a state. A checkpoint whose
// header differs from the caller's (another format, cluster, type set, selector
// or KeysOnly: a keys-only type's objects are metadata alone) is discarded the
// same way, with one log line. An object that cannot be encoded keeps its type's
// revision out of the file until every object of the type is recorded: a restart
// lists that type rather than watch on without the object.
package checkpoint
