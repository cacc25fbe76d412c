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
	global, err := snapshot.List[policy](a.store, resources.GlobalNetworkPolicies.Kind)
	if err == nil {
		err = a.printPods(&b, global)
	}
	if err != nil {
		fmt.Fprintln(a.out, "nodeagent:", err)
		return
	}
	if b.String() == a.last {
		return
	}
	a.last = b.String()
	fmt.Fprintf(a.out, "policies of the pods on %s:\n%s", a.node, b.String())
}

// printPods writes a line for each local pod: the global policies and those of
// its namespace that select it.
func (a *agent) printPods(b *strings.Builder, global []policy) error {
	pods, err := snapshot.List[pod](a.store, resources.Pods.Kind)
	if err != nil {
		return err
	}
	for _, p := range pods {
		local, err := a.namespacePolicies(p.namespace)
		if err != nil {
			return err
		}
		policies := append(slices.Clone(global), local...)
		slices.SortFunc(policies, func(x, y policy) int {
			return cmp.Or(cmp.Compare(x.order, y.order), strings.Compare(x.String(), y.String()))
		})
		var names []string
		for _, pol := range policies {
			if pol.selects(p) {
				names = append(names, pol.String())
			}
		}
		if names == nil {
			names = []string{"none"}
		}
		fmt.Fprintf(b, "  %s/%s: %s\n", p.namespace, p.name, strings.Join(names, ", "))
	}
	return nil
}

// namespacePolicies returns the namespaced policies of ns. The Store's namespace
// index answers it from the policies of ns alone: a pod costs the policies that
// may apply to it, not a scan of every policy of the cluster.
func (a *agent) namespacePolicies(ns string) ([]policy, error) {
	return snapshot.ByIndex[policy](a.store, resources.CalicoNetworkPolicies.Kind, snapshot.NamespaceIndex, ns)
}

// required names the types the agent cannot do without. Without its policies a
// policy agent would program its pods open, so it names both kinds required
// (syncer.WithRequired): while one cannot be read, the syncer stays out of InSync
// and the agent programs nothing new.
func (a *agent) required() []string {
	return []string{resources.GlobalNetworkPolicies.Name, resources.CalicoNetworkPolicies.Name}
}

// OnSyncFailed implements syncer.SyncFailureHandler: a type the agent cannot read,
// reported once per episode.
func (a *agent) OnSyncFailed(typeName string, err error) {
	fmt.Fprintf(a.out, "cannot sync %s: %s\n", typeName, syncer.FailureOf(err))
}

// OnSyncRecovered implements syncer.SyncRecoveryHandler.
func (a *agent) OnSyncRecovered(typeName string) {
	fmt.Fprintf(a.out, "%s syncs again\n", typeName)
}

// notReady is what the agent's readiness probe reports from Syncer.TypeStatus:
// each type that is not in sync, and each required type that fails even after
// the sync, and why. The agent is ready when it is empty.
func notReady(types []syncer.TypeStatus) []string {
	var out []string
	for _, t := range types {
		if t.Status != syncer.InSync || t.Required && t.Failure != syncer.NoFailure {
			out = append(out, fmt.Sprintf("%s is %s (%s)", t.Name, t.Phase, t.Failure))
		}
	}
	return out
}
