package main

// Every public package of the library, so that the check sees their whole
// module graph, not only what the README's program links.
import (
	_ "github.com/kubesync/kubesync/checkpoint"
	_ "github.com/kubesync/kubesync/informer"
	_ "github.com/kubesync/kubesync/metrics"
	_ "github.com/kubesync/kubesync/resources"
	_ "github.com/kubesync/kubesync/snapshot"
	_ "github.com/kubesync/kubesync/syncer"
	_ "github.com/kubesync/kubesync/syncertest"
	_ "github.com/kubesync/kubesync/watchersets"
)
