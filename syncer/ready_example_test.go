package syncer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// A readiness probe: Ready names what keeps the syncer from being ready, here a
// required type the client may not list, and is nil once it may.
func ExampleSyncer_Ready() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pods, policies := resources.Pods, resources.GlobalNetworkPolicies
	api := syncertest.NewAPI(pods, policies)
	api.Put(pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}})
	api.Refuse(policies, syncertest.Forbidden(policies))
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	rec := syncertest.NewRecorder()
	s, err := syncer.New(nil, []resources.Type{pods, policies}, rec, api.Option(), syncer.WithLogger(quiet),
		syncer.WithRequired(policies.Name), syncer.WithTiming(syncer.Timing{Backoff: testBackoff}))
	if err != nil {
		panic(err)
	}
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	for ctx.Err() == nil && (s.Statuses()[0].Status != syncer.InSync || s.Statuses()[1].Phase != syncer.PhaseRefused) {
		time.Sleep(time.Millisecond)
	}
	err = s.Ready(0)
	fmt.Println(errors.Is(err, syncer.ErrNotReady), err)

	api.Allow(policies)
	if err := rec.WaitForStatus(ctx, syncer.InSync); err != nil {
		panic(err)
	}
	fmt.Println(s.Ready(0))
	// Output:
	// true syncer: not ready: globalnetworkpolicies.crd.projectcalico.org is refused (forbidden)
	// <nil>
}
