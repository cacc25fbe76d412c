package warmstart

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// ckptInterval keeps the specs' checkpoints written often.
const ckptInterval = 100 * time.Millisecond

// statePath is a checkpoint path in a fresh directory of the spec's own.
func statePath() string { return filepath.Join(GinkgoT().TempDir(), "state", "agent.checkpoint") }

// logged returns a logger that writes to the GinkgoWriter and keeps its entries.
func logged() (*logrus.Logger, *test.Hook) {
	log := logrus.New()
	log.SetOutput(GinkgoWriter)
	log.SetLevel(logrus.InfoLevel)
	return log, test.NewLocal(log)
}

// messages returns the messages logged at level or above, in order.
func messages(h *test.Hook, level logrus.Level) []string {
	var out []string
	for _, e := range h.AllEntries() {
		if e.Level <= level {
			out = append(out, e.Message)
		}
	}
	return out
}

// withCheckpoint runs a syncer that keeps its checkpoint at path, logging to log.
func withCheckpoint(cfg *rest.Config, types []resources.Type, path string, log *logrus.Logger, opts ...syncer.Option) (*syncer.Syncer, *consistency.Mirror, *env.Observer) {
	return env.Run(cfg, types, append([]syncer.Option{syncer.WithLogger(log), fileCheckpoint(path)}, opts...)...)
}

// fileCheckpoint is the option of a checkpoint file at path, written often.
func fileCheckpoint(path string) syncer.Option {
	GinkgoHelper()
	cp, err := checkpoint.New(path, checkpoint.WithInterval(ckptInterval))
	Expect(err).NotTo(HaveOccurred())
	return syncer.WithCheckpoint(cp)
}

// checked ends a spec: the mirror equals the server, and nothing it received
// contradicted what it held.
func checked(ctx context.Context, cfg *rest.Config, m *consistency.Mirror, types []resources.Type) {
	env.Consistent(ctx, cfg, m, types)
	Expect(m.Anomalies()).To(BeEmpty())
}

