package warmstart

import (
	"context"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

// resumedLazily is the spec that a syncer with lazy values keeps each value's
// bytes in its checkpoint, and a warm start hands the same bytes on as lazy
// values (the services' protobuf, the network sets' JSON), then watches on
// from the persisted revisions: no type lists.
func resumedLazily(ctx context.Context, c *cluster) {
	const n = 20
	ns := c.Namespace(ctx, "ck-lazy")
	types := c.populate(ctx, ns, n)
	path := statePath()
	run := func() (*syncer.Syncer, *syncertest.Recorder, *env.Observer) {
		log, _ := logged()
		rec := syncertest.NewRecorder()
		s, m, obs := env.RunWith(c.Config(), types, rec, syncer.WithLogger(log), fileCheckpoint(path), syncer.WithLazyValues())
		env.InSync(m)
		checked(ctx, c.Config(), m, types)
		return s, rec, obs
	}
	s, cold, _ := run()
	s.Stop()
	s.Wait()
	c.Create(ctx, types[1], ns, "while-stopped")

	_, warm, obs := run()
	Expect(warm.Count(syncertest.Resumed)).To(Equal(1), "resumed from the checkpoint")
	state := warm.State()
	Expect(state).To(HaveLen(2*n + 1))
	for key, kv := range cold.State() {
		Expect(state[key].Value).To(BeAssignableToTypeOf(&resources.Raw{}), "%s: a lazy value", key)
		Expect(state[key].Value.(*resources.Raw).Bytes()).To(Equal(kv.Value.(*resources.Raw).Bytes()), "%s: the bytes kept", key)
	}
	created := state[types[1].KeyFor(ns, "while-stopped")].Value
	Expect(created).To(BeAssignableToTypeOf(&resources.Raw{}))
	obj, err := created.(*resources.Raw).Object()
	Expect(err).NotTo(HaveOccurred())
	Expect(obj.(metav1.Object).GetName()).To(Equal("while-stopped"))
	for _, t := range types {
		Expect(obs.Reasons(t.Name)).To(BeEmpty(), "%s watched on from its revision", t.Name)
	}
}
