package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubesync",
		Short: "Watch a set of Kubernetes resource types and print the stream",
		Long: `kubesync keeps an agent's view of a Kubernetes cluster in sync: it lists and
watches a named set of resource types and reports a snapshot, then updates.
This command runs a set against a cluster and prints what the syncer reports.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(e.Out)
	root.SetErr(e.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	root.AddCommand(newWatch(e), newRBAC(e), newSets(e), newVersion(e))
	strictCompletion(root)
	return root
}

// completionShells are the shells cobra's completion command knows.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// strictCompletion makes "completion" reject a shell it does not know (exit 2)
// and report write errors (exit 1), as the other commands do.
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown shell %q for %s: use one of %s", args[0], cmd.CommandPath(),
					strings.Join(completionShells, ", "))
			}
			return nil
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		for _, shell := range c.Commands() {
			shell.RunE = runE(shell.RunE)
		}
	}
}

// runE marks the errors of a command's run as runtime errors, unless they carry
// their own code: what fails after the arguments were accepted is not a usage
// error.
func runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error { return asRuntime(fn(cmd, args)) }
}

// oneSet accepts exactly one argument, a watcher set name.
func oneSet(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("%s needs one watcher set name (see \"kubesync sets\"), got %d arguments",
			cmd.CommandPath(), len(args))
	}
	return nil
}

// noArgs accepts no argument.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}

// typesFlag adds --types to fs.
func typesFlag(fs *pflag.FlagSet, types *[]string) {
	fs.StringSliceVar(types, "types", nil,
		"watch only these types of the set, by name (pods) or full name (networkpolicies.crd.projectcalico.org)")
}
