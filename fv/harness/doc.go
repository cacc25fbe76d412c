// Package harness holds what fv specs need beyond a control plane and its fault
// proxy (package controlplane): a TCP Balancer in front of several apiservers.
//
// The Balancer routes connections round robin over its backends and passes TLS
// through; it can cut every connection, take a backend out of the rotation and
// back, and pause all traffic (in front of etcd: an apiserver cut off from it).
package harness
