// Package harness holds what fv specs need beyond a control plane
// (internal/controlplane): a fault-injecting Proxy in front of the apiserver, and a
// TCP Balancer in front of several.
//
// The Proxy speaks plain HTTP/1.1 to its clients and injects faults per resource:
// it can drop the open streams of one resource (Cut), answer 503 to it (Refuse) or
// 410 to its watches (ExpireWatches), keep its connections open and silent (Stall,
// StallOpen, or StallAll for everything), cap its bandwidth (Throttle), or swallow
// all traffic (Blackhole). It counts requests per resource and verb, and keeps
// working across apiserver restarts.
//
// The Balancer routes connections round robin over its backends and passes TLS
// through; it can cut every connection, take a backend out of the rotation and
// back, and pause all traffic (in front of etcd: an apiserver cut off from it).
package harness
