package syncer_test

import (
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// An agent on the apiserver's own network turns gzip off: its syncs then cost
// less CPU on both sides, for more bytes on a cheap link.
func ExampleWithCompression() {
	cfg := &rest.Config{Host: "https://10.0.0.1:6443"}
	s, err := syncer.New(cfg, []resources.Type{resources.Pods}, syncertest.NewRecorder(), syncer.WithCompression(false))
	fmt.Println(s != nil, err, cfg.DisableCompression)
	// Output: true <nil> false
}
