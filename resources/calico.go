package resources

import (
	"embed"
	"fmt"
	"io/fs"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// CalicoGroupVersion is the API group of the bundled custom types.
var CalicoGroupVersion = schema.GroupVersion{Group: "crd.projectcalico.org", Version: "v1"}

func calico(resource, kind string, namespaced bool) Type {
	return Custom(CalicoGroupVersion.WithResource(resource), kind, namespaced)
}

// The bundled custom types, served by the CRDs that CRDs returns.
var (
	GlobalNetworkPolicies = calico("globalnetworkpolicies", "GlobalNetworkPolicy", false)
	CalicoNetworkPolicies = calico("networkpolicies", "NetworkPolicy", true)
	GlobalNetworkSets     = calico("globalnetworksets", "GlobalNetworkSet", false)
	NetworkSets           = calico("networksets", "NetworkSet", true)
	HostEndpoints         = calico("hostendpoints", "HostEndpoint", false)
	IPPools               = calico("ippools", "IPPool", false)
	FelixConfigurations   = calico("felixconfigurations", "FelixConfiguration", false)
	BGPConfigurations     = calico("bgpconfigurations", "BGPConfiguration", false)
	BGPPeers              = calico("bgppeers", "BGPPeer", false)
	ClusterInformations   = calico("clusterinformations", "ClusterInformation", false)
)

// Calico returns the bundled custom types, in a stable order.
func Calico() []Type {
	return []Type{GlobalNetworkPolicies, CalicoNetworkPolicies, GlobalNetworkSets, NetworkSets,
		HostEndpoints, IPPools, FelixConfigurations, BGPConfigurations, BGPPeers, ClusterInformations}
}

// All returns every bundled type: the built-in ones, then the custom ones.
func All() []Type { return append(Builtin(), Calico()...) }

//go:embed crds/*.yaml
var crdFiles embed.FS

// CRDs returns fresh copies of the bundled CustomResourceDefinitions, one per type
// in Calico. Their schemas are structural and keep unknown fields.
func CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	paths, err := fs.Glob(crdFiles, "crds/*.yaml")
	if err != nil {
		return nil, err
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(paths))
	for _, p := range paths {
		raw, err := crdFiles.ReadFile(p)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(raw, crd); err != nil {
			return nil, fmt.Errorf("bundled CRD %s: %w", p, err)
		}
		crds = append(crds, crd)
	}
	return crds, nil
}

// CRDFor returns the bundled CRD that serves t, or an error if t is not bundled.
func CRDFor(t Type) (*apiextensionsv1.CustomResourceDefinition, error) {
	crds, err := CRDs()
	if err != nil {
		return nil, err
	}
	for _, crd := range crds {
		if crd.Spec.Group == t.GVR.Group && crd.Spec.Names.Plural == t.GVR.Resource {
			return crd, nil
		}
	}
	return nil, fmt.Errorf("no bundled CRD serves %s", t.Name)
}
