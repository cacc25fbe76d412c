package watchersets_test

import (
	"fmt"

	"github.com/kubesync/kubesync/watchersets"
)

func ExampleLookup() {
	set, err := watchersets.Lookup("services")
	if err != nil {
		panic(err)
	}
	fmt.Println(set.TypeNames())
	_, err = watchersets.Lookup("storage")
	fmt.Println(err)
	// Output:
	// [services endpointslices.discovery.k8s.io]
	// unknown watcher set "storage" (known sets: dataplane, policy, routing, services)
}

func ExampleSet_Select() {
	policy, _ := watchersets.Lookup("policy")
	narrow, err := policy.Select("pods", "networkpolicies.crd.projectcalico.org")
	if err != nil {
		panic(err)
	}
	fmt.Println(narrow.TypeNames())
	_, err = policy.Select("networkpolicies")
	fmt.Println(err)
	// Output:
	// [pods networkpolicies.crd.projectcalico.org]
	// type name "networkpolicies" is ambiguous in set "policy"; use one of: networkpolicies.networking.k8s.io, networkpolicies.crd.projectcalico.org
}

func ExampleUnion() {
	routing, _ := watchersets.Lookup("routing")
	services, _ := watchersets.Lookup("services")
	agent := watchersets.Union("node-agent", routing, services)
	fmt.Println(agent.Name, len(agent.Types))
	// Output: node-agent 6
}

func ExampleSet_ClusterRoleYAML() {
	services, _ := watchersets.Lookup("services")
	out, err := services.ClusterRoleYAML("kubesync-services")
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// apiVersion: rbac.authorization.k8s.io/v1
	// kind: ClusterRole
	// metadata:
	//   name: kubesync-services
	// rules:
	// - apiGroups:
	//   - ""
	//   resources:
	//   - services
	//   verbs:
	//   - get
	//   - list
	//   - watch
	// - apiGroups:
	//   - discovery.k8s.io
	//   resources:
	//   - endpointslices
	//   verbs:
	//   - get
	//   - list
	//   - watch
	// - apiGroups:
	//   - ""
	//   resourceNames:
	//   - kube-system
	//   resources:
	//   - namespaces
	//   verbs:
	//   - get
}
