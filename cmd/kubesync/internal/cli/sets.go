package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubesync/kubesync/watchersets"
)

// lookupSet resolves a set name and an optional type selection; failures are
// usage errors.
func lookupSet(name string, types []string) (watchersets.Set, error) {
	set, err := watchersets.Lookup(name)
	if err != nil {
		return watchersets.Set{}, usageError(err)
	}
	if len(types) == 0 {
		return set, nil
	}
	set, err = set.Select(types...)
	if err != nil {
		return watchersets.Set{}, usageError(err)
	}
	return set, nil
}

func newSets(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "sets",
		Short: "List the watcher sets and their types",
		Args:  noArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			var b strings.Builder
			for i, s := range watchersets.Sets() {
				if i > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "%s: %s\n", s.Name, s.Description)
				fmt.Fprintf(&b, "  %s\n", strings.Join(s.TypeNames(), "\n  "))
			}
			_, err := io.WriteString(e.Out, b.String())
			return err
		}),
	}
}
