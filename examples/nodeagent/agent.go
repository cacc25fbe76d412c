package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// agent is the syncer's Callbacks: its Store keeps the values (and hears
// OnResumed), and its program loop prints the policies of each local pod from
// whole Views of the Store, on a goroutine of its own.
type agent struct {
	*snapshot.Store
	node string
	out  io.Writer
}

func newAgent(node string, out io.Writer) *agent {
	return &agent{Store: snapshot.NewStore(), node: node, out: out}
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

// required names the types the agent cannot do without. Without its policies a
// policy agent would program its pods open, so it names both kinds required
// (syncer.WithRequired): while one cannot be read the syncer stays out of
// InSync, a resumed snapshot without one is not whole, and the agent programs
// nothing new.
func (a *agent) required() []string {
	return []string{resources.GlobalNetworkPolicies.Name, resources.CalicoNetworkPolicies.Name}
}

// program prints what changed until ctx ends. Store.Next returns a View once the
// state is whole (in sync, or resumed whole from a checkpoint, even while the
// apiserver is down) and at each change after that; the View reads pods and
// policies as of one batch, and a slow print holds up no syncer.
func (a *agent) program(ctx context.Context) error {
	var v *snapshot.View
	last := "" // what was printed last, so that an unchanged result is not repeated
	for {
		var err error
		if v, err = a.Next(ctx, v); err != nil {
			return err
		}
		text, err := a.policies(v)
		switch {
		case err != nil:
			fmt.Fprintln(a.out, "nodeagent:", err)
		case text != last:
			last = text
			fmt.Fprintf(a.out, "policies of the pods on %s:\n%s", a.node, text)
		}
	}
}

// policies renders, for each local pod, the policies that select it, ordered by
// Calico's order then name: the global ones and those of its namespace.
func (a *agent) policies(v snapshot.Reader) (string, error) {
	global, err := snapshot.List[policy](v, resources.GlobalNetworkPolicies.Kind)
	if err != nil {
		return "", err
	}
	pods, err := snapshot.List[pod](v, resources.Pods.Kind)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range pods {
		local, err := namespacePolicies(v, p.namespace)
		if err != nil {
			return "", err
		}
		var names []string
		for _, pol := range sorted(append(local, global...)) {
			if pol.selects(p) {
				names = append(names, pol.String())
			}
		}
		fmt.Fprintf(&b, "  %s/%s: %s\n", p.namespace, p.name, cmp.Or(strings.Join(names, ", "), "none"))
	}
	return b.String(), nil
}

// namespacePolicies returns the namespaced policies of ns. The namespace index
// answers it from the policies of ns alone, not a scan of every policy.
func namespacePolicies(v snapshot.Reader, ns string) ([]policy, error) {
	return snapshot.ByIndex[policy](v, resources.CalicoNetworkPolicies.Kind, snapshot.NamespaceIndex, ns)
}

func sorted(policies []policy) []policy {
	return slices.SortedFunc(slices.Values(policies), func(x, y policy) int {
		return cmp.Or(cmp.Compare(x.order, y.order), strings.Compare(x.String(), y.String()))
	})
}

// OnSyncFailed implements syncer.SyncFailureHandler: a type the agent cannot read,
// reported once per episode.
func (a *agent) OnSyncFailed(typeName string, err error) {
	fmt.Fprintf(a.out, "cannot sync %s: %s\n", typeName, syncer.FailureOf(err))
}

// OnSyncRecovered implements syncer.SyncFailureHandler.
func (a *agent) OnSyncRecovered(typeName string) {
	fmt.Fprintf(a.out, "%s syncs again\n", typeName)
}
