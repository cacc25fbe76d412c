package cli

import (
	"time"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

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
	logLevel       string
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
  {"status":"InSync"}
  {"syncFailed":"pods","reason":"forbidden","error":"…"}
  {"parseFailed":"pods","namespace":"default","name":"web","error":"…"}
"type" is New, Updated or Deleted; --values adds the object as "value".
With -o table it prints a summary of the types once in sync, then a row per update.

A type the client may not list, or whose API is not served, is reported once on
stderr and retried; the others are watched meanwhile. The command fails if the
apiserver has not answered within --connect-timeout. Interrupt it to stop.`,
		Example: `  kubesync watch policy --context kind-dev -n default --types pods,networkpolicies.crd.projectcalico.org
  kubesync watch routing -o table --metrics-addr :9090`,
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
	fs.BoolVar(&f.local, "local", false, "start a local etcd and kube-apiserver and watch it")
	fs.StringVar(&f.logLevel, "log-level", "error", "syncer log level on stderr: error, warn, info or debug")
	return cmd
}

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
	level, err := logrus.ParseLevel(f.logLevel)
	if err != nil {
		return watchPlan{}, usagef("--log-level: %w", err)
	}
	if f.local && (f.kubeconfig != "" || f.context != "") {
		return watchPlan{}, usagef("--local cannot be combined with --kubeconfig or --context")
	}
	if cmd.Flags().Changed("namespace") && f.namespace == "" {
		return watchPlan{}, usagef("--namespace must not be empty")
	}
	set = set.InNamespace(f.namespace)
	return watchPlan{watchFlags: f, set: set, level: level}, nil
}
