package cli

import (
	"github.com/spf13/cobra"
)

func newRBAC(e *env) *cobra.Command {
	var (
		types []string
		name  string
	)
	cmd := &cobra.Command{
		Use:   "rbac SET",
		Short: "Print the least-privileged ClusterRole that a watcher set needs",
		Long: `Print, as YAML, a ClusterRole that grants exactly get, list and watch on the
resources of the set (or of the types chosen with --types), and get on the
namespace kube-system, whose UID names the cluster of a --state-dir checkpoint.`,
		Example: "  kubesync rbac policy | kubectl apply -f -",
		Args:    oneSet,
		RunE: runE(func(_ *cobra.Command, args []string) error {
			set, err := lookupSet(args[0], types)
			if err != nil {
				return err
			}
			if name == "" {
				name = "kubesync-" + set.Name
			}
			out, err := set.ClusterRoleYAML(name)
			if err != nil {
				return err
			}
			_, err = e.Out.Write(out)
			return err
		}),
	}
	typesFlag(cmd.Flags(), &types)
	cmd.Flags().StringVar(&name, "name", "", `name of the ClusterRole (default "kubesync-SET")`)
	return cmd
}
