package progress_test

import (
	"fmt"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
	"github.com/kubesync/kubesync/syncer"
)

func ExampleLine() {
	t := progress.NewTracker("namespaces", "pods", "nodes")
	t.Objects("namespaces", 4)
	t.TypeStatus("namespaces", syncer.InSync)
	t.Objects("pods", 1200)
	t.TypeStatus("pods", syncer.ResyncInProgress)
	fmt.Println(progress.Line(t.Snapshot()))
	// Output: syncing 1/3 types, 1204 objects:  namespaces 4 ✓  pods 1200 …  nodes ?
}
