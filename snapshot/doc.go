// Package snapshot is where a syncer's updates land for consumers that want the
// values, not just the stream. Store keeps the current value of every key and
// applies each OnUpdates batch atomically, so a relist (which the syncer delivers
// as one batch) swaps in at once and a reader sees the old state of a type or the
// new one, never a mix. Fed lazy values (syncer.WithLazyValues), the Store keeps
// each as its bytes (protobuf, or a custom type's CBOR or JSON document) and
// decodes on each read: a compact Store.
//
// Every read takes a type's Name or its Kind alike, as syncer.Syncer.TypeOf
// does: the syncer tells the Store its types (syncer.TypesHandler).
//
// A Store reads by key (Get), by kind (List) and by index (ByIndex): every
// kind has NamespaceIndex, and WithIndex declares more, such as a label's
// values, kept in the same batch as the values. The package's Get, List and
// ByIndex are these reads typed (Get[*corev1.Pod]): they decode lazy values and
// return a *TypeError, naming the key and both types, for a value of another
// type.
//
// A View (Store.Snapshot) is a read transaction: the Store as of one batch
// boundary, every kind and index of it, so that code that reads several kinds
// outside the callbacks (pods, then the policies that select them) never mixes
// two batches. It costs O(1) per kind and index, as each is a copy-on-write
// tree. The Store knows whether its state is whole (Whole): in sync, or resumed
// from a checkpoint whose snapshot held every type (OnResumed, Resumed); and
// Store.Next, the trigger of a program loop, waits for a whole state newer than
// the last View (a batch, the Store turning whole, or the syncer reaching InSync)
// and returns a View of it. Store.WaitFor is read-your-writes: it waits for the
// revision of a write, as the syncer confirmed it (syncer.ConfirmationHandler).
//
// Broker fans the stream out to many subscribers, as a syncer.Callbacks
// (Subscribe) or a channel of batches (SubscribeBatches). Each gets the snapshot
// and then the changes, coalesced per key while it is busy. A late subscriber's
// snapshot streams from a copy-on-write view of the Store, so joining copies no
// key; what the syncer says besides updates (its types, its resume, the
// revisions it confirmed, its status) follows the updates it is about, to the
// Broker's own Store and to each subscriber, so a Store behind a Broker is whole,
// resumed and waited for as one fed by the syncer; an idle subscriber holds no buffer; a subscriber may ask for some kinds
// only, and one that falls behind its lag limit is dropped with ErrLagging and
// may subscribe again.
package snapshot
