package resources

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CalicoGroupVersion is the API group of the bundled custom types.
var CalicoGroupVersion = schema.GroupVersion{Group: "crd.projectcalico.org", Version: "v1"}

func calico(resource, kind string, namespaced bool) Type {
	return Custom(CalicoGroupVersion.WithResource(resource), kind, namespaced)
}

// The bundled custom types, served by the CRDs of package crds.
var (
	GlobalNetworkPolicies Type
	CalicoNetworkPolicies Type
	GlobalNetworkSets     Type
	NetworkSets           Type
	HostEndpoints         Type
	IPPools               Type
	FelixConfigurations   Type
	BGPConfigurations     Type
	BGPPeers              Type
	ClusterInformations   Type
)

// Calico returns the bundled custom types, in a stable order.
func Calico() []Type {
	return []Type{GlobalNetworkPolicies, CalicoNetworkPolicies, GlobalNetworkSets, NetworkSets,
		HostEndpoints, IPPools, FelixConfigurations, BGPConfigurations, BGPPeers, ClusterInformations}
}

// All returns every bundled type: the built-in ones, then the custom ones.
func All() []Type { return append(Builtin(), Calico()...) }

// init gives the bundled custom types their values here rather than in their
// declarations, so that go doc shows the variables and not the helper calls.
func init() {
	GlobalNetworkPolicies = calico("globalnetworkpolicies", "GlobalNetworkPolicy", false)
	CalicoNetworkPolicies = calico("networkpolicies", "NetworkPolicy", true)
	GlobalNetworkSets = calico("globalnetworksets", "GlobalNetworkSet", false)
	NetworkSets = calico("networksets", "NetworkSet", true)
	HostEndpoints = calico("hostendpoints", "HostEndpoint", false)
	IPPools = calico("ippools", "IPPool", false)
	FelixConfigurations = calico("felixconfigurations", "FelixConfiguration", false)
	BGPConfigurations = calico("bgpconfigurations", "BGPConfiguration", false)
	BGPPeers = calico("bgppeers", "BGPPeer", false)
	ClusterInformations = calico("clusterinformations", "ClusterInformation", false)
}
