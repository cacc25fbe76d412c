package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersion(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of kubesync and of its Kubernetes client",
		Args:  noArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(e.Out, "kubesync %s\nclient-go %s\n%s %s/%s\n",
				e.version, moduleVersion("k8s.io/client-go"), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		}),
	}
}

// moduleVersion is the version of module path that the binary was built with.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}
