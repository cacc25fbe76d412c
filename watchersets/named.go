package watchersets

import (
	"fmt"
	"strings"

	"github.com/kubesync/kubesync/resources"
)

// The names of the predefined sets.
const (
	Dataplane = "dataplane"
	Policy    = "policy"
	Routing   = "routing"
	Services  = "services"
)

// named returns fresh copies of the predefined sets, in the order Names gives.
func named() []Set {
	return []Set{
		{
			Name:        Dataplane,
			Description: "every bundled type: what a node's dataplane agent watches",
			Types:       resources.All(),
		},
		{
			Name:        Policy,
			Description: "what a policy-only agent watches: endpoints, identities and network policies",
			Types: []resources.Type{
				resources.Namespaces, resources.Pods, resources.ServiceAccounts,
				resources.KubernetesNetworkPolicies,
				resources.GlobalNetworkPolicies, resources.CalicoNetworkPolicies,
				resources.GlobalNetworkSets, resources.NetworkSets,
			},
		},
		{
			Name:        Routing,
			Description: "what a routing agent watches: nodes, IP pools and BGP configuration",
			Types: []resources.Type{
				resources.Nodes, resources.IPPools, resources.BGPConfigurations, resources.BGPPeers,
			},
		},
		{
			Name:        Services,
			Description: "what a service proxy watches: services and their endpoint slices",
			Types:       []resources.Type{resources.Services, resources.EndpointSlices},
		},
	}
}

// Sets returns the predefined sets, ordered as Names. The caller owns them.
func Sets() []Set { return named() }

// Names returns the names of the predefined sets, in a stable order.
func Names() []string {
	sets := named()
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = s.Name
	}
	return names
}

// Lookup returns the predefined set called name, or an error that lists the known
// sets.
func Lookup(name string) (Set, error) {
	for _, s := range named() {
		if s.Name == name {
			return s, nil
		}
	}
	return Set{}, fmt.Errorf("unknown watcher set %q (known sets: %s)", name, strings.Join(Names(), ", "))
}
