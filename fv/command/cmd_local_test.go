package command

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/resources"
)

// localStart bounds a `kubesync watch --local` start: the control plane and its
// sample objects.
const localStart = 3 * time.Minute

// asUser starts the built command with TMPDIR set to tmp, so that its control
// plane's folder and processes can be told apart from any other's.
func asUser(tmp string, name string, args ...string) *gexec.Session {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { s.Kill().Wait() })
	return s
}

// controlPlaneProcesses lists the running processes whose command line names a
// file under tmp: the etcd and kube-apiserver of a control plane in tmp.
func controlPlaneProcesses(tmp string) []string {
	var found []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(tmp+"/")) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && bytes.Contains(stat, []byte(") Z ")) {
			continue // a zombie is dead, only not yet reaped by its parent
		}
		found = append(found, filepath.Base(d)+": "+string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	return found
}

// entries lists the names in dir.
func entries(dir string) []string {
	des, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

var _ = Describe("kubesync watch --local, run as a user would", func() {
	var tmp string
	BeforeEach(func() { tmp = GinkgoT().TempDir() })

	leavesNothing := func() {
		GinkgoHelper()
		Expect(controlPlaneProcesses(tmp)).To(BeEmpty())
		Expect(entries(tmp)).To(BeEmpty(), "the control plane's folder is removed")
	}

	It("leaves no process and no folder when its reader stops after three lines", func() {
		s := asUser(tmp, "bash", "-c", `"$0" watch routing --local -o json | head -3; echo "kubesync exit ${PIPESTATUS[0]}" >&2`,
			env.Command())
		Eventually(s, localStart).Should(gexec.Exit(0))
		Expect(strings.Split(strings.TrimSpace(string(s.Out.Contents())), "\n")).To(HaveLen(3))
		Expect(string(s.Err.Contents())).To(ContainSubstring("kubesync exit 0\n"))
		Expect(string(s.Err.Contents())).NotTo(ContainSubstring("writing output"))
		leavesNothing()
	})

	It("makes demo changes that a client of its kubeconfig sees, and cleans up at SIGHUP", env.Compat, func(ctx SpecContext) {
		demoChangesSeen(ctx, tmp, leavesNothing)
	})

	It("leaves no control-plane process when it is killed", func() {
		s := asUser(tmp, env.Command(), "watch", "routing", "--local", "-o", "json")
		Eventually(s.Out, localStart).Should(gbytes.Say(`"status":"InSync"`))
		Expect(controlPlaneProcesses(tmp)).To(HaveLen(2), "etcd and kube-apiserver")
		s.Kill()
		Eventually(func() []string { return controlPlaneProcesses(tmp) }, 10*time.Second).Should(BeEmpty())
	})
})

// demoChangesSeen is the spec that it makes demo changes that a client of its
// kubeconfig sees, and cleans up at SIGHUP.
func demoChangesSeen(ctx SpecContext, tmp string, leavesNothing func()) {
	s := asUser(tmp, env.Command(), "watch", "routing", "--local", "--demo-changes", "20", "-o", "json")
	Eventually(s.Err, localStart).Should(gbytes.Say(`admin kubeconfig \(removed at exit\): \S+\n`))
	kubeconfig := regexp.MustCompile(`admin kubeconfig \(removed at exit\): (\S+)`).FindStringSubmatch(string(s.Err.Contents()))[1]
	// The hint is the line after the kubeconfig's, written a moment later.
	Eventually(func() string { return string(s.Err.Contents()) }, 10*time.Second).
		Should(ContainSubstring("kubectl --kubeconfig " + kubeconfig + " get "))
	fi, err := os.Stat(kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	Expect(fi.Mode().Perm()).To(Equal(os.FileMode(0o600)))

	By("New, Updated and Deleted records of the demo's objects, for at least three types")
	Eventually(func() []string {
		seen := map[string]map[string]bool{}
		for _, r := range env.Records(s.Out.Contents()) {
			if strings.HasPrefix(r.Name, "demo-") {
				if seen[r.Kind] == nil {
					seen[r.Kind] = map[string]bool{}
				}
				seen[r.Kind][r.Type] = true
			}
		}
		var complete []string
		for kind, types := range seen {
			if types["New"] && types["Updated"] && types["Deleted"] {
				complete = append(complete, kind)
			}
		}
		return complete
	}, time.Minute).Should(WithTransform(func(kinds []string) int { return len(kinds) }, BeNumerically(">=", 3)))

	By("listing with the printed kubeconfig the objects the command printed")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	dyn, err := dynamic.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	list, err := dyn.Resource(resources.Nodes.GVR).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(list.Items).NotTo(BeEmpty())
	Eventually(func() []string {
		printed := map[string]bool{}
		for _, r := range env.Records(s.Out.Contents()) {
			if r.Kind == "Node" && r.Type == "New" {
				printed[r.Name] = true
			}
		}
		var missing []string
		for _, o := range list.Items {
			if !printed[o.GetName()] {
				missing = append(missing, o.GetName())
			}
		}
		return missing
	}).Should(BeEmpty())

	By("a closed terminal (SIGHUP) ending it once in sync")
	Expect(env.Records(s.Out.Contents())).To(ContainElement(HaveField("Status", "InSync")))
	s.Signal(syscall.SIGHUP)
	Eventually(s, time.Minute).Should(gexec.Exit(0))
	leavesNothing()
}

var _ = Describe("kubesync without --local", func() {
	It("creates no folder, even with an empty HOME", func() {
		tmp, home := GinkgoT().TempDir(), GinkgoT().TempDir()
		var vars []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "TMPDIR=") {
				vars = append(vars, kv)
			}
		}
		for _, homeVar := range []string{"HOME=", "HOME=" + home} {
			for _, args := range [][]string{{"version"}, {"--help"}, {"sets"}} {
				cmd := exec.Command(env.Command(), args...)
				cmd.Env = append(vars, homeVar, "TMPDIR="+tmp)
				cmd.Dir = tmp
				out, err := cmd.CombinedOutput()
				Expect(err).NotTo(HaveOccurred(), "%s %v: %s", homeVar, args, out)
			}
		}
		Expect(entries(tmp)).To(BeEmpty())
		Expect(entries(home)).To(BeEmpty())
	})
})
