// Package snapshot is where a syncer's updates land for consumers that want the
// values, not just the stream. Store keeps the current value of every key and
// applies each OnUpdates batch atomically, so a relist (which the syncer delivers
// as one batch) swaps in at once and a reader sees the old state of a type or the
// new one, never a mix. Fed lazy values (syncer.WithLazyValues), the Store keeps
// each as its bytes (protobuf, or a custom type's CBOR or JSON document) and
// decodes on Get and List: a compact Store.
//
// Broker fans the stream out to many subscribers, as a syncer.Callbacks
// (Subscribe) or a channel of batches (SubscribeBatches). Each gets the snapshot
// and then the changes, coalesced per key while it is busy. A late subscriber's
// snapshot streams from a copy-on-write view of the Store, so joining copies no
// key; an idle subscriber holds no buffer; a subscriber may ask for some kinds
// only, and one that falls behind its lag limit is dropped with ErrLagging and
// may subscribe again.
package snapshot
