package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/cli"
	"github.com/kubesync/kubesync/cmd/kubesync/internal/output"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncertest"
)

// buffer is a bytes.Buffer safe for a writer and a reader at once.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// run runs the command to its end.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut buffer
	code = cli.Run(context.Background(), args, cli.Streams{Out: &out, Err: &errOut},
		cli.WithVersion("v9.9.9"), cli.WithTerminal(0))
	return code, out.String(), errOut.String()
}

// running is a command running in the background.
type running struct {
	out, err buffer
	cancel   context.CancelFunc
	code     chan int
}

// start runs the command until stop.
func start(args []string, opts ...cli.Option) *running {
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cancel: cancel, code: make(chan int, 1)}
	opts = append([]cli.Option{cli.WithTerminal(0)}, opts...)
	go func() { r.code <- cli.Run(ctx, args, cli.Streams{Out: &r.out, Err: &r.err}, opts...) }()
	DeferCleanup(r.stop)
	return r
}

// stop interrupts the command and returns its exit code.
func (r *running) stop() int {
	r.cancel()
	var code int
	Eventually(r.code).WithTimeout(10e9).Should(Receive(&code))
	r.code <- code // for a second stop
	return code
}

// records parses the JSON lines printed so far; every line must parse.
func (r *running) records() []output.Record {
	return parseRecords(r.out.String())
}

func parseRecords(s string) []output.Record {
	GinkgoHelper()
	var recs []output.Record
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec output.Record
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		Expect(dec.Decode(&rec)).To(Succeed(), "line %q", sc.Text())
		recs = append(recs, rec)
	}
	return recs
}

// put serves a minimal object of type t on api at revision rev (0: the next
// one), moving the cluster's revision on to it as other writes would.
func put(api *syncertest.API, t resources.Type, namespace, name string, rev uint64) {
	GinkgoHelper()
	if rev > 0 {
		api.Revisions().Skip(rev - 1)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.ParseGroupKind(t.Kind).WithVersion(t.GVR.Version))
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetUID(types.UID("uid-" + name))
	got := api.Put(t, u)
	if rev > 0 {
		Expect(got).To(Equal(rev))
	}
}

// kubeconfig writes a kubeconfig for server into a temporary folder.
func kubeconfig(server string) string {
	path := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	cfg := strings.Join([]string{
		"apiVersion: v1",
		"kind: Config",
		"clusters:",
		"- name: fake",
		"  cluster: {server: \"" + server + "\"}",
		"users:",
		"- name: test",
		"  user: {token: secret}",
		"contexts:",
		"- name: fake",
		"  context: {cluster: fake, user: test}",
		"current-context: fake",
		"",
	}, "\n")
	Expect(os.WriteFile(path, []byte(cfg), 0o600)).To(Succeed())
	return path
}
