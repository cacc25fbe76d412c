// Nodeagent is an example to copy: an agent on one node keeps a snapshot.Store of
// the pods of its node and of the Calico network policies, and prints, once the
// state is whole and on every change, the policies that select each local pod.
//
// The pattern is the one of a real agent: a field selector asks the apiserver for
// this node's pods only; conversions keep only what the calculation needs; the
// Store holds the values; the calculation runs on a goroutine of its own, not in
// a callback, from a View of the Store (snapshot.Store.Next), which reads pods
// and policies as of one batch, and finds the policies of a pod's namespace with
// the namespace index (snapshot.ByIndex) rather than a scan of every policy. The
// calculation itself is a toy: it understands the Calico selectors all() and
// key == 'value' joined by &&.
//
// A policy agent fails closed: both policy types are required
// (syncer.WithRequired), so while one of them cannot be read the syncer stays out
// of InSync and the agent programs nothing new; it reports the type
// (OnSyncFailed), and its readiness probe (/readyz, with --probe-addr) asks
// Syncer.Ready. It stops on SIGTERM, as a DaemonSet's pod is stopped, and on
// SIGINT, and shuts its probe server down.
//
//	go run ./examples/nodeagent --node node-a --kubeconfig ~/.kube/config --state-dir /var/lib/nodeagent --probe-addr :8080
//
// With --state-dir the agent keeps a checkpoint, and a restart starts warm: the
// Store hears OnResumed, and once the persisted snapshot is whole (every type
// in it, the required ones included) the agent programs from it at once, before
// InSync and even while the apiserver is down. A snapshot without a required
// type is not whole: the agent waits for InSync.
//
// The example's tests run it on kubesync's syncertest fake API: in sync and on
// changes; with a forbidden policy type; restarted from a checkpoint while the
// apiserver is down, and after the cluster changed while it was; and stopped
// from the goroutine of its dataplane.
package main
