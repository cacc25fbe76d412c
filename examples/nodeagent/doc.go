// Nodeagent is an example to copy: an agent on one node keeps a snapshot.Store of
// the pods of its node and of the Calico network policies, and prints, once in
// sync and on every change, the policies that select each local pod.
//
// The pattern is the one of a real agent: a field selector asks the apiserver for
// this node's pods only; conversions keep only what the calculation needs; the
// Store holds the values; the calculation runs on the Store after each batch, once
// the syncer is in sync. The calculation itself is a toy: it understands the Calico
// selectors all() and key == 'value' joined by &&.
//
//	go run ./examples/nodeagent --node node-a --kubeconfig ~/.kube/config --state-dir /var/lib/nodeagent
//
// With --state-dir the agent keeps a checkpoint, and a restart starts warm: at
// OnResumed (syncer.ResumeHandler) the persisted snapshot is whole, and the agent
// programs from it at once, before InSync and even while the apiserver is down.
//
// The example's test runs it on kubesync's syncertest fake API.
package main
