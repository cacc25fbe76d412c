// Package resources is the model of what kubesync can watch: the Key and KVPair
// that the syncer reports, and Type, a descriptor of one watched resource type
// (its GroupVersionResource, scope, list options and the conversion from an API
// object to KVPairs). It also bundles the built-in types and the CRD manifests of
// the crd.projectcalico.org/v1 types, so that tests and a local control plane can
// install them.
package resources
