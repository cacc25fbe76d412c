// Package ledger is what the syncer remembers of one type: for each object, by
// its id (namespace/name), the revision last reported, its UID and the keys its
// conversion produced, held compactly (a packed uint64, 16 bytes of UID and the
// id in one arena, its namespace by number; about 50 bytes an object at 100k). It
// never holds values.
//
// A Ledger has one writer, the syncer's loop, which compares each listed or
// watched object with it (Seen, Newer), records it (Put, Mark) and sweeps what a
// list no longer held (NextEpoch, Sweep). Known and Empty may be asked from any
// goroutine: a watcher asks Known to skip decoding an object whose revision is
// unchanged.
package ledger
