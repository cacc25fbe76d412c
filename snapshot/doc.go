// Package snapshot is where a syncer's updates land for consumers that want the
// values, not just the stream. Store keeps the current value of every key and
// applies each OnUpdates batch atomically, so a relist (which the syncer delivers
// as one batch) swaps in at once and a reader sees the old state of a type or the
// new one, never a mix. Broker fans the stream out to many subscribers, each of
// which gets the snapshot and then the changes, coalesced per key while it is busy.
package snapshot
