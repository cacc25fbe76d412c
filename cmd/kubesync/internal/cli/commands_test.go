package cli_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/cli"
	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/watchersets"
)

var _ = Describe("kubesync sets", func() {
	It("lists every set with its types", func() {
		code, out, errOut := run("sets")
		Expect(code).To(Equal(cli.ExitOK))
		Expect(errOut).To(BeEmpty())
		for _, s := range watchersets.Sets() {
			Expect(out).To(ContainSubstring(s.Name + ": " + s.Description))
			for _, t := range s.TypeNames() {
				Expect(out).To(ContainSubstring("  " + t + "\n"))
			}
		}
	})
})

var _ = Describe("kubesync rbac", func() {
	It("prints the set's ClusterRole as YAML", func() {
		code, out, errOut := run("rbac", "policy")
		Expect(code).To(Equal(cli.ExitOK), errOut)
		role := &rbacv1.ClusterRole{}
		Expect(yaml.UnmarshalStrict([]byte(out), role)).To(Succeed())
		set, err := watchersets.Lookup("policy")
		Expect(err).NotTo(HaveOccurred())
		Expect(role).To(Equal(set.ClusterRole("kubesync-policy")))
	})

	It("narrows the role to --types and names it --name", func() {
		code, out, _ := run("rbac", "policy", "--types", "pods,networkpolicies.crd.projectcalico.org", "--name", "agent")
		Expect(code).To(Equal(cli.ExitOK))
		role := &rbacv1.ClusterRole{}
		Expect(yaml.UnmarshalStrict([]byte(out), role)).To(Succeed())
		Expect(role.Name).To(Equal("agent"))
		Expect(role.Rules).To(Equal([]rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"crd.projectcalico.org"}, Resources: []string{"networkpolicies"},
				Verbs: []string{"get", "list", "watch"}},
			watchersets.IdentityRule(),
		}))
	})
})

var _ = Describe("kubesync version", func() {
	It("prints the version it was given and the client-go version", func() {
		code, out, _ := run("version")
		Expect(code).To(Equal(cli.ExitOK))
		lines := strings.Split(strings.TrimSpace(out), "\n")
		Expect(lines).To(HaveLen(3))
		Expect(lines[0]).To(Equal("kubesync v9.9.9"))
		Expect(lines[1]).To(HavePrefix("client-go "))
		Expect(lines[2]).To(HavePrefix("go"))
	})

	It("defaults to dev", func() {
		var out buffer
		Expect(cli.Run(GinkgoT().Context(), []string{"version"}, cli.Streams{Out: &out, Err: &out})).To(Equal(0))
		Expect(out.String()).To(HavePrefix("kubesync dev\n"))
	})
})

// oneLineError asserts a failure with one line on stderr and nothing on stdout.
func oneLineError(wantCode int, want string, args ...string) {
	GinkgoHelper()
	code, out, errOut := run(args...)
	Expect(code).To(Equal(wantCode), "stderr: %s", errOut)
	Expect(out).To(BeEmpty())
	Expect(errOut).To(HavePrefix("kubesync: "))
	Expect(strings.Count(errOut, "\n")).To(Equal(1), "one line: %q", errOut)
	Expect(errOut).To(ContainSubstring(want))
	Expect(errOut).NotTo(ContainSubstring("Usage:"))
	Expect(errOut).NotTo(ContainSubstring("goroutine"))
}

var _ = Describe("usage errors", func() {
	DescribeTable("exit 2 with one line",
		func(want string, args ...string) { oneLineError(cli.ExitUsage, want, args...) },
		Entry("unknown set", `unknown watcher set "nope" (known sets: dataplane, policy, routing, services)`,
			"watch", "nope"),
		Entry("unknown set for rbac", `unknown watcher set "nope"`, "rbac", "nope"),
		Entry("unknown type", `set "routing" has no type "pods"`, "watch", "routing", "--types", "pods"),
		Entry("ambiguous type", "networkpolicies.networking.k8s.io, networkpolicies.crd.projectcalico.org",
			"watch", "policy", "--types", "networkpolicies"),
		Entry("no set", "needs one watcher set name", "watch"),
		Entry("two sets", "got 2 arguments", "rbac", "policy", "routing"),
		Entry("unknown flag", "unknown flag: --frob", "watch", "policy", "--frob"),
		Entry("bad duration", `invalid argument "soon"`, "watch", "policy", "--connect-timeout", "soon"),
		Entry("unknown command", `unknown command "frob"`, "frob"),
		Entry("unknown output", `unknown output format "yaml"`, "watch", "policy", "-o", "yaml"),
		Entry("values in a table", "--values needs -o json", "watch", "policy", "-o", "table", "--values"),
		Entry("bad log level", `--log-level "loud" is not one of error, warn, info, debug`,
			"watch", "policy", "--log-level", "loud"),
		Entry("an undocumented log level", `--log-level "trace" is not one of`, "watch", "policy", "--log-level", "trace"),
		Entry("empty namespace", "--namespace must not be empty", "watch", "policy", "-n", ""),
		Entry("a namespace with only cluster-scoped types", "--namespace demo: every type of the selection is cluster-scoped",
			"watch", "routing", "-n", "demo"),
		Entry("a metrics address that is no address", `--metrics-addr: "notanaddr" is not HOST:PORT`,
			"watch", "policy", "--local", "--metrics-addr", "notanaddr"),
		Entry("a metrics port that is no port", `--metrics-addr: ":99999" has no port number`,
			"watch", "policy", "--metrics-addr", ":99999"),
		Entry("demo changes without --local", "--demo-changes needs --local", "watch", "policy", "--demo-changes", "2"),
		Entry("negative demo changes", "--demo-changes must be a rate from 0 to 1000", "watch", "policy", "--local",
			"--demo-changes", "-1"),
		Entry("an unknown shell", `unknown shell "tcsh" for kubesync completion: use one of bash, zsh, fish, powershell`,
			"completion", "tcsh"),
		Entry("local with a kubeconfig", "--local cannot be combined", "watch", "policy", "--local",
			"--kubeconfig", "x"),
		Entry("arguments to sets", "takes no arguments", "sets", "policy"),
	)
})

