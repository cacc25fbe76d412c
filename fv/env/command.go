package env

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/kubesync/kubesync/fv/consistency"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Record is one JSON line of `kubesync watch -o json`.
type Record struct {
	Type          string `json:"type"`
	Kind          string `json:"kind"`
	Namespace     string `json:"namespace"`
	Name          string `json:"name"`
	Revision      string `json:"revision"`
	Status        string `json:"status"`
	SyncFailed    string `json:"syncFailed"`
	Reason        string `json:"reason"`
	SyncRecovered string `json:"syncRecovered"`
}

// Records parses the command's JSON lines, up to the last whole one: the
// output of a command still running.
func Records(out []byte) []Record { return lines(out[:bytes.LastIndexByte(out, '\n')+1]) }

// lines parses every line of out as a Record.
func lines(out []byte) []Record {
	var recs []Record
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r Record
		Expect(json.Unmarshal(sc.Bytes(), &r)).To(Succeed(), "line %q", sc.Text())
		recs = append(recs, r)
	}
	return recs
}

// Replay parses the command's output, every line of it, and applies it to a
// fresh mirror.
func Replay(out []byte) (*consistency.Mirror, []Record) {
	m := consistency.NewMirror()
	all := lines(out)
	for _, r := range all {
		if r.Type == "" {
			continue
		}
		ut := map[string]syncer.UpdateType{"New": syncer.KVNew, "Updated": syncer.KVUpdated, "Deleted": syncer.KVDeleted}[r.Type]
		Expect(ut).NotTo(BeZero(), "update type %q", r.Type)
		m.OnUpdates([]syncer.Update{{UpdateType: ut, KVPair: resources.KVPair{
			Key: resources.Key{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}, Revision: r.Revision}}})
	}
	return m, all
}

// command is cmd/kubesync, built once per test binary as the binary itself was
// (GOFLAGS reaches go build from the environment); the package that runs it
// removes it with gexec.CleanupBuildArtifacts in its AfterSuite.
var command = sync.OnceValues(func() (string, error) {
	var flags []string
	if race {
		flags = append(flags, "-race")
	}
	return gexec.Build("github.com/kubesync/kubesync/cmd/kubesync", flags...)
})

// Command is the path of the kubesync command, built on first use.
func Command() string {
	bin, err := command()
	Expect(err).NotTo(HaveOccurred())
	return bin
}

// Kubesync starts the kubesync command with args, killed when the spec ends.
func Kubesync(args ...string) *gexec.Session {
	s, err := gexec.Start(exec.Command(Command(), args...), GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { s.Kill().Wait() })
	return s
}
