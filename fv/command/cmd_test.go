package command

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/watchersets"
)

var _ = AfterSuite(gexec.CleanupBuildArtifacts)

var _ = Describe("The kubesync command", Ordered, func() {
	var c *cluster
	var kubeconfig string
	dataplane, err := watchersets.Lookup("dataplane")
	Expect(err).NotTo(HaveOccurred())

	BeforeAll(func(ctx SpecContext) {
		c = startCluster()
		c.Namespace(ctx, "cmd")
		for _, t := range []resources.Type{resources.Services, resources.NetworkSets, resources.GlobalNetworkPolicies, resources.Pods} {
			c.Create(ctx, t, "cmd", env.Seq("obj", 20)...)
		}
		kubeconfig = env.WriteKubeconfig(c.Config())
	})

	It("prints JSON lines that replay into a mirror equal to the server", func(ctx SpecContext) {
		s := env.Kubesync("watch", "dataplane", "--kubeconfig", kubeconfig, "-o", "json")
		Eventually(s.Out).Should(gbytes.Say(`"status":"InSync"`))
		c.Create(ctx, resources.Services, "cmd", "later")
		c.Touch(ctx, resources.NetworkSets, "cmd", "obj-0003")
		c.Remove(ctx, resources.GlobalNetworkPolicies, "", "obj-0004")
		Eventually(func() error {
			m, _ := env.Replay(s.Out.Contents())
			return consistency.Check(ctx, c.Config(), m, dataplane.Types)
		}).Should(Succeed())
		s.Interrupt()
		Eventually(s).Should(gexec.Exit(0))
	})

	It("names a forbidden type on stderr, goes on with the others, and says when it recovers", func(ctx SpecContext) {
		forbiddenTypeNamed(ctx, c, dataplane)
	})

	It("gives up with one line when the apiserver refuses its token for --connect-timeout", func() {
		cfg := rest.AnonymousClientConfig(c.Config())
		cfg.BearerToken = "not-a-valid-token"
		s := env.Kubesync("watch", "dataplane", "--kubeconfig", env.WriteKubeconfig(cfg), "--connect-timeout", "3s")
		Eventually(s).Should(gexec.Exit(1))
		Expect(string(s.Err.Contents())).To(MatchRegexp(`^kubesync: no type can be watched: the apiserver at \S+ ` +
			`refused every type for 3s: 17 unauthorized \(401: the credentials are not accepted\)\n$`))
		Expect(string(s.Out.Contents())).To(ContainSubstring(`"status":"InSync","types":17,"typesInSync":0,"failing":{"unauthorized":17}`))
	})

	It("counts in its table footer the types a user may watch, of all", func(ctx SpecContext) {
		footerCountsWatchable(ctx, c, dataplane)
	})

	DescribeTable("gives bad input a one-line error and an exit code",
		func(code int, message string, args func() []string) {
			s := env.Kubesync(args()...)
			Eventually(s).Should(gexec.Exit(code))
			stderr := strings.TrimSpace(string(s.Err.Contents()))
			Expect(stderr).To(ContainSubstring(message))
			Expect(strings.Split(stderr, "\n")).To(HaveLen(1), "one line: %q", stderr)
			Expect(stderr).NotTo(ContainSubstring("goroutine"))
		},
		Entry("an unknown set", 2, `unknown`, func() []string { return []string{"watch", "nosuchset", "--kubeconfig", kubeconfig} }),
		Entry("an unknown type", 2, `nosuchtype`, func() []string {
			return []string{"watch", "dataplane", "--types", "nosuchtype", "--kubeconfig", kubeconfig}
		}),
		Entry("an unreadable kubeconfig", 1, "/nonexistent/kubeconfig", func() []string {
			return []string{"watch", "dataplane", "--kubeconfig", "/nonexistent/kubeconfig"}
		}),
		Entry("an invalid kubeconfig", 1, "kubeconfig", func() []string {
			return []string{"watch", "dataplane", "--kubeconfig", env.WriteFile("kubeconfig", "clusters: [this is not: a kubeconfig")}
		}),
		Entry("an unreachable server", 1, "no answer from the apiserver", func() []string {
			return []string{"watch", "dataplane", "--connect-timeout", "2s", "--kubeconfig",
				env.WriteFile("kubeconfig", "apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: 'https://127.0.0.1:1'}}]\n"+
					"contexts: [{name: x, context: {cluster: x, user: x}}]\nusers: [{name: x, user: {}}]\ncurrent-context: x\n")}
		}),
	)
})

