package fleet

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/resources"
)

// Process command names as /proc shows them.
const (
	apiServerComm = "kube-apiserver"
	etcdComm      = "etcd"
)

// probe reads the apiserver (and etcd) around a run.
type probe struct {
	cp    *controlplane.ControlPlane
	meter *Meter
	types []resources.Type
	api   orchestrate.Proc
	etcd  orchestrate.Proc
}

func newProbe(cp *controlplane.ControlPlane, meter *Meter, types []resources.Type) (*probe, error) {
	p := &probe{cp: cp, meter: meter, types: types}
	if err := p.findAPIServer(); err != nil {
		return nil, err
	}
	etcd, err := orchestrate.FindChild(etcdComm)
	if err != nil {
		return nil, err
	}
	p.etcd = etcd
	return p, nil
}

// findAPIServer finds the apiserver process again, after a restart.
func (p *probe) findAPIServer() error {
	api, err := orchestrate.FindChild(apiServerComm)
	if err != nil {
		return err
	}
	p.api = api
	return nil
}

// sample is one reading of everything a run compares.
type sample struct {
	at      time.Time
	api     orchestrate.ProcReading
	etcd    orchestrate.ProcReading
	self    orchestrate.ProcReading // this process: every agent
	metrics *controlplane.APIServerMetrics
	meter   MeterReading
}

// begin resets the apiserver's peak RSS and takes a sample.
func (p *probe) begin(ctx context.Context) (sample, error) {
	if err := p.api.ResetPeak(); err != nil {
		return sample{}, fmt.Errorf("resetting the apiserver's peak RSS: %w", err)
	}
	if err := orchestrate.Self().ResetPeak(); err != nil {
		return sample{}, fmt.Errorf("resetting the fleet's peak RSS: %w", err)
	}
	return p.take(ctx)
}

func (p *probe) take(ctx context.Context) (sample, error) {
	s := sample{at: time.Now(), meter: p.meter.Read()}
	var err error
	if s.api, err = p.api.Read(); err != nil {
		return s, fmt.Errorf("reading the apiserver process: %w", err)
	}
	if s.etcd, err = p.etcd.Read(); err != nil {
		return s, fmt.Errorf("reading the etcd process: %w", err)
	}
	if s.self, err = orchestrate.Self().Read(); err != nil {
		return s, fmt.Errorf("reading this process: %w", err)
	}
	if s.metrics, err = p.cp.Metrics(ctx); err != nil {
		return s, err
	}
	return s, nil
}

// ResourceFigures are one resource's requests in a run. The apiserver's
// counts include its own loopback clients; the agents' are counted on their
// connections.
type ResourceFigures struct {
	Resource string // resource.group
	// Lists and Watches (opened) as the apiserver counts them; WatchLists is the
	// watches that streamed the initial state (apiserver_watch_list_duration_seconds).
	Lists, Watches, WatchLists float64
	// Bytes is the apiserver's count of what it sent for the resource: list
	// responses and watch events, before compression and framing.
	Bytes float64
	// The same, counted on the agents' side; AgentWhole are the lists and
	// initial-state streams among them that sent the objects in full
	// (RequestKey.Whole).
	AgentLists, AgentWatches, AgentWatchLists, AgentWhole int
}

// Figures are what one run cost the apiserver.
type Figures struct {
	Name    string
	Agents  int // agents started or restarted in the run
	Seconds float64
	// APICPU and EtcdCPU are CPU seconds (user + system) from /proc/PID/stat.
	APICPU, EtcdCPU float64
	// APIPeakRSS is VmHWM over the run; APIRSSEnd is VmRSS at its end.
	APIPeakRSS, APIRSSEnd uint64
	// FleetCPU and FleetPeakRSS are the same for the process that runs every
	// agent: the clients' side, for context.
	FleetCPU     float64
	FleetPeakRSS uint64
	// BytesSent is what the agents read from their connections: the apiserver's
	// responses and watch streams as sent, TLS and HTTP/2 framing included.
	BytesSent int64
	// APIBytes is the apiserver's own count: apiserver_response_sizes (lists,
	// gets) plus apiserver_watch_events_sizes (every event sent to a watcher),
	// all clients, before compression and framing.
	APIBytes float64
	Dials    int64
	// Totals over the set's resources.
	Lists, Watches, WatchLists                float64
	AgentLists, AgentWatches, AgentWatchLists int
	Resources                                 []ResourceFigures
	// ToComplete and ToInSync are per agent started in the run: seconds from its
	// start to holding every object, and to InSync.
	ToComplete, ToInSync []float64
	// Restarted says the apiserver restarted in the run: its counters and CPU
	// count from the new process's start.
	Restarted bool
	Note      string
}

