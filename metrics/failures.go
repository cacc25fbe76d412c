package metrics

import "github.com/kubesync/kubesync/syncer"

// failures are the values of the "failure" label, in the order of the series of
// typeMetrics.
var failures = [...]syncer.Failure{syncer.Forbidden, syncer.Unauthorized, syncer.Missing, syncer.Unreachable}

func failureIndex(f syncer.Failure) (int, bool) {
	for i, g := range failures {
		if g == f {
			return i, true
		}
	}
	return 0, false
}

// SyncFailed counts a failure episode of typeName and makes f its current failure.
// The syncer calls it once per episode, and again if the failure changes (e.g. a
// forbidden type whose CRD is then deleted): each call counts as an episode of f.
func (o *Observer) SyncFailed(typeName string, f syncer.Failure) {
	o.mu.Lock()
	defer o.mu.Unlock()
	tm := o.of(typeName)
	i, ok := failureIndex(f)
	if !ok {
		return // NoFailure or a value this version does not know: nothing to show
	}
	tm.episodes[i].Inc()
	for j, g := range tm.failure {
		g.Set(boolValue(j == i))
	}
}

// SyncRecovered clears the current failure of typeName.
func (o *Observer) SyncRecovered(typeName string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, g := range o.of(typeName).failure {
		g.Set(0)
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