var _ = Describe("Checkpoint and warm start", Ordered, func() {
	var c *cluster
	BeforeAll(func() { c = startCluster() })

	It("loses nothing when the agent is killed with SIGKILL while writes go on and a checkpoint is being written", func(ctx SpecContext) {
		killedWhileCheckpointing(ctx, c)
	})

	It("starts cold from a checkpoint of another cluster, logged once", func(ctx SpecContext) {
		coldFromOtherCluster(ctx, c)
	})

	It("starts cold from a checkpoint taken with other selectors, logged once", func(ctx SpecContext) {
		ns := c.Namespace(ctx, "ck-sel")
		c.Create(ctx, resources.Services, ns, env.Seq("obj", 5)...)
		one := []resources.Type{resources.Services.InNamespace(ns).WithSelectors("", "metadata.name=obj-0001")}
		two := []resources.Type{resources.Services.InNamespace(ns).WithSelectors("", "metadata.name=obj-0002")}
		path := statePath()
		log, _ := logged()
		s, m, _ := withCheckpoint(c.Config(), one, path, log)
		env.InSync(m)
		checked(ctx, c.Config(), m, one)
		s.Stop()
		s.Wait()

		log, hook := logged()
		_, m, _ = withCheckpoint(c.Config(), two, path, log)
		env.InSync(m)
		checked(ctx, c.Config(), m, two)
		Expect(m.Count(resources.Services.Kind, syncer.KVNew)).To(Equal(1))
		Expect(m.Count(resources.Services.Kind, syncer.KVDeleted)).To(BeZero(), "obj-0001 was never delivered")
		Expect(messages(hook, logrus.WarnLevel)).To(ConsistOf("Checkpoint does not match; starting cold"))
	})

	It("reports a corrupt checkpoint once, then starts cold", func(ctx SpecContext) {
		coldFromCorrupt(ctx, c)
	})

	It("refuses, with one line, a checkpoint path that is a symlink or world-writable", func(ctx SpecContext) {
		dir := filepath.Join(GinkgoT().TempDir(), "state")
		Expect(os.MkdirAll(dir, 0o700)).To(Succeed())
		target := filepath.Join(dir, "real")
		Expect(os.WriteFile(target, nil, 0o600)).To(Succeed())
		link := filepath.Join(dir, "agent.checkpoint")
		Expect(os.Symlink(target, link)).To(Succeed())
		_, err := checkpoint.New(link)
		Expect(err).To(MatchError(checkpoint.ErrRefused))
		Expect(err.Error()).To(ContainSubstring("it is a symlink"))
		Expect(err.Error()).NotTo(ContainSubstring("\n"))

		// The command, given a world-writable state directory, fails with one line.
		open := filepath.Join(GinkgoT().TempDir(), "open")
		Expect(os.MkdirAll(open, 0o700)).To(Succeed())
		Expect(os.Chmod(open, 0o777)).To(Succeed())
		agent := env.Kubesync("watch", "dataplane", "--kubeconfig", env.WriteKubeconfig(c.Config()),
			"--types", "namespaces", "--state-dir", open)
		Eventually(agent).Should(gexec.Exit(1))
		lines := strings.Split(strings.TrimSpace(string(agent.Err.Contents())), "\n")
		Expect(lines).To(HaveLen(1))
		Expect(lines[0]).To(ContainSubstring("world-writable"))
		Expect(agent.Out.Contents()).To(BeEmpty())
	})

	It("resumes with no list, one read of each type's revision that returns no object; changes meanwhile arrive as updates", env.Compat, func(ctx SpecContext) {
		resumedWithoutList(ctx, c)
	})

	It("delivers the snapshot while the apiserver is unreachable, stays ResyncInProgress, and recovers when it returns", func(ctx SpecContext) {
		resumedWhileUnreachable(ctx, c)
	})

	It("keeps lazy values as their bytes, and resumes them as the same lazy values; changes meanwhile arrive as updates", func(ctx SpecContext) {
		resumedLazily(ctx, c)
	})
})

// killedWhileCheckpointing is the spec that it loses nothing when the agent is killed
// with SIGKILL while writes go on and a checkpoint is being written.
func killedWhileCheckpointing(ctx SpecContext, c *cluster) {
	ns := c.Namespace(ctx, "ck-kill")
	types := c.populate(ctx, ns, 100)
	dir := filepath.Join(GinkgoT().TempDir(), "state")
	args := []string{"watch", "dataplane", "--kubeconfig", env.WriteKubeconfig(c.Config()), "-n", ns,
		"--types", "services,networksets.crd.projectcalico.org", "--state-dir", dir, "--log-level", "info"}

	agent := env.Kubesync(args...)
	Eventually(agent.Out).Should(gbytes.Say(`"status":"InSync"`))
	stopWrites := c.keepWriting(ctx, ns)
	// Three times: SIGKILL the moment a checkpoint write touches the file, then
	// start again from it, while the writes go on.
	for round := range 3 {
		// A write touches the file several times within milliseconds, and writes
		// are seconds apart: wait for one to finish (the file quiet for 500ms),
		// then kill the agent the moment the next one touches the file.
		before := modTime(dir)
		Eventually(func() time.Time { return modTime(dir) }, time.Minute, time.Millisecond).ShouldNot(Equal(before))
		Eventually(func() time.Duration { return time.Since(modTime(dir)) }, time.Minute).Should(BeNumerically(">", 500*time.Millisecond))
		before = modTime(dir)
		Eventually(func() time.Time { return modTime(dir) }, time.Minute, time.Millisecond).ShouldNot(Equal(before))
		agent.Kill()
		Eventually(agent).Should(gexec.Exit())
		agent = env.Kubesync(args...)
		Eventually(agent.Err).Should(gbytes.Say("Resumed from the checkpoint"), "round %d", round)
		Eventually(agent.Out).Should(gbytes.Say(`"status":"InSync"`))
	}
	stopWrites()
	Eventually(func() error {
		return consistency.Check(ctx, c.Config(), replayed(agent.Out.Contents()), types)
	}).Should(Succeed())
	Expect(replayed(agent.Out.Contents()).Anomalies()).To(BeEmpty())
}

