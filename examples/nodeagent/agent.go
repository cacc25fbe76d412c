package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// agent is the syncer's Callbacks: it keeps the values in a Store and prints the
// policies of each local pod whenever they may have changed.
type agent struct {
	node  string
	out   io.Writer
	store *snapshot.Store
	last  string // what was printed last, so that an unchanged result is not repeated
	// warm: the state resumed from a checkpoint is whole, so the agent programs
	// from it before InSync, while the apiserver may be down.
	warm bool
}

func newAgent(node string, out io.Writer) *agent {
	return &agent{node: node, out: out, store: snapshot.NewStore()}
}

// types are what the agent watches: its node's pods, and both kinds of Calico
// policy, each converted to the little the calculation needs.
func (a *agent) types() []resources.Type {
	return []resources.Type{
		resources.Pods.WithSelectors("", "spec.nodeName="+a.node).WithConvert(convertPod),
		resources.GlobalNetworkPolicies.WithConvert(convertPolicy(resources.GlobalNetworkPolicies)),
		resources.CalicoNetworkPolicies.WithConvert(convertPolicy(resources.CalicoNetworkPolicies)),
	}
}

// OnStatusUpdated implements syncer.Callbacks.
func (a *agent) OnStatusUpdated(s syncer.SyncStatus) {
	a.store.OnStatusUpdated(s)
	if s == syncer.InSync {
		a.print()
	}
}

// OnUpdates implements syncer.Callbacks. Before InSync the state is partial, so
// nothing is printed, unless it was resumed whole from a checkpoint.
func (a *agent) OnUpdates(ups []syncer.Update) {
	a.store.OnUpdates(ups)
	if a.warm || a.store.Status() == syncer.InSync {
		a.print()
	}
}

// OnResumed implements syncer.ResumeHandler: the checkpoint's snapshot has been
// delivered whole. It was true when the checkpoint was written; the agent programs
// from it now rather than wait for an apiserver that may be down, and applies what
// changed since as it arrives.
func (a *agent) OnResumed(syncer.Resumed) {
	a.warm = true
	a.print()
}

// print writes, for each local pod, the policies that select it, ordered by
// Calico's order then name.
func (a *agent) print() {
	var b strings.Builder
	var policies []policy
	for _, kind := range []string{resources.GlobalNetworkPolicies.Kind, resources.CalicoNetworkPolicies.Kind} {
		for _, kv := range a.store.List(kind) {
			policies = append(policies, kv.Value.(policy))
		}
	}
	slices.SortFunc(policies, func(x, y policy) int {
		return cmp.Or(cmp.Compare(x.order, y.order), strings.Compare(x.String(), y.String()))
	})
	for _, kv := range a.store.List(resources.Pods.Kind) {
		p := kv.Value.(pod)
		var names []string
		for _, pol := range policies {
			if pol.selects(p) {
				names = append(names, pol.String())
			}
		}
		fmt.Fprintf(&b, "  %s/%s: %s\n", p.namespace, p.name, strings.Join(names, ", "))
	}
	if b.String() == a.last {
		return
	}
	a.last = b.String()
	fmt.Fprintf(a.out, "policies of the pods on %s:\n%s", a.node, b.String())
}
