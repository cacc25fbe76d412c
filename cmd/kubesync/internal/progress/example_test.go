package progress_test

import (
	"fmt"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
	"github.com/kubesync/kubesync/syncer"
)

func ExampleLine() {
	t := progress.NewTracker("namespaces", "pods", "nodes")
	t.Keys("namespaces", 4)
	t.StatusChanged("namespaces", syncer.InSync)
	t.Keys("pods", 1200)
	t.StatusChanged("pods", syncer.ResyncInProgress)
	fmt.Println(progress.Line(t.Snapshot()))
	// Output: syncing 1/3 types, 1204 keys:  namespaces 4 ✓  pods 1200 …  nodes ?
}