// coldFromOtherCluster is the spec that it starts cold from a checkpoint of another
// cluster, logged once.
func coldFromOtherCluster(ctx SpecContext, c *cluster) {
	ns := c.Namespace(ctx, "ck-other")
	types := []resources.Type{resources.Services.InNamespace(ns)}
	c.Create(ctx, types[0], ns, env.Seq("obj", 20)...)
	// The same address, but the kube-system namespace of another cluster.
	path := statePath()
	store, _, err := checkpoint.Open(path, syncer.ClusterIdentity{Server: c.Config().Host, Cluster: "another-cluster"}, types)
	Expect(err).NotTo(HaveOccurred())
	ghost := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ghost", ResourceVersion: "3"}}
	store.Record(types[0].Name, ns+"/ghost", "3", ghost)
	store.Revision(types[0].Name, "3")
	Expect(store.Close()).To(Succeed())

	log, hook := logged()
	_, m, obs := withCheckpoint(c.Config(), types, path, log)
	env.InSync(m)
	checked(ctx, c.Config(), m, types)
	Expect(m.Count(types[0].Kind, syncer.KVNew)).To(Equal(20), "the ghost was never delivered")
	Expect(m.Count(types[0].Kind, syncer.KVDeleted)).To(BeZero())
	Expect(obs.Reasons(types[0].Name)).To(Equal(map[string]int{"initial": 1}))
	Expect(messages(hook, logrus.WarnLevel)).To(ConsistOf("Checkpoint was taken from another cluster"))
}

// coldFromCorrupt is the spec that it reports a corrupt checkpoint once, then starts
// cold.
func coldFromCorrupt(ctx SpecContext, c *cluster) {
	ns := c.Namespace(ctx, "ck-corrupt")
	types := c.populate(ctx, ns, 30)
	path := statePath()
	log, _ := logged()
	s, m, _ := withCheckpoint(c.Config(), types, path, log)
	env.InSync(m)
	s.Stop()
	s.Wait()
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	for i := 2 * 4096; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	Expect(os.WriteFile(path, b, 0o600)).To(Succeed())

	log, hook := logged()
	_, m, obs := withCheckpoint(c.Config(), types, path, log)
	env.InSync(m)
	checked(ctx, c.Config(), m, types)
	Expect(messages(hook, logrus.WarnLevel)).To(ConsistOf("Checkpoint is corrupt; moved aside, starting cold"))
	Expect(path + ".corrupt").To(BeAnExistingFile())
	for _, t := range types {
		Expect(m.Count(t.Kind, syncer.KVNew)).To(Equal(30))
		Expect(obs.Reasons(t.Name)).To(Equal(map[string]int{"initial": 1}))
	}
}