var _ = Describe("usage errors of --local", func() {
	It("are found before a control plane starts", func() {
		started := false
		local := func(context.Context, []*apiextensionsv1.CustomResourceDefinition, io.Writer) (*rest.Config, func() error, error) {
			started = true
			return nil, nil, errors.New("not reached")
		}
		var out, errOut buffer
		code := cli.Run(GinkgoT().Context(), []string{"watch", "routing", "--local", "--metrics-addr", "notanaddr"},
			cli.Streams{Out: &out, Err: &errOut}, cli.WithLocalStarter("", local))
		Expect(code).To(Equal(cli.ExitUsage))
		Expect(started).To(BeFalse())
	})
})

var _ = Describe("write errors", func() {
	DescribeTable("exit 1 in every command",
		func(args ...string) {
			var errOut buffer
			code := cli.Run(GinkgoT().Context(), args, cli.Streams{Out: failingWriter{}, Err: &errOut}, cli.WithTerminal(0))
			Expect(code).To(Equal(cli.ExitRuntime), errOut.String())
			Expect(errOut.String()).To(Equal("kubesync: disk full\n"))
		},
		Entry("sets", "sets"),
		Entry("version", "version"),
		Entry("rbac", "rbac", "policy"),
		Entry("completion", "completion", "bash"),
	)

	It("but a closed pipe ends a command quietly with exit 0", func() {
		var errOut buffer
		code := cli.Run(GinkgoT().Context(), []string{"sets"}, cli.Streams{Out: writerFunc(func([]byte) (int, error) {
			return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
		}), Err: &errOut})
		Expect(code).To(Equal(cli.ExitOK))
		Expect(errOut.String()).To(BeEmpty())
	})
})

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

var _ = Describe("kubeconfig errors", func() {
	It("name a missing file", func() {
		missing := filepath.Join(GinkgoT().TempDir(), "nope.yaml")
		oneLineError(cli.ExitRuntime, "kubeconfig "+missing+" does not exist", "watch", "policy", "--kubeconfig", missing)
	})

	It("name a file that does not parse", func() {
		bad := filepath.Join(GinkgoT().TempDir(), "bad.yaml")
		Expect(os.WriteFile(bad, []byte("clusters: [unclosed"), 0o600)).To(Succeed())
		oneLineError(cli.ExitRuntime, bad, "watch", "policy", "--kubeconfig", bad)
	})

	It("name the file that lacks the context", func() {
		path := kubeconfig("http://127.0.0.1:1")
		oneLineError(cli.ExitRuntime, `kubeconfig `+path+`: context "other" does not exist`,
			"watch", "policy", "--kubeconfig", path, "--context", "other")
	})

	It("honor KUBECONFIG", func() {
		bad := filepath.Join(GinkgoT().TempDir(), "env.yaml")
		Expect(os.WriteFile(bad, []byte("hello"), 0o600)).To(Succeed())
		GinkgoT().Setenv("KUBECONFIG", bad)
		oneLineError(cli.ExitRuntime, bad, "watch", "policy")
	})
})

var _ = Describe("runtime errors", func() {
	It("give up on an unreachable apiserver after --connect-timeout", func() {
		path := kubeconfig("http://127.0.0.1:1")
		code, _, errOut := run("watch", "services", "--kubeconfig", path, "--connect-timeout", "300ms")
		Expect(code).To(Equal(cli.ExitRuntime))
		Expect(errOut).To(Equal("kubesync: no answer from the apiserver at http://127.0.0.1:1 within 300ms: " +
			"dial tcp 127.0.0.1:1: connect: connection refused\n"))
	})

	It("show the output of a local process that failed to start, then one line", func() {
		fail := func(context.Context, []*apiextensionsv1.CustomResourceDefinition, io.Writer) (*rest.Config, func() error, error) {
			return nil, nil, fmt.Errorf("local control plane: %w", &controlplane.ProcessError{
				Process: "etcd", Exit: "exit status 3", Output: "starting\ndata dir: permission denied"})
		}
		var out, errOut buffer
		code := cli.Run(GinkgoT().Context(), []string{"watch", "services", "--local"},
			cli.Streams{Out: &out, Err: &errOut}, cli.WithLocalStarter("", fail))
		Expect(code).To(Equal(cli.ExitRuntime))
		Expect(errOut.String()).To(HaveSuffix("\nkubesync: the last output of etcd:\n  starting\n  data dir: permission denied\n" +
			"kubesync: local control plane: etcd ended (exit status 3)\n"))
	})

	It("report a local control plane that does not start", func() {
		fail := func(context.Context, []*apiextensionsv1.CustomResourceDefinition, io.Writer) (*rest.Config, func() error, error) {
			return nil, nil, errors.New("local control plane: no kube-apiserver binary")
		}
		var out, errOut buffer
		code := cli.Run(GinkgoT().Context(), []string{"watch", "services", "--local"},
			cli.Streams{Out: &out, Err: &errOut}, cli.WithLocalStarter("", fail))
		Expect(code).To(Equal(cli.ExitRuntime))
		Expect(errOut.String()).To(HaveSuffix("\nkubesync: local control plane: no kube-apiserver binary\n"))
	})
})
