package cli

import (
	"slices"
	"strings"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/watchersets"
)

// watchFlags are the flags of "kubesync watch".
type watchFlags struct {
	kubeconfig     string
	context        string
	namespace      string
	types          []string
	output         string
	values         bool
	metricsAddr    string
	connectTimeout time.Duration
	local          bool
	demoChanges    float64
	logLevel       string
	state          stateFlags // --state-dir (state.go)
}

// watchPlan is a validated watch: what to watch and how to print it.
type watchPlan struct {
	watchFlags
	set   watchersets.Set
	level logrus.Level
}

func newWatch(e *env) *cobra.Command {
	var f watchFlags
	cmd := &cobra.Command{
		Use:   "watch SET",
		Short: "Watch a set of resource types and print every update",
		Long: `Watch the resource types of a watcher set (see "kubesync sets") and print
what the syncer reports: one line per update, status change and failure.

With -o json (the default) each line is a JSON object:
  {"type":"New","key":"Pod/default/web","kind":"Pod","namespace":"default","name":"web","revision":"1234","uid":"…"}
  {"status":"InSync","types":4,"typesInSync":3,"failing":{"forbidden":1}}
  {"syncFailed":"pods","reason":"forbidden","error":"…"}
  {"syncRecovered":"pods"}
  {"parseFailed":"pods","namespace":"default","name":"web","error":"…"}
"type" is New, Updated or Deleted (with the deleted object's uid); --values adds
the object as "value". With -o table it prints a summary of the types once in
sync, then a row per update.

A type the client may not list, or whose API is not served, is reported once on
stderr and retried, and again when it recovers. The command fails if the
apiserver has not answered within --connect-timeout, or if it refused every type
(401 or 403) for that long. Interrupt it to stop.

With --local it starts its own etcd and kube-apiserver with sample objects, prints
the path of an admin kubeconfig for them, and stops them when it ends;
--demo-changes makes that cluster change on its own.`,
		Example: `  kubesync watch policy --context kind-dev -n default --types pods,networkpolicies.crd.projectcalico.org
  kubesync watch routing -o table --metrics-addr :9090
  kubesync watch dataplane --local --demo-changes 2 -o table`,
		Args: oneSet,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			plan, err := f.plan(args[0], cmd)
			if err != nil {
				return err
			}
			return runWatch(cmd.Context(), e, plan)
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "kubeconfig context to use (default: its current context)")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "watch namespaced types in this namespace only (default: all)")
	typesFlag(fs, &f.types)
	fs.StringVarP(&f.output, "output", "o", "json", "output format: json (one object per line) or table")
	fs.BoolVar(&f.values, "values", false, "with -o json, include each object as \"value\"")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics, e.g. :9090")
	fs.DurationVar(&f.connectTimeout, "connect-timeout", 30*time.Second,
		"fail if the apiserver has not answered for any type within this time (0: wait forever)")
	fs.BoolVar(&f.local, "local", false, "start a local etcd and kube-apiserver with sample objects and watch it")
	fs.Float64Var(&f.demoChanges, "demo-changes", 0,
		"with --local, create, update and delete sample objects at this rate per second (0: none)")
	fs.StringVar(&f.logLevel, "log-level", "error", "syncer log level on stderr: "+strings.Join(logLevelNames, ", "))
	f.state.register(fs)
	return cmd
}

// logLevels are the accepted --log-level values, least verbose first.
var (
	logLevelNames = []string{"error", "warn", "info", "debug"}
	logLevels     = map[string]logrus.Level{
		"error": logrus.ErrorLevel, "warn": logrus.WarnLevel, "info": logrus.InfoLevel, "debug": logrus.DebugLevel,
	}
)

// maxDemoChanges bounds --demo-changes: a demo, not a load test.
const maxDemoChanges = 1000

// plan validates the flags; its errors are usage errors.
func (f watchFlags) plan(setName string, cmd *cobra.Command) (watchPlan, error) {
	set, err := lookupSet(setName, f.types)
	if err != nil {
		return watchPlan{}, err
	}
	switch f.output {
	case "json":
	case "table":
		if f.values {
			return watchPlan{}, usagef("--values needs -o json")
		}
	default:
		return watchPlan{}, usagef("unknown output format %q: use json or table", f.output)
	}
	if f.connectTimeout < 0 {
		return watchPlan{}, usagef("--connect-timeout must not be negative, got %s", f.connectTimeout)
	}
	level, ok := logLevels[f.logLevel]
	if !ok {
		return watchPlan{}, usagef("--log-level %q is not one of %s", f.logLevel, strings.Join(logLevelNames, ", "))
	}
	if f.local && (f.kubeconfig != "" || f.context != "") {
		return watchPlan{}, usagef("--local cannot be combined with --kubeconfig or --context")
	}
	switch {
	case cmd.Flags().Changed("demo-changes") && !f.local:
		return watchPlan{}, usagef("--demo-changes needs --local: it never writes to another cluster")
	case f.demoChanges < 0 || f.demoChanges > maxDemoChanges || f.demoChanges != f.demoChanges:
		return watchPlan{}, usagef("--demo-changes must be a rate from 0 to %d per second, got %v", maxDemoChanges, f.demoChanges)
	}
	if cmd.Flags().Changed("namespace") {
		if f.namespace == "" {
			return watchPlan{}, usagef("--namespace must not be empty")
		}
		if !slices.ContainsFunc(set.Types, func(t resources.Type) bool { return t.Namespaced }) {
			return watchPlan{}, usagef("--namespace %s: every type of the selection is cluster-scoped", f.namespace)
		}
	}
	if f.metricsAddr != "" {
		if err := checkListenAddr(f.metricsAddr); err != nil {
			return watchPlan{}, usagef("--metrics-addr: %w", err)
		}
	}
	set = set.InNamespace(f.namespace)
	return watchPlan{watchFlags: f, set: set, level: level}, nil
}