// resumedWithoutList is the spec that it resumes with no list, one read of each type's
// revision that returns no object; changes meanwhile arrive as updates.
func resumedWithoutList(ctx SpecContext, c *cluster) {
	ns, types, p, path := c.checkpointed(ctx, "ck-fence", 30)
	c.Create(ctx, types[0], ns, "while-stopped")
	c.Remove(ctx, types[1], ns, "obj-0001")

	// requests counts, over every type, LIST requests (pages) and streaming
	// lists (WATCH with sendInitialEvents) seen at the proxy.
	requests := func() (lists, streams int) {
		for _, t := range types {
			l := p.Requests(t.GVR.Group, t.GVR.Resource, "list")
			lists += l
			streams += len(p.Lists(t.GVR.Group, t.GVR.Resource)) - l
		}
		return lists, streams
	}
	lists, streams := requests()
	log, _ := logged()
	_, m, obs := withCheckpoint(p.Config(), types, path, log)
	env.InSync(m)
	checked(ctx, c.Config(), m, types)
	Expect(m.Statuses()).To(Equal([]syncer.SyncStatus{syncer.ResyncInProgress, syncer.InSync}))
	Expect(m.Count(types[0].Kind, syncer.KVNew)).To(Equal(31))
	Expect(m.Count(types[1].Kind, syncer.KVDeleted)).To(Equal(1))
	afterLists, afterStreams := requests()
	if env.StreamsLists(ctx, c.Cluster) {
		Expect(afterLists-lists).To(BeZero(), "no LIST")
		Expect(afterStreams-streams).To(Equal(len(types)), "one read of each type's revision")
	} else {
		// An apiserver that refuses streaming lists (1.31 and 1.33 by default):
		// each type's one stream is refused, and its revision read by a LIST of
		// at most one object instead.
		Expect(afterLists-lists).To(Equal(len(types)), "one LIST of one object per type")
		Expect(afterStreams-streams).To(Equal(len(types)), "one refused stream per type")
	}
	for _, t := range types {
		Expect(obs.Reasons(t.Name)).To(BeEmpty(), "%s watched on from its revision", t.Name)
	}
}

// resumedWhileUnreachable is the spec that it delivers the snapshot while the
// apiserver is unreachable, stays ResyncInProgress, and recovers when it returns.
func resumedWhileUnreachable(ctx SpecContext, c *cluster) {
	ns, types, p, path := c.checkpointed(ctx, "ck-down", 40)

	p.Blackhole(true)
	c.Create(ctx, types[0], ns, "while-down")
	c.Remove(ctx, types[1], ns, "obj-0001")
	log, hook := logged()
	_, m, obs := withCheckpoint(p.Config(), types, path, log)
	for _, t := range types {
		Eventually(func() int { return m.Len(t.Kind) }).Should(Equal(40), "%s: the snapshot, from the file alone", t.Name)
	}
	Consistently(m.Statuses, "3s").Should(Equal([]syncer.SyncStatus{syncer.ResyncInProgress}))
	Expect(messages(hook, logrus.InfoLevel)).To(ContainElement("Resumed from the checkpoint"))

	p.Blackhole(false)
	env.InSync(m)
	checked(ctx, c.Config(), m, types)
	Expect(m.Statuses()).To(Equal([]syncer.SyncStatus{syncer.ResyncInProgress, syncer.InSync}))
	Expect(m.Count(types[0].Kind, syncer.KVNew)).To(Equal(41))
	Expect(m.Count(types[1].Kind, syncer.KVDeleted)).To(Equal(1))
	for _, t := range types {
		Expect(obs.Reasons(t.Name)).To(BeEmpty(), "%s watched on from its revision", t.Name)
	}
}

