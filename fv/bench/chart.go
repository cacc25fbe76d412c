package bench

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// relistGap is the blank time drawn between a contender's sync and its relist:
// the time in between (the other contenders, the changes) is not drawn.
const relistGap = 1.0

// ChartName is the file name of a workload's chart, written next to the report.
func ChartName(workload string) string { return "BENCHMARKS-" + workload + ".svg" }

// WriteCharts writes one chart per workload into dir: the RSS and CPU time of
// run 1 of every contender over its sync and then its relist, on shared axes.
// It records the files written, which Markdown then embeds.
func (r *Report) WriteCharts(dir string) error {
	r.Charts = map[string]string{}
	for _, w := range r.Workloads {
		rss, cpu := r.chartPlots(w)
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
			PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
		c := vgsvg.New(8*vg.Inch, 8*vg.Inch)
		cells := plot.Align([][]*plot.Plot{{rss}, {cpu}}, tiles, draw.New(c))
		rss.Draw(cells[0][0])
		cpu.Draw(cells[1][0])
		path := filepath.Join(dir, ChartName(w.Name))
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if _, err := c.WriteTo(f); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
		r.Charts[w.Name] = ChartName(w.Name)
	}
	return nil
}

// chartPlots makes a workload's two plots: RSS in MiB and cumulated CPU seconds
// against seconds, one line per contender.
func (r *Report) chartPlots(w WorkloadInfo) (rss, cpu *plot.Plot) {
	rss, cpu = plot.New(), plot.New()
	rss.Title.Text = fmt.Sprintf("%s: %d %ss: RSS through the sync, then the relist (run 1)", w.Name, w.Created, w.Kind)
	rss.Y.Label.Text, rss.X.Label.Text = "RSS (MiB)", "seconds"
	cpu.Title.Text = "CPU time (user + system), sync then relist"
	cpu.Y.Label.Text, cpu.X.Label.Text = "CPU (s)", "seconds"
	for _, p := range []*plot.Plot{rss, cpu} {
		p.Legend.Top, p.Legend.Left = true, true
		p.Add(plotter.NewGrid())
	}
	for i, c := range r.contenders() {
		res, ok := r.firstRun(w.Name, c)
		if !ok || len(res.Sync.Samples) == 0 {
			continue
		}
		mem, used := chartPoints(res)
		for _, pl := range []struct {
			p      *plot.Plot
			phases []plotter.XYs
		}{{rss, mem}, {cpu, used}} {
			for k, pts := range pl.phases {
				l, err := plotter.NewLine(pts)
				if err != nil || len(pts) == 0 {
					continue
				}
				l.Color, l.Dashes, l.Width = plotutil.Color(i), plotutil.Dashes(i/7), vg.Points(1.2)
				pl.p.Add(l)
				if k == 0 {
					pl.p.Legend.Add(short(c)+" "+c, l)
				}
			}
		}
	}
	return rss, cpu
}

// chartPoints turns a run's samples into RSS (MiB) and CPU (s) points, one line
// for the sync and one for the relist, drawn relistGap after the sync's end with
// its CPU on top of the sync's.
func chartPoints(res RunResult) (rss, cpu []plotter.XYs) {
	var syncRSS, syncCPU, relRSS, relCPU plotter.XYs
	var endT, endCPU float64
	for _, s := range res.Sync.Samples {
		syncRSS = append(syncRSS, plotter.XY{X: s.T, Y: float64(s.RSS) / (1 << 20)})
		syncCPU = append(syncCPU, plotter.XY{X: s.T, Y: s.CPU})
		endT, endCPU = s.T, s.CPU
	}
	if res.Relist != nil {
		for _, s := range res.Relist.Samples {
			t := endT + relistGap + s.T
			relRSS = append(relRSS, plotter.XY{X: t, Y: float64(s.RSS) / (1 << 20)})
			relCPU = append(relCPU, plotter.XY{X: t, Y: endCPU + s.CPU})
		}
	}
	return []plotter.XYs{syncRSS, relRSS}, []plotter.XYs{syncCPU, relCPU}
}

// firstRun returns the lowest-numbered run of contender on workload.
func (r *Report) firstRun(workload, contender string) (RunResult, bool) {
	var best RunResult
	found := false
	for _, res := range r.Results {
		if res.Workload == workload && res.Contender == contender && (!found || res.Run < best.Run) {
			best, found = res, true
		}
	}
	return best, found
}
