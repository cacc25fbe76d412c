package crds_test

import (
	"fmt"

	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/resources"
)

// For finds the manifest to install before watching a Calico type, e.g. with
// envtest or an apiextensions client.
func ExampleFor() {
	crd, err := crds.For(resources.GlobalNetworkPolicies)
	if err != nil {
		panic(err)
	}
	fmt.Println(crd.Name, crd.Spec.Scope)
	// Output:
	// globalnetworkpolicies.crd.projectcalico.org Cluster
}
