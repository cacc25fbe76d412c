package snapshot

import (
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// StoreOption configures a Store.
type StoreOption func(*Store)

// WithDecodedValues makes the Store decode a lazy value (*resources.Raw, from a
// syncer made with syncer.WithLazyValues) once, as it arrives, and keep the
// decoded object: for a caller that reads everything often, at the memory cost
// of decoded objects.
//
// Default: the Store keeps a lazy value as its bytes, 2 to 5 times smaller than
// the decoded object, and decodes on every read, with no cache. Memory
// is what the lazy path is for, and a cache would keep decoded objects of
// whatever was read last, for an unknown reader's benefit; a caller that reads
// a value often can keep what Get returned.
func WithDecodedValues() StoreOption { return func(s *Store) { s.decoded = true } }

// decoded returns v decoded if it is lazy. A value whose bytes do not decode
// stays the *resources.Raw, whose Object returns the error: nothing is lost.
func decoded(v any) any {
	d, _ := resources.Decoded(v)
	return d
}

// decodeAll replaces every lazy value of ups by its decoded object, in place.
func decodeAll(ups []syncer.Update) {
	for i := range ups {
		if _, lazy := ups[i].Value.(*resources.Raw); lazy {
			ups[i].Value = decoded(ups[i].Value)
		}
	}
}

// WithLazyValues hands the subscriber lazy values as they are stored: a
// *resources.Raw, which it decodes with Object when it needs to, instead of the
// decoded object. Default: the subscriber receives decoded values, as from a
// syncer without lazy values; each subscriber then decodes what it receives.
func WithLazyValues() SubscribeOption { return func(o *subscribeOptions) { o.lazy = true } }
