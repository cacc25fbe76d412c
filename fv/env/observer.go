package env

import (
	"slices"
	"sync"
	"time"

	"github.com/kubesync/kubesync/syncer"
)

// Observer counts a syncer's lists by type and reason, and its watch re-opens.
type Observer struct {
	syncer.NopObserver
	mu       sync.Mutex
	lists    map[string]map[string]int
	listedAt map[syncer.ListReason]time.Time // the last list for each reason, of any type
	reopened map[string]int
	failed   map[string]int
	statuses map[string][]syncer.SyncStatus
}

// NewObserver returns an Observer that has seen nothing.
func NewObserver() *Observer {
	return &Observer{lists: map[string]map[string]int{}, listedAt: map[syncer.ListReason]time.Time{},
		reopened: map[string]int{}, failed: map[string]int{}, statuses: map[string][]syncer.SyncStatus{}}
}

// Listing counts a list of type t for reason and notes when it was told.
func (o *Observer) Listing(t string, reason syncer.ListReason) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lists[t] == nil {
		o.lists[t] = map[string]int{}
	}
	o.lists[t][reason.String()]++
	o.listedAt[reason] = time.Now()
}

// LastListing returns when the syncer last told a list for reason, of any
// type (zero: never). For ListExpired that is when it handled a 410, before
// any wait.
func (o *Observer) LastListing(reason syncer.ListReason) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.listedAt[reason]
}

// WatchRestarted counts a re-opened watch of type t.
func (o *Observer) WatchRestarted(t string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reopened[t]++
}

// ListCount returns the lists of type t, for any reason.
func (o *Observer) ListCount(t string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, c := range o.lists[t] {
		n += c
	}
	return n
}

// Reasons returns the lists of type t by reason.
func (o *Observer) Reasons(t string) map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]int{}
	for r, c := range o.lists[t] {
		out[r] = c
	}
	return out
}

// SyncFailed counts a failure episode of type t.
func (o *Observer) SyncFailed(t string, _ syncer.Failure) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failed[t]++
}

// Failures returns how many failure episodes type t reported.
func (o *Observer) Failures(t string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.failed[t]
}

// StatusChanged keeps the status type t reached.
func (o *Observer) StatusChanged(t string, s syncer.SyncStatus) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.statuses[t] = append(o.statuses[t], s)
}

// TypeStatuses returns the statuses type t went through.
func (o *Observer) TypeStatuses(t string) []syncer.SyncStatus {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.statuses[t])
}