// figures compares two samples. After an apiserver restart, the apiserver's
// counters, CPU time and peak RSS are those of the new process.
func (p *probe) figures(name string, agents int, a, b sample, restarted bool) Figures {
	f := Figures{Name: name, Agents: agents, Seconds: b.at.Sub(a.at).Seconds(), Restarted: restarted,
		EtcdCPU: (b.etcd.CPU - a.etcd.CPU).Seconds(), APIPeakRSS: b.api.PeakRSS, APIRSSEnd: b.api.RSS,
		FleetCPU: (b.self.CPU - a.self.CPU).Seconds(), FleetPeakRSS: b.self.PeakRSS}
	before := a.metrics
	if restarted {
		before = nil
		f.APICPU = b.api.CPU.Seconds()
	} else {
		f.APICPU = (b.api.CPU - a.api.CPU).Seconds()
	}
	m := b.meter.Sub(a.meter)
	f.BytesSent, f.Dials = m.BytesRead, m.Dials
	delta := func(get func(*controlplane.APIServerMetrics) float64) float64 {
		if before == nil {
			return get(b.metrics)
		}
		return get(b.metrics) - get(before)
	}
	f.APIBytes = delta(func(x *controlplane.APIServerMetrics) float64 {
		s1, _ := x.HistogramSum("apiserver_response_sizes", nil)
		s2, _ := x.HistogramSum("apiserver_watch_events_sizes", nil)
		return s1 + s2
	})
	for _, t := range p.types {
		g, r := t.GVR.Group, t.GVR.Resource
		rf := ResourceFigures{
			Resource: strings.TrimSuffix(r+"."+g, "."),
			Lists:    delta(func(x *controlplane.APIServerMetrics) float64 { return x.RequestCount("LIST", g, r) }),
			Watches: delta(func(x *controlplane.APIServerMetrics) float64 {
				// A watch counts in apiserver_request_total when it ends: opened =
				// ended + (open now - open before).
				return x.RequestCount("WATCH", g, r) + x.OpenWatches(g, r)
			}),
			WatchLists: delta(func(x *controlplane.APIServerMetrics) float64 {
				_, n := x.HistogramSum("apiserver_watch_list_duration_seconds", func(l map[string]string) bool {
					return l["group"] == g && l["resource"] == r
				})
				return n
			}),
			Bytes: delta(func(x *controlplane.APIServerMetrics) float64 {
				match := func(l map[string]string) bool { return l["group"] == g && l["resource"] == r }
				s1, _ := x.HistogramSum("apiserver_response_sizes", match)
				s2, _ := x.HistogramSum("apiserver_watch_events_sizes", match)
				return s1 + s2
			}),
		}
		for k, v := range m.Requests {
			if k.Group != g || k.Resource != r {
				continue
			}
			if k.Whole {
				rf.AgentWhole += v
			}
			switch k.Verb {
			case "list":
				rf.AgentLists += v
			case "watch":
				rf.AgentWatches += v
			case "watchlist":
				rf.AgentWatches += v
				rf.AgentWatchLists += v
			}
		}
		f.Lists += rf.Lists
		f.Watches += rf.Watches
		f.WatchLists += rf.WatchLists
		f.AgentLists += rf.AgentLists
		f.AgentWatches += rf.AgentWatches
		f.AgentWatchLists += rf.AgentWatchLists
		f.Resources = append(f.Resources, rf)
	}
	return f
}
