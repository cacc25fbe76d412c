package syncer_test

import (
	"fmt"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// TypeOf maps the name that OnSyncFailed and the metrics report to the Key.Kind of
// the type's objects, and back.
func ExampleSyncer_TypeOf() {
	types := []resources.Type{resources.Pods, resources.GlobalNetworkPolicies}
	s, err := syncer.New(nil, types, syncertest.NewRecorder(), syncertest.NewAPI(types...).Option())
	if err != nil {
		panic(err)
	}
	byName, _ := s.TypeOf("globalnetworkpolicies.crd.projectcalico.org")
	byKind, _ := s.TypeOf("Pod")
	fmt.Println(byName.Kind)
	fmt.Println(byKind.Name)
	// Output:
	// GlobalNetworkPolicy.crd.projectcalico.org
	// pods
}
