// Package chaos runs a syncer over the dataplane set against a real control
// plane while a seeded schedule mixes faults at random, then checks that the
// syncer ended equal to the server, lost no write, stayed within a request
// budget, and kept its goroutines, heap and watches flat.
//
// A run (Run) has two flavours, the apiserver's watch cache off then on. Each
// starts a control plane, a fault-injecting proxy (controlplane.Proxy) in front of it,
// and a syncer that reaches the apiserver only through the proxy, as a user
// with the dataplane set's least-privileged ClusterRole. A seeded writer
// (fv/orchestrate's Writer) creates, updates and deletes objects of every type
// at a fixed rate, straight to the apiserver, while the Schedule's faults (see
// Kind) land at random times and overlap. Then comes a quiet phase, and the
// checks:
//   - the syncer is InSync, has one watch per type open, and its consumer
//     equals a fresh list of every type (fv/consistency), with no anomaly;
//   - every object the writer touched is held at its last revision, or absent
//     if deleted;
//   - per type, the lists the proxy received are within the budget: one per
//     fault that touched the type, plus bounds.MaxAttempts of the syncer's
//     backoff over each episode the type spent failing, plus the first list;
//     and no relist started while no fault touched the type;
//   - no type had two watches open for long, and the goroutines and the heap
//     after GC at the end match those after the initial sync;
//   - every kind of fault scheduled fired (the injection found requests to cut,
//     refuse, expire or hold) and was seen by the syncer (its Observer or log
//     showed the restart, relist, failure or error it causes, or it delivered
//     a canary object written during the fault) at least once in the run.
//
// The same seed gives the same schedule and the same writes (their timing and
// the faults' interleaving with the syncer vary), so a failing seed can be
// replayed: `make chaos SEED=… DURATION=…`.
package chaos
