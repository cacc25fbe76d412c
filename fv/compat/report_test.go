package compat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// writeReport writes a ginkgo JSON report of specs to a file and returns it.
func writeReport(t *testing.T, specs ...types.SpecReport) string {
	t.Helper()
	b, err := json.Marshal([]types.Report{{SuiteDescription: "fv", SpecReports: specs}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func spec(text string, state types.SpecState, labels ...string) types.SpecReport {
	return types.SpecReport{ContainerHierarchyTexts: []string{text}, LeafNodeText: "does it",
		LeafNodeType: types.NodeTypeIt, LeafNodeLabels: labels, State: state}
}

func TestReadReportKeepsCoreSpecsWithTheirReasons(t *testing.T) {
	first := spec("Snapshot, then updates reaches InSync once with every object", types.SpecStatePassed, Label)
	first.ReportEntries = []types.ReportEntry{{Name: reportInitialList, Value: types.WrapEntryValue("paged")}}
	first.CapturedGinkgoWriterOutput = `time="x" level=info msg="Streaming lists refused; falling back to paged lists" ` +
		`error="the server does not support streaming lists: ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden" type=services` + "\n"
	skipped := spec("Expired revision on one type read as CBOR", types.SpecStateSkipped, Label)
	skipped.Failure.Message = "needs the feature gate CBORServingAndStorage, which kube-apiserver v1.31.14 does not have"
	failed := spec("CRD deleted at runtime", types.SpecStateFailed, Label)
	failed.Failure = types.Failure{Message: "Timed out after 90.001s.\nExpected\n    <int>: 3\nto equal\n    <int>: 30",
		Location: types.CodeLocation{FileName: "/src/fv/crd_test.go", LineNumber: 33}}
	other := spec("RBAC", types.SpecStateSkipped) // filtered out: not a core spec
	suite := types.SpecReport{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed}

	specs, err := readReport("./fv", writeReport(t, first, skipped, failed, other, suite))
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 3 {
		t.Fatalf("specs = %+v; want the three labelled %s", specs, Label)
	}
	if s := specs[0]; s.State != "passed" || s.InitialList != "paged" ||
		s.Fallback != `the server does not support streaming lists: ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden` {
		t.Errorf("first sync = %+v", s)
	}
	if s := specs[1]; s.State != "skipped" || !strings.Contains(s.Reason, "CBORServingAndStorage") {
		t.Errorf("skipped = %+v", s)
	}
	if s := specs[2]; s.State != "failed" || s.Reason != "failed: Timed out after 90.001s. Expected <int>: 3 to equal <int>: 30 (crd_test.go:33)" {
		t.Errorf("failed = %q", s.Reason)
	}
}

func TestMarkdownHasARowPerMinorAndAColumnPerSpec(t *testing.T) {
	paged := Spec{Package: "./fv", Text: "Snapshot, then updates reaches InSync once with every object (auto)",
		Outcome: Outcome{State: "passed"}, InitialList: "paged", Fallback: "sendInitialEvents: Forbidden"}
	streamed := paged
	streamed.InitialList, streamed.Fallback = "streamed", ""
	warm := Spec{Package: "./fv/warmstart", Text: "Checkpoint and warm start resumes with no list", Outcome: Outcome{State: "passed"}}
	cbor := Spec{Package: "./fv", Text: "Expired revision on one type read as CBOR relists", Outcome: Outcome{"skipped", "needs the feature gate X"}}
	broken := warm
	broken.Outcome = Outcome{"failed", "failed: Expected 1 to be zero (checkpoint_test.go:9)"}
	r := &Report{Started: time.Unix(0, 0), Ended: time.Unix(600, 0), Command: "make compat",
		Minors: []Minor{
			{Version: "v1.31.14", Specs: []Spec{paged, warm, cbor}, SpecsTook: time.Minute, Built: true, BuildTook: 8 * time.Minute},
			{Version: "v1.32.13", BuildError: "exit status 1: undefined: x"},
			{Version: "v1.37.2", Specs: []Spec{streamed, broken}, SpecsTook: 2 * time.Minute},
		},
		Clients: []Client{
			{Version: "v0.32.13", BuildError: "go build ./...: undefined: cache.ListerWatcherWithContext"},
			{Version: "v0.33.13", Builds: true, Tested: true, Passed: true, Packages: 18},
		},
	}
	md := r.Markdown()
	for _, want := range []string{
		"| kube-apiserver | initial list (Auto) | first sync, Auto | 410: one type relists (CBOR) | warm start, no LIST | specs took | binaries |",
		"| v1.31.14 | paged [1] | pass | skipped [2] | pass | 1m0s | built in 8m0s |",
		"| v1.32.13 | — | **not met** [3] | **not met** [4] | **not met** [5] | 0s | cached |",
		"| v1.37.2 | streamed | pass | — | **not met** [6] | 2m0s | cached |",
		"1. v1.31.14: the syncer fell back to paged lists: sendInitialEvents: Forbidden",
		"2. v1.31.14, 410: one type relists (CBOR): needs the feature gate X",
		"6. v1.37.2, warm start, no LIST: failed: Expected 1 to be zero (checkpoint_test.go:9)",
		"Core specs pass on v1.31.14; **not met** on v1.32.13, v1.37.2",
		"| v0.32.13 | no: go build ./...: undefined: cache.ListerWatcherWithContext | — |",
		"| v0.33.13 | yes | pass (18 packages) |",
		"Oldest client-go: v0.33 (k8s.io/client-go, apimachinery and api v0.33.13 or any later patch).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestFromColdAddsRecordedBuildsOrSaysWhichAreUnknown(t *testing.T) {
	rec := parseBuildRecord("wall=480 user=700 system=100 cpus=2 date=2026-12-03T08:00:00Z\n")
	if rec == nil || rec.Wall != 8*time.Minute || rec.User+rec.System != 800*time.Second {
		t.Fatalf("parsed %+v", rec)
	}
	if parseBuildRecord("garbage") != nil {
		t.Error("a line that does not parse gave a record")
	}
	r := &Report{Started: time.Unix(0, 0), Ended: time.Unix(600, 0), Minors: []Minor{
		{Version: "v1.31.14", Built: true, BuildTook: 9 * time.Minute},
		{Version: "v1.37.2", Record: rec},
	}}
	md := r.Markdown()
	for _, want := range []string{
		"- From cold (no binaries cached): 18m0s: this run's 10m0s plus 8m0s of cached minors' builds",
		"| 0s | cached; built in 8m0s (13m20s CPU) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	r.Minors[1] = Minor{Version: "v1.37.2", Built: true, BuildTook: 9 * time.Minute, Record: rec}
	md = r.Markdown()
	for _, want := range []string{
		"- From cold (no binaries cached): 10m0s: this run built every minor",
		"| 0s | built in 8m0s (13m20s CPU) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	r.Minors = append(r.Minors, Minor{Version: "v1.33.13"})
	if got := r.fromCold(); !strings.Contains(got, "not known: no build record for v1.33.13") {
		t.Errorf("fromCold = %q", got)
	}
}

func TestTreeSizeCountsFilesUnderAFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"x", filepath.Join("a", "b", "y")} {
		if err := os.WriteFile(filepath.Join(dir, f), make([]byte, 3<<20), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := treeSize(dir); got != 6<<20 {
		t.Errorf("size = %d, want 6 MiB", got)
	}
	if got := treeSize(filepath.Join(dir, "absent")); got != 0 {
		t.Errorf("an absent folder's size = %d", got)
	}
}
