// Package bench measures kubesync against client-go informers on one real control
// plane (etcd + kube-apiserver from package controlplane), each contender in its
// own process: CPU, peak RSS and Go heap after GC of the initial sync, time to
// InSync, and the CPU, peak RSS and time of a relist triggered on the live
// apiserver (through controlplane's Proxy, which expires the watches), with RSS and
// CPU sampled every 100 ms for the charts. Per key, it reports what the syncer
// keeps once in sync (the heap a count-only consumer's process grew by over the
// sync: an upper bound on the ledger) and what a label index adds to a Store
// (contender (b-index), on the ConfigMaps).
//
// The orchestrator (Run) starts the control plane, loads the workloads, then starts
// the benchmark binary again once per contender and run (RunContender), one at a
// time, interleaved. The two talk over the contender's stdin and stdout, one JSON
// object a line (see Message and Command). The kubesync and informer
// contenders are orchestrate's, which the fleet's agents run too. `make bench` runs it; `make test` only
// runs the unit tests of the report code.
//
// Then the fan-out contenders (fanout.go) run on the same workloads: one syncer
// feeding a snapshot.Broker with 1, 10 and 100 subscribers, and a late subscriber
// joining once they caught up, against 100 consumers that each run their own
// syncer and Store.
//
// The kube-rs-shaped benchmark (kubers.go, RunKubers, cmd/kubers) runs the shape
// of kube-rs's memory benchmark (10,000 small ConfigMaps; the initial list, 5,000
// updates and 1,000 deletes, a relist) against the same kind of control plane,
// with kubesync and an informer, and reports each phase's peak and steady heap and
// allocations beside kube-rs's published figures (BENCHMARKS-kubers.md).
package bench
