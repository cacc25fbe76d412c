// Package watchersets names the sets of resource types that kubesync's consumers
// watch, and derives the RBAC each one needs.
//
// A Set is data: a name, a description and a list of resources.Type. The named
// sets are
//
//	dataplane  every bundled type (resources.All)
//	policy     namespaces, pods, service accounts, Kubernetes and Calico network
//	           policies, Calico global network policies, network sets
//	routing    nodes, IP pools, BGP configurations, BGP peers
//	services   services, endpoint slices
//
// Lookup returns one of them by name and Names lists them. A consumer composes
// its own set with Union and With, narrows one with Select (by a type's full name,
// such as "networkpolicies.crd.projectcalico.org", or by its bare resource name,
// such as "pods", when only one type has it) and restricts its namespaced types to
// one namespace with InNamespace. ClusterRole and ClusterRoleYAML give the least
// privilege that lets a syncer watch the set: get, list and watch on exactly its
// resources, and get on the namespace kube-system, the cluster identity of a
// checkpoint.
package watchersets
