// Package crds bundles the CustomResourceDefinitions of the crd.projectcalico.org/v1
// types that package resources describes (resources.Calico), so that tests and a
// local control plane can install them.
//
// It is a package of its own so that a program that only watches a cluster, and
// imports syncer or resources, does not link k8s.io/apiextensions-apiserver.
package crds
