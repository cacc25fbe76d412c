package fv

import (
	"slices"
	"sync"

	"github.com/kubesync/kubesync/syncer"
)

// observer counts a syncer's lists by type and reason, and its watch re-opens.
type observer struct {
	syncer.NopObserver
	mu       sync.Mutex
	lists    map[string]map[string]int
	reopened map[string]int
	failed   map[string]int
	statuses map[string][]syncer.SyncStatus
}

func newObserver() *observer {
	return &observer{lists: map[string]map[string]int{}, reopened: map[string]int{}, failed: map[string]int{},
		statuses: map[string][]syncer.SyncStatus{}}
}

func (o *observer) Listing(t string, reason syncer.ListReason) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lists[t] == nil {
		o.lists[t] = map[string]int{}
	}
	o.lists[t][reason.String()]++
}

func (o *observer) WatchRestarted(t string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reopened[t]++
}

// listCount returns the lists of type t, for any reason.
func (o *observer) listCount(t string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, c := range o.lists[t] {
		n += c
	}
	return n
}

func (o *observer) reasons(t string) map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]int{}
	for r, c := range o.lists[t] {
		out[r] = c
	}
	return out
}

func (o *observer) SyncFailed(t string, _ syncer.Failure) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failed[t]++
}

// failures returns how many failure episodes type t reported.
func (o *observer) failures(t string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.failed[t]
}

func (o *observer) TypeStatus(t string, s syncer.SyncStatus) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.statuses[t] = append(o.statuses[t], s)
}

// typeStatuses returns the statuses type t went through.
func (o *observer) typeStatuses(t string) []syncer.SyncStatus {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.statuses[t])
}
