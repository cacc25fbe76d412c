package snapshot

// SubscribeOption configures one subscription.
type SubscribeOption func(*subscribeOptions)

type subscribeOptions struct {
	kinds    map[string]bool
	lagLimit int
	chunk    int
	lazy     bool // WithLazyValues (lazy.go)
}

// defaultSnapshotBatch is how many keys of a snapshot go in one batch by default.
const defaultSnapshotBatch = 500

// WithKinds limits a subscription to values of these kinds (resources.Key.Kind,
// as in resources.Type.Kind): its snapshot and changes hold no other. Default:
// every kind.
func WithKinds(kinds ...string) SubscribeOption {
	return func(o *subscribeOptions) {
		o.kinds = make(map[string]bool, len(kinds))
		for _, k := range kinds {
			o.kinds[k] = true
		}
	}
}

// WithLagLimit drops a subscription once more than n updates wait for it
// (coalesced, so at most one per key): its delivery stops, and Err returns an
// error wrapping ErrLagging. The subscriber may subscribe again and gets a fresh
// snapshot. A relist larger than n drops every subscriber that has not read it
// yet. Default: 0, no limit (what waits is bounded by the number of keys).
func WithLagLimit(n int) SubscribeOption {
	return func(o *subscribeOptions) { o.lagLimit = max(n, 0) }
}

// WithSnapshotBatch sets how many keys of the snapshot go in one batch. Default:
// 500. A value below 1 keeps the default.
func WithSnapshotBatch(n int) SubscribeOption {
	return func(o *subscribeOptions) {
		if n >= 1 {
			o.chunk = n
		}
	}
}
