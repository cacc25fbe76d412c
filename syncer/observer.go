package syncer

// Observer hears about a Syncer's activity per type, e.g. to export metrics. Its
// methods are called from the syncer's loop goroutine and must not block.
type Observer interface {
	// Listing reports that a type starts a list; reason is one of "initial",
	// "expired", "reappeared", "errors", "forced" or "retry".
	Listing(typeName, reason string)
	// WatchRestarted reports a watch re-opened from its last revision.
	WatchRestarted(typeName string)
	// EventReceived reports an event from the apiserver (an object or a bookmark).
	EventReceived(typeName string)
	// Objects reports the number of objects the type holds now.
	Objects(typeName string, n int)
	// TypeStatus reports the type's own status.
	TypeStatus(typeName string, status SyncStatus)
	// ConversionFailed reports an object that failed conversion.
	ConversionFailed(typeName string)
}

// observers reports to each of several Observers in turn.
type observers []Observer

func (os observers) Listing(t, reason string) {
	for _, o := range os {
		o.Listing(t, reason)
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

func (os observers) Objects(t string, n int) {
	for _, o := range os {
		o.Objects(t, n)
	}
}

func (os observers) TypeStatus(t string, s SyncStatus) {
	for _, o := range os {
		o.TypeStatus(t, s)
	}
}

func (os observers) ConversionFailed(t string) {
	for _, o := range os {
		o.ConversionFailed(t)
	}
}

type nopObserver struct{}

func (nopObserver) Listing(string, string)        {}
func (nopObserver) WatchRestarted(string)         {}
func (nopObserver) EventReceived(string)          {}
func (nopObserver) Objects(string, int)           {}
func (nopObserver) TypeStatus(string, SyncStatus) {}
func (nopObserver) ConversionFailed(string)       {}
