package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gstruct"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/cli"
	"github.com/kubesync/kubesync/cmd/kubesync/internal/output"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncertest"
)

const podsPath = "/api/v1/pods"

var _ = Describe("kubesync watch", func() {
	var (
		api  *syncertest.API
		srv  *syncertest.Server
		path string
	)
	netpols := resources.KubernetesNetworkPolicies

	BeforeEach(func() {
		api = syncertest.NewAPI(resources.Namespaces, resources.Pods, netpols, resources.Services, resources.EndpointSlices)
		srv = syncertest.NewServer(api)
		DeferCleanup(srv.Close)
		path = kubeconfig(srv.URL())
		put(api, resources.Namespaces, "", "default", 5)
		put(api, resources.Pods, "default", "web", 11)
		put(api, resources.Pods, "team-a", "db", 12)
		api.Refuse(netpols, syncertest.Forbidden(netpols))
	})

	watch := func(extra ...string) *running {
		args := append([]string{"watch", "policy", "--kubeconfig", path,
			"--types", "namespaces,pods,networkpolicies.networking.k8s.io,globalnetworkpolicies"}, extra...)
		return start(args)
	}

	statusOf := func(recs []output.Record) []string {
		var st []string
		for _, r := range recs {
			if r.Status != "" {
				st = append(st, r.Status)
			}
		}
		return st
	}

	It("prints one JSON line per update, status change and failing type", func() {
		r := watch()
		Eventually(func() []string { return statusOf(r.records()) }).Should(ContainElement("InSync"))
		recs := r.records()
		Expect(recs).To(ContainElements(
			output.Record{Type: "New", Key: "Namespace/default", Kind: "Namespace", Name: "default",
				Revision: "5", UID: "uid-default"},
			output.Record{Type: "New", Key: "Pod/default/web", Kind: "Pod", Namespace: "default", Name: "web",
				Revision: "11", UID: "uid-web"},
			output.Record{Type: "New", Key: "Pod/team-a/db", Kind: "Pod", Namespace: "team-a", Name: "db",
				Revision: "12", UID: "uid-db"},
		))
		Expect(recs).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"SyncFailed": Equal("networkpolicies.networking.k8s.io"),
			"Reason":     Equal("forbidden"),
			"Error":      ContainSubstring("forbidden"),
		})))
		Expect(recs).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"SyncFailed": Equal("globalnetworkpolicies.crd.projectcalico.org"),
			"Reason":     Equal("notServed"),
		})))
		Expect(statusOf(recs)[0]).To(Equal("WaitForDatastore"))

		By("going on with the other types, with one line on stderr per failing type")
		// The lines held back until InSync are released by the command's own
		// goroutine after the status line it printed.
		Eventually(func() int { return strings.Count(r.err.String(), "\n") }).Should(Equal(2), r.err.String)
		Consistently(func() int { return strings.Count(r.err.String(), "\n") }).WithTimeout(200 * time.Millisecond).Should(Equal(2))
		Expect(r.err.String()).To(ContainSubstring(
			"kubesync: not allowed to watch networkpolicies.networking.k8s.io (403), retrying: "))
		Expect(r.err.String()).To(ContainSubstring(
			"kubesync: globalnetworkpolicies.crd.projectcalico.org is not served"))

		Eventually(api.Resource(resources.Pods).OpenWatches).Should(Equal(1))
		put(api, resources.Pods, "default", "web", 13)
		api.Delete(resources.Pods, "team-a", "db") // at 14
		Eventually(r.records).Should(ContainElements(
			output.Record{Type: "Updated", Key: "Pod/default/web", Kind: "Pod", Namespace: "default", Name: "web",
				Revision: "13", UID: "uid-web"},
			output.Record{Type: "Deleted", Key: "Pod/team-a/db", Kind: "Pod", Namespace: "team-a", Name: "db",
				Revision: "14", UID: "uid-db"},
		))
		Expect(r.stop()).To(Equal(cli.ExitOK))
	})

	It("includes values with --values", func() {
		r := watch("--values")
		Eventually(func() []string { return statusOf(r.records()) }).Should(ContainElement("InSync"))
		var web output.Record
		for _, rec := range r.records() {
			if rec.Key == "Pod/default/web" {
				web = rec
			}
		}
		var value struct {
			Metadata struct{ Name, Namespace string }
		}
		Expect(json.Unmarshal(web.Value, &value)).To(Succeed())
		Expect(value.Metadata.Name).To(Equal("web"))
		Expect(value.Metadata.Namespace).To(Equal("default"))
	})

	It("watches namespaced types in one namespace with -n", func() {
		r := watch("-n", "team-a")
		Eventually(func() []string { return statusOf(r.records()) }).Should(ContainElement("InSync"))
		Expect(srv.Paths()).To(ContainElement("/api/v1/namespaces/team-a/pods"))
		Expect(srv.Paths()).NotTo(ContainElement(podsPath))
		Expect(srv.Paths()).To(ContainElement("/api/v1/namespaces"), "cluster-scoped types are not restricted")
		var keys []string
		for _, rec := range r.records() {
			if rec.Type != "" {
				keys = append(keys, rec.Key)
			}
		}
		Expect(keys).To(ConsistOf("Namespace/default", "Pod/team-a/db"))
	})

	It("prints a summary, then a row per update, with -o table", func() {
		r := watch("-o", "table")
		Eventually(r.out.String).Should(ContainSubstring("in sync: 2 of 4 types, 3 keys; 1 forbidden, 1 not served\n"))
		out := r.out.String()
		Expect(out).To(MatchRegexp(`(?m)^TYPE +KEYS +AGE  STATE$`))
		Expect(out).To(MatchRegexp(`(?m)^namespaces +1 +\d+s  in sync$`), "the age of its view")
		Expect(out).To(MatchRegexp(`(?m)^pods +2 +\d+s  in sync$`))
		Expect(out).To(MatchRegexp(`(?m)^networkpolicies.networking.k8s.io +0 +-  forbidden$`), "confirmed nothing")
		Expect(out).To(MatchRegexp(`(?m)^globalnetworkpolicies.crd.projectcalico.org +0 +-  not served$`))
		Expect(out).NotTo(ContainSubstring("Pod/"), "the initial state is summarized, not listed")

		Eventually(api.Resource(resources.Pods).OpenWatches).Should(Equal(1))
		put(api, resources.Pods, "default", "cache", 20)
		Eventually(r.out.String).Should(MatchRegexp(`(?m)^New +Pod +20 +default/cache$`))
		header := regexp.MustCompile(`(?m)^EVENT.*$`).FindString(r.out.String())
		row := regexp.MustCompile(`(?m)^New .*$`).FindString(r.out.String())
		Expect(strings.Index(row, "default/cache")).To(Equal(strings.Index(header, "NAME")), "columns line up")
		Expect(r.stop()).To(Equal(cli.ExitOK))
	})

	It("shows each type's progress on a terminal until in sync", func() {
		put(api, resources.Services, "default", "kubernetes", 0)
		release := api.Resource(resources.Services).HoldInitialEvents()
		r := start([]string{"watch", "services", "--kubeconfig", path}, cli.WithTerminal(70))
		Eventually(r.err.String).Should(ContainSubstring(
			"\r\x1b[Ksyncing 1/2 types, 0 keys:  services 0 …  endpointslices.dis"))
		Expect(statusOf(r.records())).NotTo(ContainElement("InSync"))

		release()
		Eventually(func() []string { return statusOf(r.records()) }).Should(ContainElement("InSync"))
		Expect(r.err.String()).To(HaveSuffix("\r\x1b[K"), "the progress line is erased")
		Consistently(r.err.String, "300ms").Should(HaveSuffix("\r\x1b[K"), "and not drawn again")
		for _, l := range regexp.MustCompile(`syncing [^\r]*`).FindAllString(r.err.String(), -1) {
			Expect(len([]rune(l))).To(BeNumerically("<", 70), "cut to the terminal's width")
		}
		Expect(r.stop()).To(Equal(cli.ExitOK))
	})

	It("watches a local control plane with --local, installing the set's CRDs", func() {
		var (
			gotCRDs []string
			stopped = make(chan struct{})
		)
		local := func(_ context.Context, crds []*apiextensionsv1.CustomResourceDefinition, _ io.Writer) (*rest.Config, func() error, error) {
			for _, c := range crds {
				gotCRDs = append(gotCRDs, c.Name)
			}
			return &rest.Config{Host: srv.URL()}, func() error { close(stopped); return nil }, nil
		}
		r := start([]string{"watch", "routing", "--local", "--types", "nodes,bgppeers"}, cli.WithLocalStarter("/tmp/x/admin.kubeconfig", local))
		Eventually(func() []string { return statusOf(r.records()) }).Should(ContainElement("InSync"))
		Expect(gotCRDs).To(Equal([]string{"bgppeers.crd.projectcalico.org"}))
		Expect(r.err.String()).To(ContainSubstring("kubesync: local control plane at " + srv.URL() +
			"; admin kubeconfig (removed at exit): /tmp/x/admin.kubeconfig\n"))
		Expect(r.err.String()).To(ContainSubstring(
			"kubesync: try: kubectl --kubeconfig /tmp/x/admin.kubeconfig get nodes -A\n"))
		Expect(r.stop()).To(Equal(cli.ExitOK))
		Expect(stopped).To(BeClosed())
	})

	It("serves metrics with --metrics-addr", func() {
		r := watch("--metrics-addr", "127.0.0.1:0")
		Eventually(func() []string { return statusOf(r.records()) }).Should(ContainElement("InSync"))
		url := regexp.MustCompile(`serving metrics at (\S+)`).FindStringSubmatch(r.err.String())
		Expect(url).To(HaveLen(2), r.err.String())
		scrape := func() string {
			resp, err := http.Get(url[1])
			if err != nil {
				return err.Error()
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return string(b)
		}
		Eventually(scrape).Should(And(
			ContainSubstring(`kubesync_keys{type="pods"} 2`),
			ContainSubstring(`kubesync_lists_total{reason="initial",type="pods"} 1`),
			ContainSubstring(`kubesync_type_status{status="InSync",type="namespaces"} 1`),
			ContainSubstring("go_goroutines"),
			ContainSubstring("process_"),
		))
		Expect(r.stop()).To(Equal(cli.ExitOK))
		_, err := http.Get(url[1])
		Expect(err).To(HaveOccurred(), "the server stops with the watch")
	})

	It("fails with one line within --connect-timeout when every type is refused", func() {
		api.Refuse(resources.Pods, syncertest.Forbidden(resources.Pods))
		api.Refuse(resources.Namespaces, syncertest.Forbidden(resources.Namespaces))
		code, out, errOut := run("watch", "policy", "--kubeconfig", path, "--connect-timeout", "1s",
			"--types", "namespaces,pods,networkpolicies.networking.k8s.io")
		Expect(code).To(Equal(cli.ExitRuntime))
		Expect(errOut).To(Equal("kubesync: no type can be watched: the apiserver at " + srv.URL() +
			" refused every type for 1s: 3 forbidden (403: see \"kubesync rbac\" for the role it needs)\n"))
		zero := 0
		Expect(parseRecords(out)).To(ContainElement(output.Record{Status: "InSync", Types: 3, TypesInSync: &zero,
			Failing: map[string]int{"forbidden": 3}}), "the status says that no type is in sync")
	})

	It("still fails with one line when a refusal comes after --connect-timeout", func() {
		api.Refuse(resources.Pods, syncertest.Forbidden(resources.Pods))
		api.Refuse(resources.Namespaces, syncertest.Forbidden(resources.Namespaces))
		late := func() error {
			time.Sleep(1500 * time.Millisecond) // a slow apiserver, not a wait for the command
			return syncertest.Forbidden(netpols)
		}
		api.Resource(netpols).FailLists(late)
		api.Resource(netpols).FailWatchCalls(late)
		code, _, errOut := run("watch", "policy", "--kubeconfig", path, "--connect-timeout", "1s",
			"--types", "namespaces,pods,networkpolicies.networking.k8s.io")
		Expect(code).To(Equal(cli.ExitRuntime))
		Expect(errOut).To(Equal("kubesync: no type can be watched: the apiserver at "+srv.URL()+
			" refused every type for 1s: 3 forbidden (403: see \"kubesync rbac\" for the role it needs)\n"),
			"the lines of the types refused in time were held back while one had not answered")
	})

	It("says on stderr and in the JSON when a failing type recovers", func() {
		put(api, netpols, "default", "deny", 30)
		r := watch()
		Eventually(func() []string { return statusOf(r.records()) }).Should(ContainElement("InSync"))
		api.Allow(netpols)
		Eventually(r.records, "30s").Should(ContainElement(output.Record{SyncRecovered: "networkpolicies.networking.k8s.io"}))
		Expect(r.err.String()).To(ContainSubstring("kubesync: networkpolicies.networking.k8s.io recovered: watching it again\n"))
		Expect(r.records()).To(ContainElement(HaveField("Key", "NetworkPolicy.networking.k8s.io/default/deny")),
			"the recovery is told after the updates of its list")
	})

	It("counts the failing types in the InSync record, and gives the freshness of the others", func() {
		r := watch()
		Eventually(func() []string { return statusOf(r.records()) }).Should(ContainElement("InSync"))
		two := 2
		Expect(r.records()).To(ContainElement(And(
			HaveField("Status", "InSync"), HaveField("Types", 4), HaveField("TypesInSync", &two),
			HaveField("Failing", map[string]int{"forbidden": 1, "notServed": 1}),
			HaveField("Freshness", And(HaveLen(2),
				HaveKeyWithValue("pods", HaveField("Revision", Not(BeEmpty()))),
				HaveKeyWithValue("namespaces", HaveField("AgeSeconds", BeNumerically("<", 60))))))))
	})

	It("fails at once, naming the cause, when the apiserver's certificate is not trusted", func() {
		tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
		DeferCleanup(tlsSrv.Close)
		code, _, errOut := run("watch", "policy", "--kubeconfig", kubeconfig(tlsSrv.URL), "--connect-timeout", "1h")
		Expect(code).To(Equal(cli.ExitRuntime))
		Expect(errOut).To(HavePrefix("kubesync: the apiserver at " + tlsSrv.URL +
			" presented a certificate that cannot be verified: "))
		Expect(errOut).To(ContainSubstring("x509"))
	})

	It("fails with exit 1 when the metrics address is taken", func() {
		code, _, errOut := run("watch", "policy", "--kubeconfig", path, "--metrics-addr", "256.0.0.1:1")
		Expect(code).To(Equal(cli.ExitRuntime))
		Expect(errOut).To(HavePrefix("kubesync: metrics server: listen tcp"))
	})

	It("ends quietly with exit 0 when the reader of its output has gone", func() {
		closed := make(chan struct{})
		r := start([]string{"watch", "policy", "--kubeconfig", path}, cli.WithOutputClosed(closed))
		Eventually(func() []string { return statusOf(r.records()) }).Should(ContainElement("InSync"))
		close(closed)
		var code int
		Eventually(r.code).Should(Receive(&code))
		Expect(code).To(Equal(cli.ExitOK))
		Expect(r.err.String()).NotTo(ContainSubstring("writing output"))
		r.code <- code
	})

	It("stops with exit 1 when its output cannot be written", func() {
		code := make(chan int, 1)
		var errOut buffer
		go func() {
			code <- cli.Run(GinkgoT().Context(), []string{"watch", "policy", "--kubeconfig", path},
				cli.Streams{Out: failingWriter{}, Err: &errOut}, cli.WithTerminal(0))
		}()
		Eventually(code, "5s").Should(Receive(Equal(cli.ExitRuntime)))
		Expect(errOut.String()).To(HaveSuffix("kubesync: writing output: disk full\n"))
	})
})

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