var _ = Describe("Checkpoint after compaction", Ordered, func() {
	var c *cluster
	// With the watch cache off, a watch from a compacted revision is answered 410.
	BeforeAll(func() { c = startCluster(controlplane.WithWatchCache(false)) })

	It("relists the type whose revision was compacted, and reports only the difference", func(ctx SpecContext) {
		ns := c.Namespace(ctx, "ck-compact")
		types := c.populate(ctx, ns, 50)
		x, y := types[0], types[1]
		p := c.proxy()
		path := statePath()
		log, _ := logged()
		s, m, _ := withCheckpoint(p.Config(), types, path, log)
		env.InSync(m)

		// x is cut off and changes; etcd is compacted past x's revision; y moves on.
		p.Refuse(x.GVR.Group, x.GVR.Resource)
		p.Cut(x.GVR.Group, x.GVR.Resource)
		c.Create(ctx, x, ns, "new-1", "new-2", "new-3")
		c.Remove(ctx, x, ns, "obj-0001", "obj-0002")
		c.Touch(ctx, x, ns, "obj-0003")
		_, err := c.Compact(ctx)
		Expect(err).NotTo(HaveOccurred())
		rev := func() string { r, _ := m.Revision(y.KeyFor(ns, "obj-0004")); return r }
		before := rev()
		c.Touch(ctx, y, ns, "obj-0004")
		Eventually(rev).ShouldNot(Equal(before), "y reached a revision past the compaction")
		s.Stop()
		s.Wait() // the checkpoint is written
		p.Allow(x.GVR.Group, x.GVR.Resource)

		log, _ = logged()
		_, m, obs := withCheckpoint(p.Config(), types, path, log) // the same address: no cold start
		env.InSync(m)
		checked(ctx, c.Config(), m, types)
		Expect(obs.Reasons(x.Name)).To(Equal(map[string]int{"expired": 1}))
		// The snapshot (50 New), then the relist's difference alone.
		Expect(m.Count(x.Kind, syncer.KVNew)).To(Equal(50 + 3))
		Expect(m.Count(x.Kind, syncer.KVUpdated)).To(Equal(1))
		Expect(m.Count(x.Kind, syncer.KVDeleted)).To(Equal(2))
		// y's revision is past the compaction: it watches on. Without a watch cache
		// the apiserver sends no bookmark, so a quiet y may list once to know it is
		// caught up ("catchup"); either way it reports nothing new.
		Expect(obs.Reasons(y.Name)).NotTo(HaveKey("expired"))
		Expect(m.Count(y.Kind, syncer.KVNew)).To(Equal(50))
		Expect(m.Count(y.Kind, syncer.KVUpdated) + m.Count(y.Kind, syncer.KVDeleted)).To(BeZero())
	})
})

// checkpointed populates a new namespace with n objects of each of two types
// (populate), runs a syncer with a checkpoint through a new proxy to InSync and
// stops it, so that the checkpoint at path holds them.
func (c *cluster) checkpointed(ctx context.Context, prefix string, n int) (ns string, types []resources.Type, p *controlplane.Proxy, path string) {
	ns = c.Namespace(ctx, prefix)
	types = c.populate(ctx, ns, n)
	p, path = c.proxy(), statePath()
	log, _ := logged()
	s, m, _ := withCheckpoint(p.Config(), types, path, log)
	env.InSync(m)
	s.Stop()
	s.Wait()
	return ns, types, p, path
}

// populate creates n services and n network sets in ns and returns their types,
// restricted to ns: a typed built-in type (protobuf) and a custom one (JSON).
func (c *cluster) populate(ctx context.Context, ns string, n int) []resources.Type {
	types := []resources.Type{resources.Services.InNamespace(ns), resources.NetworkSets.InNamespace(ns)}
	for _, t := range types {
		c.Create(ctx, t, ns, env.Seq("obj", n)...)
	}
	return types
}

// proxy returns a fault proxy to the cluster, closed when the spec ends.
func (c *cluster) proxy() *controlplane.Proxy {
	p, err := controlplane.NewProxy(c.ControlPlane)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(p.Close)
	return p
}

// keepWriting creates, updates and deletes services and network sets in ns until
// the returned function is called; it returns once the writes have stopped.
func (c *cluster) keepWriting(ctx context.Context, ns string) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(finished)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			name := fmt.Sprintf("w-%04d", i)
			c.Create(ctx, resources.Services, ns, name)
			c.Touch(ctx, resources.NetworkSets, ns, env.Seq("obj", 100)[i%100])
			if i%3 == 2 {
				c.Remove(ctx, resources.Services, ns, fmt.Sprintf("w-%04d", i-2))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); <-finished }) }
}

// modTime is the last modification of the checkpoint in dir.
func modTime(dir string) time.Time {
	files, _ := filepath.Glob(filepath.Join(dir, "*.checkpoint"))
	if len(files) != 1 {
		return time.Time{}
	}
	fi, err := os.Stat(files[0])
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// replayed applies the complete lines of a command's output to a fresh mirror.
func replayed(out []byte) *consistency.Mirror {
	if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
		out = out[:i+1]
	} else {
		out = nil
	}
	m, _ := env.Replay(out)
	return m
}
