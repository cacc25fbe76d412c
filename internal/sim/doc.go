// Package sim is a model of a Kubernetes cluster for a deterministic simulator
// of the syncer: an etcd history with one revision counter, per-object
// revisions and UIDs and compaction, and several apiservers whose watch caches
// lag etcd independently. It answers reads as kube-apiserver 1.37 does from its
// watch cache: a read at resourceVersion 0 takes the cache as it is, a
// consistent read needs the cache to have reached etcd's revision, a watch
// replays the changes after a revision through a selector (a change across the
// selector is an Added or a Deleted), a GET ignores the type's selector.
//
// It holds no goroutine, no clock and no randomness: the simulator decides what
// happens and when, and asks the model what a server would answer. Errors are
// the simulator's to make; the model says which case applies (Expired, Behind).
package sim
