package output_test

import (
	"os"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/output"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

func ExampleJSON() {
	j := output.NewJSON(os.Stdout)
	j.OnStatusUpdated(syncer.ResyncInProgress)
	j.OnUpdates([]syncer.Update{{
		KVPair:     resources.KVPair{Key: resources.Key{Kind: "Pod", Namespace: "default", Name: "web"}, Revision: "1234"},
		UpdateType: syncer.KVNew,
	}})
	j.OnStatusUpdated(syncer.InSync)
	// Output:
	// {"status":"ResyncInProgress"}
	// {"type":"New","key":"Pod/default/web","kind":"Pod","namespace":"default","name":"web","revision":"1234"}
	// {"status":"InSync"}
}
