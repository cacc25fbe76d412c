package syncer_test

import (
	"context"
	"fmt"
	"io"

	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// A policy agent that must not run without its policies names their type
// required: while the client may not list them, the syncer is not InSync, and
// TypeStatus says why, e.g. for a readiness probe.
func ExampleWithRequired() {
	pods, policies := resources.Pods, resources.GlobalNetworkPolicies
	api := syncertest.NewAPI(pods, policies)
	api.Refuse(policies, syncertest.Forbidden(policies))

	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	rec := syncertest.NewRecorder()
	s, err := syncer.New(nil, []resources.Type{pods, policies}, rec, api.Option(),
		syncer.WithLogger(quiet), syncer.WithRequired(policies.Name))
	if err != nil {
		panic(err)
	}
	s.Start(context.Background())
	defer func() { s.Stop(); s.Wait() }()
	settled := func(r *syncertest.Recorder) bool {
		st, _ := r.Status()
		return r.Count(syncertest.SyncFailed) > 0 && st == syncer.ResyncInProgress
	}
	if err := rec.WaitFor(context.Background(), settled); err != nil {
		panic(err)
	}
	st := s.Statuses()[1]
	fmt.Printf("%s required=%v %s %s: %v\n", st.Name, st.Required, st.Phase, st.Failure, st.Status)
	status, _ := rec.Status()
	fmt.Println("status:", status)
	// Output:
	// globalnetworkpolicies.crd.projectcalico.org required=true refused forbidden: ResyncInProgress
	// status: ResyncInProgress
}
