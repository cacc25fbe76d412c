package fleet

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFleetVerdictsAgainstInformers(t *testing.T) {
	res := func(name string, whole, narrow int) ResourceFigures {
		return ResourceFigures{Resource: name, AgentWatchLists: whole + narrow, AgentWhole: whole}
	}
	r := &Report{Runs: []Figures{
		{Name: RunInformerCold, Agents: 10, APICPU: 10, BytesSent: 1000, ToInSync: []float64{10, 20, 30}},
		{Name: RunKubesyncCold, Agents: 10, APICPU: 9, BytesSent: 1100, AgentLists: 2, AgentWatches: 171, ToInSync: []float64{10, 15, 30}},
		{Name: RunRestartNoAgents, APICPU: 4},
		{Name: RunRestartInformers, APICPU: 14, BytesSent: 1000},
		{Name: RunRestartKubesync, APICPU: 8, BytesSent: 500, Resources: []ResourceFigures{
			res("pods", 10, 0), res("services", 0, 10), res("namespaces", 3, 0)}},
	}, HAConvergence: 12.5, HAMeasured: true, Options: Options{Agents: 10}}
	got := map[string]FleetVerdict{}
	for _, v := range r.FleetVerdicts() {
		got[v.Target.Run+"/"+v.Target.Name] = v
	}
	check := func(run, name string, met bool, value float64) {
		t.Helper()
		v, ok := got[run+"/"+name]
		if !ok || !v.Ran {
			t.Fatalf("%s / %s: not judged: %+v", run, name, v)
		}
		figure := v.Value
		if v.Target.Ref != "" {
			figure = v.Ratio
		}
		if v.Met != met || figure != value {
			t.Errorf("%s / %s: met %v at %v, want met %v at %v", run, name, v.Met, figure, met, value)
		}
	}
	check(RunKubesyncCold, "apiserver CPU seconds", true, 0.9)
	check(RunKubesyncCold, "bytes sent", false, 1.1)
	check(RunKubesyncCold, "median time to InSync per agent", true, 0.75)
	check(RunKubesyncCold, "LIST requests (the agents')", false, 2)
	check(RunKubesyncCold, "WATCH opened per agent (the agents')", true, 17.1)
	check(RunRestartKubesync, "bytes sent", true, 0.5)
	check(RunRestartKubesync, "apiserver CPU seconds", true, 8.0/14)
	// pods is written; services had narrow reads only; namespaces streamed whole.
	check(RunRestartKubesync, "types with nothing changed re-downloaded in full", false, 1)
	check(RunRestartKubesync, "apiserver CPU seconds, net of the restart with no agents", false, 0.4)

	md := r.Markdown()
	for _, want := range []string{
		"| cold start, kubesync fleet | bytes sent ≤ 1.05× the informers' |",
		"| **not met**: namespaces (3) |",
		"| time from the last fault to convergence ≤ 10 s | 12.5 s | **not met** |",
		"(context) | 4.00 s | 10.00 s | 0.400× | reported |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "**not met**"); n != 4+6 { // 4 here, and the warm run's 6, not run
		t.Errorf("the report shows %d targets not met, want 10:\n%s", n, md)
	}
	// A view already converged at the last fault reads 0 s: met, not "not run".
	r.HAConvergence = 0
	if md := r.Markdown(); !strings.Contains(md, "| time from the last fault to convergence ≤ 10 s | 0.0 s | met |") {
		t.Errorf("markdown lacks the HA spec's 0.0 s, met:\n%s", md)
	}
	r.HAMeasured = false
	if md := r.Markdown(); !strings.Contains(md, "| — | not run |") {
		t.Errorf("markdown lacks the HA spec's not run:\n%s", md)
	}
}

func TestReadHAConvergence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ha.json")
	report := `[{"SpecReports":[{"ReportEntries":[{"Name":"HA fault schedule","Value":{"Representation":"seed 1"}},` +
		`{"Name":"HA convergence","Value":{"AsJSON":"\"x\"","Representation":"seed 1: 20 faults; converged 3.4s after the last fault (target 10s); 5 writes"}}]}]}]`
	if err := os.WriteFile(path, []byte(report), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadHAConvergence(path); err != nil || got != 3.4 {
		t.Errorf("ReadHAConvergence = %v, %v; want 3.4", got, err)
	}
	if got, err := ReadHAConvergence(""); err != nil || got != 0 {
		t.Errorf("no report: %v, %v", got, err)
	}
	if err := os.WriteFile(path, []byte(`[{"SpecReports":[]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadHAConvergence(path); err == nil {
		t.Error("a report without the entry was accepted")
	}
}

func TestMeterTellsWholeDownloadsFromNarrowReads(t *testing.T) {
	m := NewMeter()
	get := func(url, accept string) {
		r := httptest.NewRequest(http.MethodGet, url, nil)
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		m.countRequest(r)
	}
	get("/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", "")
	get("/api/v1/pods?watch=true&sendInitialEvents=true&fieldSelector=metadata.name%3Dfence", "")
	get("/api/v1/services?limit=500", "")
	get("/api/v1/services?limit=1", "")
	get("/api/v1/services?limit=500", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	get("/api/v1/services?watch=true&resourceVersion=5", "")
	whole := map[string]int{}
	for k, v := range m.Read().Requests {
		if k.Whole {
			whole[k.Verb+" "+k.Resource] += v
		}
	}
	if len(whole) != 2 || whole["watchlist pods"] != 1 || whole["list services"] != 1 {
		t.Errorf("whole downloads %v, want one stream of pods and one list of services", whole)
	}
	if n := m.Read().Count("watchlist", "pods"); n != 2 {
		t.Errorf("%d watchlists of pods counted, want 2 (the fence is one)", n)
	}
}
