package compat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// Label is the ginkgo label of the core specs (env.Compat).
const Label = "compat"

// reportInitialList is the report entry of env.ReportInitialList.
const reportInitialList = "initial list"

// Outcome is how one spec ended against one minor.
type Outcome struct {
	// State is "passed", "skipped" or "failed" (failed, panicked, timed out,
	// interrupted or aborted, as ginkgo's State says).
	State string
	// Reason is why a spec was skipped or failed: its message's first line and
	// where it failed.
	Reason string
}

// Spec is one core spec's outcome against one minor.
type Spec struct {
	Package string // the fv package, e.g. ./fv/liveness
	Text    string // the spec's full text
	Outcome
	// InitialList is the spec's env.ReportInitialList entry, if any.
	InitialList string
	// Fallback is the syncer's log line, if any, of a type that fell back to
	// paged lists because the server refused streaming lists.
	Fallback string
}

// testBinaries compiles the packages' tests into dir, once for every minor, and
// returns each package's binary.
func testBinaries(ctx context.Context, root, dir string, pkgs []string) (map[string]string, error) {
	args := append([]string{"test", "-c", "-o", dir + "/"}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	bins := map[string]string{}
	for _, p := range pkgs {
		bins[p] = filepath.Join(dir, path.Base(p)+".test")
	}
	return bins, nil
}

// runSpecs runs the core specs of every package at once against the binaries
// in assets, each package's test binary in its own folder, and reads their
// reports. A package whose binary left no report has its failure as the one
// spec it reports.
func runSpecs(ctx context.Context, o Options, bins map[string]string, assets, dir string) ([]Spec, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		specs []Spec
	)
	for _, pkg := range o.Packages {
		wg.Go(func() {
			got := runPackage(ctx, o, pkg, bins[pkg], assets, dir)
			mu.Lock()
			defer mu.Unlock()
			specs = append(specs, got...)
		})
	}
	wg.Wait()
	return specs, ctx.Err()
}

func runPackage(ctx context.Context, o Options, pkg, bin, assets, dir string) []Spec {
	name := path.Base(pkg)
	report := filepath.Join(dir, name+".json")
	logPath := filepath.Join(dir, name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		return []Spec{{Package: pkg, Text: pkg + " (no report)", Outcome: Outcome{"failed", err.Error()}}}
	}
	defer func() { _ = log.Close() }()
	cmd := exec.CommandContext(ctx, bin, "-test.timeout="+o.SpecTimeout.String(),
		"-ginkgo.label-filter="+Label, "-ginkgo.json-report="+report)
	cmd.Dir = filepath.Join(o.Root, pkg)
	cmd.Env = append(os.Environ(), "KUBEBUILDER_ASSETS="+assets)
	cmd.Stdout, cmd.Stderr = log, log
	runErr := cmd.Run()
	specs, err := readReport(pkg, report)
	if err != nil {
		reason := fmt.Sprintf("no report (%v; %v); log: %s", runErr, err, logPath)
		return []Spec{{Package: pkg, Text: pkg + " (no report)", Outcome: Outcome{"failed", reason}}}
	}
	return specs
}

// readReport reads the core specs of a ginkgo JSON report, and the suite's own
// nodes that failed.
func readReport(pkg, file string) ([]Spec, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(b, &reports); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var specs []Spec
	for _, r := range reports {
		for _, s := range r.SpecReports {
			suiteNode := s.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes)
			if suiteNode && !s.State.Is(types.SpecStateFailureStates) ||
				!suiteNode && !slices.Contains(s.Labels(), Label) {
				continue
			}
			specs = append(specs, specOf(pkg, s))
		}
	}
	if len(specs) == 0 {
		return nil, errors.New(file + " holds no spec labelled " + Label)
	}
	return specs, nil
}

func specOf(pkg string, s types.SpecReport) Spec {
	sp := Spec{Package: pkg, Text: s.FullText(), Fallback: fallbackLine(s.CapturedGinkgoWriterOutput)}
	if s.FullText() == "" {
		sp.Text = s.LeafNodeType.String()
	}
	switch {
	case s.State == types.SpecStatePassed:
		sp.State = "passed"
	case s.State == types.SpecStateSkipped:
		sp.State, sp.Reason = "skipped", oneLine(s.Failure.Message)
	default:
		sp.State = "failed"
		sp.Reason = fmt.Sprintf("%s: %s (%s:%d)", s.State, oneLine(s.Failure.Message),
			filepath.Base(s.Failure.Location.FileName), s.Failure.Location.LineNumber)
	}
	for _, e := range s.ReportEntries {
		if e.Name == reportInitialList {
			sp.InitialList = e.StringRepresentation()
		}
	}
	return sp
}

// fallbackMsg is the syncer's line for a type whose streaming list the server
// refused.
var fallbackMsg = regexp.MustCompile(`msg="Streaming lists refused; falling back to paged lists".*`)

// errField is a logrus text field error="...".
var errField = regexp.MustCompile(`error="((?:[^"\\]|\\.)*)"`)

// fallbackLine returns the error of the first fallback to paged lists logged.
func fallbackLine(out string) string {
	line := fallbackMsg.FindString(out)
	if line == "" {
		return ""
	}
	if m := errField.FindStringSubmatch(line); m != nil {
		return strings.ReplaceAll(m[1], `\"`, `"`)
	}
	return line
}

// oneLine puts a message on one line, as a table's note, cut to a length:
// gomega puts what was expected on the lines after the first.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 400
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// elapsed rounds a duration for the report.
func elapsed(d time.Duration) string { return d.Round(time.Second).String() }
