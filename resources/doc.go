// Package resources is the model of what kubesync can watch: the Key and KVPair
// that the syncer reports, and Type, a descriptor of one watched resource type
// (its GroupVersionResource, scope, list options and the conversion from an API
// object to KVPairs). It also bundles the built-in types and the
// crd.projectcalico.org/v1 types; the CRD manifests of the latter are in package
// crds, so that importing resources does not link the apiextensions API. Raw is
// a value handed on undecoded, with what decodes it.
package resources
