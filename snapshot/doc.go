// Package snapshot is where a syncer's updates land for consumers that want the
// values, not just the stream. Store keeps the current value of every key and
// applies each OnUpdates batch atomically, so a relist (which the syncer delivers
// as one batch) swaps in at once and a reader sees the old state of a type or the
// new one, never a mix. Fed lazy values (syncer.WithLazyValues), the Store keeps
// each as its bytes (protobuf, or a custom type's CBOR or JSON document) and
// decodes on each read: a compact Store.
//
// A Store reads by key (Get), by kind (List) and by index (ByIndex): every
// kind has NamespaceIndex, and WithIndex declares more, such as a label's
// values, kept in the same batch as the values. The package's Get, List and
// ByIndex are these reads typed (Get[*corev1.Pod]): they decode lazy values and
// return a *TypeError, naming the key and both types, for a value of another
// type.
//
// Broker fans the stream out to many subscribers, as a syncer.Callbacks
// (Subscribe) or a channel of batches (SubscribeBatches). Each gets the snapshot
// and then the changes, coalesced per key while it is busy. A late subscriber's
// snapshot streams from a copy-on-write view of the Store, so joining copies no
// key; an idle subscriber holds no buffer; a subscriber may ask for some kinds
// only, and one that falls behind its lag limit is dropped with ErrLagging and
// may subscribe again.
package snapshot
