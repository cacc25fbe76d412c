// Package fleet measures what a fleet of node agents costs one real apiserver:
// N agents, each with its own client and connection, sync the dataplane watcher
// set over one loaded cluster, and the apiserver's CPU seconds, peak RSS, bytes
// sent and LIST and WATCH requests per resource are read from its /proc entry and
// its /metrics around each run. The runs: a cold start of an informer fleet and
// of a kubesync fleet; a rolling restart of every agent, k at a time, cold (no
// checkpoint) against warm (resumed from syncer.WithCheckpoint); and an apiserver
// restart with each fleet connected, so that the report judges kubesync's cold
// start and restart against the informer fleet's in one run.
//
// The agents are goroutines in one process, not processes: the apiserver's work
// is per connection and per request, which separate transports reproduce
// exactly, while fifty Go runtimes would spend the machine's two cores on their
// own garbage collection next to the apiserver being measured. Each agent dials
// its own TCP+TLS connection (HTTP/2: all its watches share it, as in a real
// agent), and a restart closes it, as a process exit would. An agent runs one
// of orchestrate's contenders, the same the benchmark runs in its processes.
//
// `make fleet` runs the full fleet (fv/fleet/cmd/fleet) and writes FLEET.md; the
// package's own spec runs a small fleet against the real control plane under
// `make test`.
package fleet
