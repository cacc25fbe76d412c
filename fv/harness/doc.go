// Package harness holds what fv specs need beyond a control plane
// (internal/controlplane): a fault-injecting Proxy in front of the apiserver. It is
// plain HTTP and injects faults per resource: it can drop the open streams of one
// resource (Cut), answer 503 to it (Refuse), or swallow all traffic (Blackhole). It
// keeps working across apiserver restarts.
package harness
