// Package ha runs kubesync against a highly available control plane
// (orchestrate's Cluster with three apiservers): three kube-apiservers on one
// etcd behind a round-robin TCP balancer (fv/harness), the last of them
// reaching etcd through a link that can pause, so that its watch cache falls
// behind while it keeps serving. The package holds the faults and their
// seeded Schedule (Inject, Schedule.Run).
//
// Its spec runs a syncer through the balancer over a set of types while a
// seeded Writer (fv/orchestrate) changes their objects and a seeded Schedule
// injects faults every few seconds, overlapping (those on one apiserver take
// turns): graceful restarts and kills (SIGKILL) of any apiserver, every
// connection cut, an apiserver drained from the rotation, and the lagging one
// cut off from etcd. Then it checks that the syncer's Consumer equals the
// server key by key (fv/consistency), that no key's revision went backwards in
// what the consumer saw, and measures the time from the end of the last fault
// to that convergence.
//
// A second spec, on apiservers with ConsistentListFromCacheSkipTimeoutFallback
// on, has every apiserver's priority and fairness reject the syncer's user
// (429 with Retry-After) for a while, and checks that none of those 429s
// counted toward a relist, that each retry waited at least the Retry-After,
// and that the syncer then equals the server, no revision gone back.
//
// KUBESYNC_HA_SEED picks the schedule (default: the time) and
// KUBESYNC_HA_DURATION its length (default 60s).
package ha