// forbiddenTypeNamed is the spec that it names a forbidden type on stderr, goes on
// with the others, and says when it recovers.
func forbiddenTypeNamed(ctx SpecContext, c *cluster, dataplane watchersets.Set) {
	role := dataplane.ClusterRole("dataplane-but-services")
	for i := range role.Rules {
		role.Rules[i].Resources = slices.DeleteFunc(slices.Clone(role.Rules[i].Resources), func(s string) bool { return s == "services" })
	}
	cfg, err := c.AddUserWithRole(ctx, "no-services", role)
	Expect(err).NotTo(HaveOccurred())
	s := env.Kubesync("watch", "dataplane", "--kubeconfig", env.WriteKubeconfig(cfg), "-o", "json")
	Eventually(s.Out).Should(gbytes.Say(`"status":"InSync"`))
	Eventually(s.Err).Should(gbytes.Say(`services`))
	_, recs := env.Replay(s.Out.Contents())
	Expect(recs).To(ContainElement(And(
		HaveField("SyncFailed", "services"), HaveField("Reason", "forbidden"))))
	Expect(s.ExitCode()).To(Equal(-1), "still running")

	Expect(c.GrantUserAccess(ctx, "no-services", "", "services", "list", "watch")).To(Succeed())
	Eventually(s.Err).Should(gbytes.Say(`kubesync: services recovered: watching it again\n`))
	Eventually(func() []env.Record { _, recs := env.Replay(s.Out.Contents()); return recs }).Should(
		ContainElement(HaveField("SyncRecovered", "services")))
}

// footerCountsWatchable is the spec that it counts in its table footer the types a
// user may watch, of all.
func footerCountsWatchable(ctx SpecContext, c *cluster, dataplane watchersets.Set) {
	role := dataplane.ClusterRole("dataplane-pods-and-services")
	role.Rules = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods", "services"}, Verbs: []string{"list", "watch"}}}
	cfg, err := c.AddUserWithRole(ctx, "pods-and-services", role)
	Expect(err).NotTo(HaveOccurred())
	s := env.Kubesync("watch", "dataplane", "--kubeconfig", env.WriteKubeconfig(cfg), "-o", "table")
	Eventually(s.Out).Should(gbytes.Say(`in sync: 2 of 17 types, \d+ keys; 15 forbidden\n`))
	Expect(s.ExitCode()).To(Equal(-1), "still running")
	Expect(strings.Count(string(s.Err.Contents()), "(403), retrying")).To(Equal(15))
}

var _ = Describe("The command's metrics", func() {
	It("show the relist counter rise for the expired type alone", func(ctx SpecContext) {
		c := startCluster(controlplane.WithWatchCache(false))
		a := resources.GlobalNetworkSets
		c.Create(ctx, a, "", env.Seq("obj", 10)...)
		p, err := controlplane.NewProxy(c.ControlPlane)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		addr := freeAddr()
		s := env.Kubesync("watch", "dataplane", "--kubeconfig", env.WriteKubeconfig(p.Config()), "-o", "json", "--metrics-addr", addr)
		Eventually(s.Out).Should(gbytes.Say(`"status":"InSync"`))
		before := scrapeLists(addr)
		Expect(before).To(HaveKeyWithValue(a.Name+"/initial", 1.0))

		watches := p.Requests(a.GVR.Group, a.GVR.Resource, "watch")
		p.Refuse(a.GVR.Group, a.GVR.Resource)
		p.Cut(a.GVR.Group, a.GVR.Resource)
		Eventually(func() int { return p.Requests(a.GVR.Group, a.GVR.Resource, "watch") }).Should(BeNumerically(">", watches+1))
		c.Remove(ctx, a, "", "obj-0001")
		_, err = c.Compact(ctx)
		Expect(err).NotTo(HaveOccurred())
		p.Allow(a.GVR.Group, a.GVR.Resource)

		Eventually(func() float64 { return scrapeLists(addr)[a.Name+"/expired"] }).Should(BeNumerically(">=", 1))
		after := scrapeLists(addr)
		for k, v := range after {
			if !strings.HasPrefix(k, a.Name+"/") {
				Expect(v).To(Equal(before[k]), "%s", k)
			}
		}
		Expect(len(after)).To(Equal(len(before) + 1))
	})
})

// scrapeLists reads kubesync_lists_total from the command's /metrics, by
// "type/reason".
func scrapeLists(addr string) map[string]float64 {
	resp, err := http.Get("http://" + addr + "/metrics")
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	out := map[string]float64{}
	f, ok := families["kubesync_lists_total"]
	Expect(ok).To(BeTrue(), "kubesync_lists_total is exported")
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		out[fmt.Sprintf("%s/%s", labels["type"], labels["reason"])] = m.GetCounter().GetValue()
	}
	return out
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().String()
}
