// Command callbacks prints what a syncer reports for the "dataplane" set of types,
// from the cluster of your kubeconfig ($KUBECONFIG or ~/.kube/config).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/watchersets"
)

// printer is the smallest consumer: it prints what it is told.
type printer struct{}

func (printer) OnStatusUpdated(s syncer.SyncStatus) { fmt.Println("status:", s) }

func (printer) OnUpdates(ups []syncer.Update) {
	for _, u := range ups {
		fmt.Println(u.UpdateType, u.Key, u.Revision)
	}
}

// OnSyncFailed and OnSyncRecovered are optional: a type the client may not list,
// or that the cluster does not serve, and its recovery.
func (printer) OnSyncFailed(typeName string, err error) {
	fmt.Println("failed:", typeName, syncer.FailureOf(err))
}

func (printer) OnSyncRecovered(typeName string) { fmt.Println("recovered:", typeName) }

func main() {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		log.Fatal(err)
	}
	set, err := watchersets.Lookup(watchersets.Dataplane)
	if err != nil {
		log.Fatal(err)
	}
	s, err := syncer.New(cfg, set.Types, printer{})
	if err != nil {
		log.Fatal(err)
	}
	// SIGTERM is how Kubernetes stops a pod, SIGINT a terminal's Ctrl-C.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := s.Run(ctx); err != nil { // until one of them
		log.Fatal(err)
	}
}
