package fleet

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// FleetTarget is a goal of one run of the kubesync fleet: a ratio to the same
// run of the informer fleet (Ref), or, with Ref "", a limit on its own figure.
type FleetTarget struct {
	Run, Ref string
	Name     string
	Max      float64
	of       func(Figures) float64
	// format renders a figure of the target (a ratio is rendered as one).
	format func(float64) string
	// Context: reported beside the goals, not judged.
	Context bool
}

// The resource the fleet's writer changes: every other type of the set sees no
// write of the runs.
const writtenResource = "pods"

func seconds(v float64) string { return fmt.Sprintf("%.2f s", v) }
func count(v float64) string   { return fmt.Sprintf("%.0f", v) }
func perAgent(v float64) string {
	return fmt.Sprintf("%.2f", v)
}

func apiCPU(f Figures) float64    { return f.APICPU }
func bytesSent(f Figures) float64 { return float64(f.BytesSent) }

// FleetTargets are the fleet's goals against the informer fleet.
var FleetTargets = []FleetTarget{
	{Run: RunKubesyncCold, Ref: RunInformerCold, Name: "apiserver CPU seconds", Max: 0.95, of: apiCPU, format: seconds},
	{Run: RunKubesyncCold, Ref: RunInformerCold, Name: "bytes sent", Max: 1.05, of: bytesSent, format: orchestrate.MiB},
	{Run: RunKubesyncCold, Ref: RunInformerCold, Name: "median time to InSync per agent", Max: 0.9,
		of: func(f Figures) float64 { return orchestrate.Median(f.ToInSync) }, format: seconds},
	{Run: RunKubesyncCold, Name: "LIST requests (the agents')", Max: 0, of: func(f Figures) float64 { return float64(f.AgentLists) }, format: count},
	{Run: RunKubesyncCold, Name: "WATCH opened per agent (the agents')", Max: 17.2, of: watchesPerAgent, format: perAgent},
	{Run: RunRestartKubesync, Ref: RunRestartInformers, Name: "bytes sent", Max: 0.7, of: bytesSent, format: orchestrate.MiB},
	{Run: RunRestartKubesync, Ref: RunRestartInformers, Name: "apiserver CPU seconds", Max: 0.7, of: apiCPU, format: seconds},
	{Run: RunRestartKubesync, Name: "types with nothing changed re-downloaded in full", Max: 0,
		of: func(f Figures) float64 { return float64(len(redownloaded(f))) }, format: count},
	{Run: RunRestartKubesync, Ref: RunRestartInformers, Name: "apiserver CPU seconds, net of the restart with no agents",
		of: apiCPU, format: seconds, Context: true},
}

func watchesPerAgent(f Figures) float64 {
	if f.Agents == 0 {
		return 0
	}
	return float64(f.AgentWatches) / float64(f.Agents)
}

// redownloaded lists the resources, other than the written one, that an agent
// streamed or listed in full in the run.
func redownloaded(f Figures) []string {
	var out []string
	for _, rf := range f.Resources {
		if !strings.HasPrefix(rf.Resource, writtenResource+".") && rf.Resource != writtenResource && rf.AgentWhole > 0 {
			out = append(out, fmt.Sprintf("%s (%d)", rf.Resource, rf.AgentWhole))
		}
	}
	return out
}

// FleetVerdict is a FleetTarget checked on the report.
type FleetVerdict struct {
	Target        FleetTarget
	Value, RefVal float64
	Ratio         float64
	Ran, Met      bool
}

// FleetVerdicts checks every FleetTarget whose runs the report has.
func (r *Report) FleetVerdicts() []FleetVerdict {
	noAgents, okN := r.Run(RunRestartNoAgents)
	var out []FleetVerdict
	for _, t := range FleetTargets {
		v := FleetVerdict{Target: t}
		run, ok := r.Run(t.Run)
		ref, okR := r.Run(t.Ref)
		if !ok || (t.Ref != "" && !okR) || (t.Context && !okN) {
			out = append(out, v)
			continue
		}
		v.Ran, v.Value = true, t.of(run)
		if t.Context {
			v.Value -= t.of(noAgents)
		}
		if t.Ref == "" {
			v.Met = v.Value <= t.Max
			out = append(out, v)
			continue
		}
		v.RefVal = t.of(ref)
		if t.Context {
			v.RefVal -= t.of(noAgents)
		}
		if v.RefVal > 0 {
			v.Ratio = v.Value / v.RefVal
		}
		v.Met = v.RefVal > 0 && v.Ratio <= t.Max
		out = append(out, v)
	}
	return out
}

