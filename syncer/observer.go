package syncer

import "time"

// Observer hears about a Syncer's activity per type, e.g. to export metrics. Its
// methods are called from the syncer's loop goroutine and must not block. A
// typeName is the type's Name (Syncer.TypeOf maps it to the Type and its Kind).
//
// Embed NopObserver in an implementation: methods added to Observer later then
// default to doing nothing instead of breaking the build.
type Observer interface {
	// Listing reports that a type starts a list, and why.
	Listing(typeName string, reason ListReason)
	// WatchRestarted reports a watch re-opened from its last revision.
	WatchRestarted(typeName string)
	// EventReceived reports an event from the apiserver (an object or a bookmark).
	EventReceived(typeName string)
	// Keys reports the number of keys the type holds now: the keys its
	// conversion produced for the objects it tracks, as delivered to the
	// callbacks. An object the conversion dropped counts for none, and one it
	// made two KVPairs of for two (TypeStatus.Objects counts the objects).
	Keys(typeName string, n int)
	// StatusChanged reports the type's own status (TypeStatus.Status) when it
	// changes. It changes during a relist of the type even after the aggregate
	// status has reached InSync.
	StatusChanged(typeName string, status SyncStatus)
	// ConversionFailed reports an object that failed conversion.
	ConversionFailed(typeName string)
	// SyncFailed reports the start of a failure episode of a type: once, not once
	// per retry, and again only if the failure changes.
	SyncFailed(typeName string, f Failure)
	// SyncRecovered reports the end of a type's failure episode.
	SyncRecovered(typeName string)
	// Confirmed reports that the type's stream confirmed revision at time at
	// (see TypeStatus.Revision): on every watch event and bookmark once its list
	// is complete, and at the end of each list. The age of the type's view is
	// the time since.
	Confirmed(typeName, revision string, at time.Time)
}

// NopObserver does nothing. Embed it in an Observer to implement only what you need.
type NopObserver struct{}

// Listing does nothing.
func (NopObserver) Listing(string, ListReason) {}

// WatchRestarted does nothing.
func (NopObserver) WatchRestarted(string) {}

// EventReceived does nothing.
func (NopObserver) EventReceived(string) {}

// Keys does nothing.
func (NopObserver) Keys(string, int) {}

// StatusChanged does nothing.
func (NopObserver) StatusChanged(string, SyncStatus) {}

// ConversionFailed does nothing.
func (NopObserver) ConversionFailed(string) {}

// SyncFailed does nothing.
func (NopObserver) SyncFailed(string, Failure) {}

// SyncRecovered does nothing.
func (NopObserver) SyncRecovered(string) {}

// Confirmed does nothing.
func (NopObserver) Confirmed(string, string, time.Time) {}

// observers reports to each of several Observers in turn.
type observers []Observer

func (os observers) Listing(t string, r ListReason) {
	for _, o := range os {
		o.Listing(t, r)
	}
}

func (os observers) WatchRestarted(t string) {
	for _, o := range os {
		o.WatchRestarted(t)
	}
}

func (os observers) EventReceived(t string) {
	for _, o := range os {
		o.EventReceived(t)
	}
}

func (os observers) Keys(t string, n int) {
	for _, o := range os {
		o.Keys(t, n)
	}
}

func (os observers) StatusChanged(t string, s SyncStatus) {
	for _, o := range os {
		o.StatusChanged(t, s)
	}
}

func (os observers) ConversionFailed(t string) {
	for _, o := range os {
		o.ConversionFailed(t)
	}
}

func (os observers) SyncFailed(t string, f Failure) {
	for _, o := range os {
		o.SyncFailed(t, f)
	}
}

func (os observers) SyncRecovered(t string) {
	for _, o := range os {
		o.SyncRecovered(t)
	}
}

func (os observers) Confirmed(t, rv string, at time.Time) {
	for _, o := range os {
		o.Confirmed(t, rv, at)
	}
}
