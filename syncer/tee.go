package syncer

import (
	"slices"

	"github.com/kubesync/kubesync/resources"
)

// Tee returns Callbacks that hand every call to each consumer in turn, in the
// order given: OnUpdates and OnStatusUpdated to all of them, and each optional
// callback (ParseFailureHandler, SyncFailureHandler, ResumeHandler,
// ConfirmationHandler, TypesHandler) to those that implement it. So an agent can keep a snapshot.Store and act on the
// same stream without forwarding every optional method by hand.
//
// A consumer's call returns before the next consumer's begins, so a slow one
// holds up the others, and the syncer behind them all (use a snapshot.Broker
// to fan out to consumers that run at their own pace). Each consumer gets its
// own copy of an update slice, which is its to keep; the values in it are
// shared. Nil consumers are skipped.
func Tee(consumers ...Callbacks) Callbacks {
	t := &tee{}
	for _, c := range consumers {
		if c != nil {
			t.all = append(t.all, c)
		}
	}
	return t
}

type tee struct{ all []Callbacks }

var (
	_ ParseFailureHandler = (*tee)(nil)
	_ SyncFailureHandler  = (*tee)(nil)
	_ ResumeHandler       = (*tee)(nil)
	_ ConfirmationHandler = (*tee)(nil)
	_ TypesHandler        = (*tee)(nil)
)

func (t *tee) OnTypes(types []resources.Type) {
	for _, c := range t.all {
		if h, ok := c.(TypesHandler); ok {
			h.OnTypes(slices.Clone(types))
		}
	}
}

func (t *tee) OnStatusUpdated(status SyncStatus) {
	for _, c := range t.all {
		c.OnStatusUpdated(status)
	}
}

func (t *tee) OnUpdates(updates []Update) {
	for i, c := range t.all {
		if i == len(t.all)-1 {
			c.OnUpdates(updates)
			return
		}
		c.OnUpdates(slices.Clone(updates))
	}
}

func (t *tee) OnParseFailed(typeName string, object any, err error) {
	for _, c := range t.all {
		if h, ok := c.(ParseFailureHandler); ok {
			h.OnParseFailed(typeName, object, err)
		}
	}
}

func (t *tee) OnSyncFailed(typeName string, err error) {
	for _, c := range t.all {
		if h, ok := c.(SyncFailureHandler); ok {
			h.OnSyncFailed(typeName, err)
		}
	}
}

func (t *tee) OnSyncRecovered(typeName string) {
	for _, c := range t.all {
		if h, ok := c.(SyncFailureHandler); ok {
			h.OnSyncRecovered(typeName)
		}
	}
}

func (t *tee) OnResumed(r Resumed) {
	for _, c := range t.all {
		if h, ok := c.(ResumeHandler); ok {
			h.OnResumed(r)
		}
	}
}

func (t *tee) OnConfirmed(typeName, revision string) {
	for _, c := range t.all {
		if h, ok := c.(ConfirmationHandler); ok {
			h.OnConfirmed(typeName, revision)
		}
	}
}
