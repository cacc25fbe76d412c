package syncer_test

import (
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// An agent that syncs ConfigMaps holding random or encrypted data, which does
// not compress, from an apiserver on a fast link turns gzip off: un-gzipping it
// would be pure cost. The caller's rest.Config is left as it was.
func ExampleWithCompression() {
	cfg := &rest.Config{Host: "https://10.0.0.1:6443"}
	s, err := syncer.New(cfg, []resources.Type{resources.ConfigMaps}, syncertest.NewRecorder(), syncer.WithCompression(false))
	fmt.Println(s != nil, err, cfg.DisableCompression)
	// Output: true <nil> false
}
