package fleet

import (
	"strings"
	"testing"
)

func TestVerdictsWarmAgainstCold(t *testing.T) {
	cold := Figures{Name: RunRollingCold, Agents: 4, Seconds: 100, BytesSent: 1000, APICPU: 10, Lists: 0, WatchLists: 68, ToInSync: []float64{1, 2, 3}}
	warm := Figures{Name: RunRollingWarm, Agents: 4, Seconds: 20, BytesSent: 40, APICPU: 3, Lists: 2, AgentLists: 1, WatchLists: 5, AgentWatchLists: 4,
		ToInSync: []float64{0.1, 0.2, 0.3}, ToComplete: []float64{0.05, 0.2, 0.3}}
	idle := Figures{Name: RunIdle, Seconds: 10, BytesSent: 10} // 1 byte/s
	r := &Report{Runs: []Figures{cold, idle, warm}}
	got := map[string]Verdict{}
	for _, v := range r.Verdicts() {
		got[v.Target.Name] = v
	}
	check := func(name string, met bool, ratio float64) {
		t.Helper()
		v, ok := got[name]
		if !ok || !v.Measured {
			t.Fatalf("%s: not measured: %+v", name, v)
		}
		if v.Met != met || (ratio != 0 && v.Ratio != ratio) {
			t.Errorf("%s: met %v ratio %v, want met %v ratio %v", name, v.Met, v.Ratio, met, ratio)
		}
	}
	check("apiserver bytes sent", true, 0.04)
	check("apiserver CPU seconds", false, 0.3)
	check("apiserver bytes sent, net of the steady state", true, 20.0/900)
	check("LIST requests", false, 0)
	check("median time to the snapshot per agent (s)", false, 0)
	check("median time to InSync per agent", true, 0.1)

	md := r.Markdown()
	if n := strings.Count(md, "**not met**"); n != 3 {
		t.Errorf("the report shows %d targets not met, want 3:\n%s", n, md)
	}
}

func TestMeterReadingSub(t *testing.T) {
	m := NewMeter()
	a := m.Read()
	m.read.Add(100)
	m.requests[RequestKey{Verb: "watchlist", Resource: "pods"}] = 3
	m.requests[RequestKey{Verb: "list", Group: "crd.projectcalico.org", Resource: "networksets"}] = 1
	d := m.Read().Sub(a)
	if d.BytesRead != 100 || d.Count("watchlist", "") != 3 || d.Count("list", "networksets") != 1 || d.Count("watch", "") != 0 {
		t.Errorf("difference %+v", d)
	}
}