// fleetTargetsMarkdown writes the goals against the informer fleet, then the fv
// HA spec's.
func (r *Report) fleetTargetsMarkdown(p func(string, ...any)) {
	p("## Targets\n\n### Cold start and apiserver restart, against the informer fleet\n\n")
	p("| run | target | kubesync | informers | measured | result |\n|---|---|---:|---:|---:|---|\n")
	for _, v := range r.FleetVerdicts() {
		t := v.Target
		goal := fmt.Sprintf("%s ≤ %g× the informers'", t.Name, t.Max)
		switch {
		case t.Context:
			goal = t.Name + " (context)"
		case t.Ref == "" && t.Max == 0:
			goal = fmt.Sprintf("%s = 0", t.Name)
		case t.Ref == "":
			goal = fmt.Sprintf("%s ≤ %g", t.Name, t.Max)
		}
		if !v.Ran {
			p("| %s | %s | — | — | — | not run |\n", t.Run, goal)
			continue
		}
		ref, meas := "—", t.format(v.Value)
		if t.Ref != "" {
			ref, meas = t.format(v.RefVal), fmt.Sprintf("%.3f×", v.Ratio)
		}
		res := "met"
		switch {
		case t.Context:
			res = "reported"
		case !v.Met:
			res = "**not met**"
		}
		if t.Name == "types with nothing changed re-downloaded in full" && v.Value > 0 {
			run, _ := r.Run(t.Run)
			res += ": " + strings.Join(redownloaded(run), ", ")
		}
		p("| %s | %s | %s | %s | %s | %s |\n", t.Run, goal, t.format(v.Value), ref, meas, res)
	}
	p("\nLIST and WATCH are the agents' own requests, counted on their connections (the apiserver's counts, below, hold its")
	p(" own loopback clients too). A type is re-downloaded in full when an agent streams its initial state or lists its")
	p(" objects whole; a list of metadata only is not. Every type but %s sees no write of the runs.", writtenResource)
	p(" After an apiserver restart the CPU is the new process's since its start: the context row takes the restart with no")
	p(" agents off both fleets' figures.\n\n")
	p("### fv HA spec\n\n| target | measured | result |\n|---|---:|---|\n")
	switch {
	case r.HAMeasured && r.HAConvergence <= haTarget:
		p("| time from the last fault to convergence ≤ %g s | %.1f s | met |\n", haTarget, r.HAConvergence)
	case r.HAMeasured:
		p("| time from the last fault to convergence ≤ %g s | %.1f s | **not met** |\n", haTarget, r.HAConvergence)
	default:
		p("| time from the last fault to convergence ≤ %g s | — | not run |\n", haTarget)
	}
	p("\nThe HA spec runs on its own control plane of three apiservers, not in this run: %s.\n\n", haHow)
}

// haTarget is the fv HA spec's goal, in seconds from the last fault.
const haTarget float64 = 10

const haHow = "`go test -count=1 ./fv/ha -ginkgo.json-report=ha.json` reports the time in its `HA convergence` report entry" +
	" (`converged N s after the last fault`), and `make fleet`'s command, given `-ha-report ha.json`, reads it from there"

// haConverged is the figure in the fv HA spec's report entry.
var haConverged = regexp.MustCompile(`converged ([0-9.]+)s after the last fault`)

// ReadHAConvergence reads the seconds from the last fault to convergence from a
// ginkgo JSON report of the fv HA spec (-ginkgo.json-report); "" reads nothing.
func ReadHAConvergence(path string) (float64, error) {
	if path == "" {
		return 0, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("the HA report: %w", err)
	}
	var reports []struct {
		SpecReports []struct {
			ReportEntries []struct {
				Name  string
				Value struct{ Representation string }
			}
		}
	}
	if err := json.Unmarshal(b, &reports); err != nil {
		return 0, fmt.Errorf("the HA report %s: %w", path, err)
	}
	var found []float64
	for _, rep := range reports {
		for _, s := range rep.SpecReports {
			for _, e := range s.ReportEntries {
				if m := haConverged.FindStringSubmatch(e.Value.Representation); e.Name == "HA convergence" && m != nil {
					if v, err := strconv.ParseFloat(m[1], 64); err == nil {
						found = append(found, v)
					}
				}
			}
		}
	}
	if len(found) == 0 {
		return 0, fmt.Errorf("the HA report %s has no HA convergence entry", path)
	}
	return slices.Max(found), nil
}
