package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// quiet is a logger that writes nothing, so that an example's output is the agent's.
func quiet() logrus.FieldLogger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}

// fast retries within milliseconds, so that an example does not wait out the
// default backoff.
var fast = syncer.WithTiming(syncer.Timing{Backoff: wait.Backoff{Duration: 10 * time.Millisecond, Factor: 2, Cap: 100 * time.Millisecond}})

// A policy type the agent may not read keeps it out of InSync: it reports the
// type, programs nothing, and its readiness probe (Syncer.Ready) says why. Once the grant is
// back, the agent syncs and prints.
func Example_requiredForbidden() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	printed := make(lines, 8)
	a := newAgent("node-a", printed)
	types := a.types()
	pods, namespaced := types[0], types[2]
	api := syncertest.NewAPI(types...)
	api.Put(pods, localPod("shop", "web-1", map[string]string{"app": "web"}))
	api.Put(namespaced, calicoPolicy(namespaced, "shop", "allow-web", 10, "app == 'web'"))
	api.Refuse(namespaced, syncertest.Forbidden(namespaced))

	s, err := syncer.New(nil, types, a, api.Option(), syncer.WithLogger(quiet()), fast,
		syncer.WithRequired(a.required()...))
	if err != nil {
		panic(err)
	}
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	go a.program(ctx)
	fmt.Print(<-printed)
	// The other types sync; the refused one holds the status back.
	for ctx.Err() == nil && !othersInSync(s.Statuses(), namespaced.Name) {
		time.Sleep(time.Millisecond)
	}
	fmt.Println("status:", a.Status())
	fmt.Println(s.Ready(0))

	api.Allow(namespaced)
	fmt.Print(<-printed, <-printed)
	fmt.Println("ready:", s.Ready(0))
	// Output:
	// cannot sync networkpolicies.crd.projectcalico.org: forbidden
	// status: ResyncInProgress
	// syncer: not ready: networkpolicies.crd.projectcalico.org is refused (forbidden)
	// networkpolicies.crd.projectcalico.org syncs again
	// policies of the pods on node-a:
	//   shop/web-1: shop/allow-web
	// ready: <nil>
}

// othersInSync reports whether every type but the one named is in sync.
func othersInSync(types []syncer.TypeStatus, but string) bool {
	for _, t := range types {
		if t.Name != but && t.Status != syncer.InSync {
			return false
		}
	}
	return true
}
