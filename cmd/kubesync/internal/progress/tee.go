package progress

import "github.com/kubesync/kubesync/syncer"

// Tee returns an Observer that reports to each of obs in turn.
func Tee(obs ...syncer.Observer) syncer.Observer { return tee(obs) }

type tee []syncer.Observer

func (t tee) Listing(n, reason string) {
	for _, o := range t {
		o.Listing(n, reason)
	}
}

func (t tee) WatchRestarted(n string) {
	for _, o := range t {
		o.WatchRestarted(n)
	}
}

func (t tee) EventReceived(n string) {
	for _, o := range t {
		o.EventReceived(n)
	}
}

func (t tee) Objects(n string, count int) {
	for _, o := range t {
		o.Objects(n, count)
	}
}

func (t tee) TypeStatus(n string, s syncer.SyncStatus) {
	for _, o := range t {
		o.TypeStatus(n, s)
	}
}

func (t tee) ConversionFailed(n string) {
	for _, o := range t {
		o.ConversionFailed(n)
	}
}
